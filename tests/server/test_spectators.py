"""The spectators of a live game, counted as they come and go: the players and the spectators
hear each change at once (`spectators`), with no version in the game's event log."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.server.endpoint import serving
from tests.server.wire import Frame, Wire


def counts(wire: Wire, game_id: str) -> list[int]:
    return [f["count"] for f in wire.frames if f["t"] == "spectators" and f["game_id"] == game_id]


def count_is(game_id: str, count: int) -> Callable[[Frame], bool]:
    return lambda f: f["t"] == "spectators" and f["game_id"] == game_id and f["count"] == count


@pytest.mark.asyncio
async def test_players_and_spectators_hear_each_spectator_come_and_go(redis_url: str) -> None:
    async with serving(redis_url) as url:
        seeker, taker = await Wire.guest(url), await Wire.guest(url)
        added = await seeker.call("seek", time={"base": 300, "increment": 0}, setup="6x6")
        started = await taker.call("accept_seek", seek_id=added["seek"]["seek_id"])
        game_id = started["game_id"]
        first, second = await Wire.guest(url), await Wire.guest(url)
        assert (await first.call("watch", game_id=game_id))["t"] == "game_state"
        for wire in (seeker, taker, first):
            await wire.wait_for(count_is(game_id, 1))
        assert (await second.call("watch", game_id=game_id))["t"] == "game_state"
        for wire in (seeker, taker, first, second):
            await wire.wait_for(count_is(game_id, 2))
        assert (await second.call("unwatch", game_id=game_id))["t"] == "ok"
        await first.wait_for(count_is(game_id, 1))
        await first.close()  # a closed connection counts out too
        await taker.wait_for(count_is(game_id, 0))
        assert counts(taker, game_id) == [1, 2, 1, 0]
        # News of the game, not one of its events: the game's log has none of them.
        late = await Wire.guest(url)
        await late.call("resync", game_id=game_id, version=0)
        assert counts(late, game_id) == []
        assert all("version" not in f for f in taker.frames if f["t"] == "spectators")
        for wire in (seeker, taker, second, late):
            await wire.close()
