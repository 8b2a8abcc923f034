"""A house-bot request is written before the commit that makes its turn, a new game's before
the commit that makes the game: a worker that reads it first looks for the game again until it
is there (for a while), rather than drop the request as one for no game."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from server.clock import now_ms
from server.games import GameStore
from server.protocol import ErrorCode, Player, PlayerKind, ProtocolError, TimeControl
from server.stored_game import StoredGame
from server.worker import Worker


@pytest.mark.asyncio
async def test_a_game_not_made_yet_is_looked_for_again_and_one_never_made_is_not_found(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(redis)
    started = await store.create(
        Player("ann", PlayerKind.HUMAN),
        Player("random", PlayerKind.HOUSE),
        time=TimeControl(60, 0),
        rated=False,
        now=now_ms(),
        setup="6x6",
    )
    worker = Worker(redis, "waiting")
    load, looks = worker.store.load, []

    async def made_after_three_looks(game_id: str) -> StoredGame:
        looks.append(game_id)
        if len(looks) <= 3:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no game {game_id}")
        return await load(game_id)

    monkeypatch.setattr(worker.store, "load", made_after_three_looks)
    found = await worker._at_ply(started.game_id, 0)
    assert (found.game_id, len(looks)) == (started.game_id, 4)

    monkeypatch.setattr(worker.store, "load", load)
    with pytest.raises(ProtocolError) as missing:
        await worker._at_ply("nosuchgame", 0)
    assert missing.value.code is ErrorCode.NOT_FOUND
