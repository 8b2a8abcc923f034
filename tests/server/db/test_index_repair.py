"""A process killed between a game's commit and the index writes that follow it loses nothing:
the game's deadline is still enforced, its house bot still asked, its end still handed over to
the history store, once the sweep (`GameStore.repair_index`) has put the indexes right."""

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.clock import FIRST_MOVE_MS
from server.db.database import Database
from server.db.finished_games import finished_game
from server.game_index import bucket_of, deadlines_key, house_stream, user_games_key
from server.games import GameStore, open_redis
from server.protocol import GameStatus, Termination

T0 = 1_790_000_000_000
KILLED = 17  # the exit status of a process killed after a commit

# A process that makes a game and is killed (os._exit: nothing after it runs, as for SIGKILL) as
# soon as the commit named by its second argument is in Redis, before anything that follows it.
KILLED_AFTER = f"""
import asyncio, os, sys

from server.games import GameStore, open_redis
from server.protocol import Player, PlayerKind, TimeControl

redis_url, step = sys.argv[1:3]
ann = Player("ann", PlayerKind.HUMAN)
bob, house = Player("bob", PlayerKind.HUMAN), Player("greedy", PlayerKind.HOUSE)


def killed_after(script):
    async def commit(*args, **kwargs):
        done = await script(*args, **kwargs)
        if done:
            print(kwargs["keys"].game.removeprefix("{{g:").removesuffix("}}:game"), flush=True)
            os._exit({KILLED})
        return done
    return commit


async def main():
    store = GameStore(open_redis(redis_url))
    seats = (None, "greedy@5") if step == "house_turn" else (None, None)
    if step == "create":
        store.storage._commit_script = killed_after(store.storage._commit_script)
    started = await store.create(
        ann,
        house if step == "house_turn" else bob,
        time=TimeControl(60, 2),
        rated=True,
        now={T0},
        setup="6x6",
        house=seats,
    )
    if step == "house_turn":
        store.storage._commit_script = killed_after(store.storage._commit_script)
        await store.play(started.game_id, "ann", 0, "b1-b4/d4", {T0 + 1_000})
    await store.play(started.game_id, "ann", 0, "b1-b4/d4", {T0 + 1_000})
    await store.play(started.game_id, "bob", 1, "e6-e3/c3", {T0 + 2_000})
    store.storage._commit_script = killed_after(store.storage._commit_script)
    await store.resign(started.game_id, "ann", {T0 + 3_000})


asyncio.run(main())
"""


@pytest_asyncio.fixture
async def store(redis: Redis, redis_url: str, db: Database) -> AsyncIterator[GameStore]:
    games = GameStore(open_redis(redis_url), database=db)
    try:
        yield games
    finally:
        await games.redis.aclose()


@pytest_asyncio.fixture
async def live(redis: Redis, redis_url: str) -> AsyncIterator[GameStore]:
    """A store without a history store, as a house-bot worker's."""
    games = GameStore(open_redis(redis_url))
    try:
        yield games
    finally:
        await games.redis.aclose()


async def _killed_after(redis_url: str, step: str) -> str:
    """The game of a process killed right after the commit of `step`."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        KILLED_AFTER,
        redis_url,
        step,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])},
    )
    out, _ = await child.communicate()
    assert child.returncode == KILLED, out
    return out.decode().splitlines()[0]


@pytest.mark.asyncio
async def test_a_game_whose_end_lost_its_index_writes_is_still_handed_over(
    store: GameStore, redis_url: str, db: Database
) -> None:
    game_id = await _killed_after(redis_url, "resign")
    assert (await store.load(game_id)).status is GameStatus.ENDED
    # Nothing told the hand-over of it: it is still listed live.
    assert await store.hand_over_leftovers() == 0
    assert await store.index.live() == [game_id]
    assert await store.index.handing_over(game_id)

    assert await store.repair_index(bucket_of(game_id)) > 0
    assert await store.index.waiting_handover() == [game_id]
    assert await store.index.live() == []
    assert await store.games_of("ann") == []
    assert await store.hand_over_leftovers() == 1
    found = await finished_game(db, game_id)
    assert found is not None
    assert (found.record.winner, found.record.moves) == ("black", ["b1-b4/d4", "e6-e3/c3"])
    assert await store.repair_index(bucket_of(game_id)) == 0


@pytest.mark.asyncio
async def test_a_new_game_whose_process_died_at_once_still_has_its_deadline(
    live: GameStore, redis_url: str
) -> None:
    store = live
    game_id = await _killed_after(redis_url, "create")
    assert await store.games_of("ann") == [game_id]
    assert [game.game_id for game in await store.live_games(T0)] == [game_id]
    assert await store.due(T0 + FIRST_MOVE_MS - 1) == []
    assert await store.due(T0 + FIRST_MOVE_MS) == [game_id]
    ended = await store.expire(game_id, T0 + FIRST_MOVE_MS)
    assert ended is not None
    assert ended.termination is Termination.ABORTED
    assert await store.index.waiting_handover() == [game_id]
    assert await store.index.live() == []


@pytest.mark.asyncio
async def test_a_house_bot_whose_request_was_lost_is_asked_again(
    live: GameStore, redis: Redis, redis_url: str
) -> None:
    store = live
    game_id = await _killed_after(redis_url, "house_turn")
    stream = house_stream(bucket_of(game_id))
    asked = [(f[b"game_id"].decode(), int(f[b"ply"])) for _, f in await redis.xrange(stream)]
    assert asked == [(game_id, 1)]  # asked before the commit that made it its turn
    assert (await store.load(game_id)).ply == 1

    await redis.delete(stream)  # a request taken by a worker that skipped it, say
    assert await store.repair_index(bucket_of(game_id)) == 1
    asked = [(f[b"game_id"].decode(), int(f[b"ply"])) for _, f in await redis.xrange(stream)]
    assert asked == [(game_id, 1)]
    assert await store.repair_index(bucket_of(game_id)) == 0


@pytest.mark.asyncio
async def test_a_deadline_later_than_its_games_is_brought_forward_by_the_sweep(
    live: GameStore, redis: Redis
) -> None:
    store = live
    from server.protocol import Player, PlayerKind, TimeControl

    ann, bob = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    started = await live.create(ann, bob, time=TimeControl(60, 0), rated=False, now=T0, setup="6x6")
    game_id = started.game_id
    key = deadlines_key(bucket_of(game_id))
    await redis.zadd(key, {game_id: T0 + 10 * FIRST_MOVE_MS})
    await redis.srem(user_games_key("bob"), game_id)
    assert await store.due(T0 + FIRST_MOVE_MS) == []

    assert await store.repair_index(bucket_of(game_id)) == 2
    assert await store.due(T0 + FIRST_MOVE_MS) == [game_id]
    assert await store.games_of("bob") == [game_id]


@pytest.mark.asyncio
async def test_a_game_that_ends_while_the_sweep_reads_it_is_not_listed_again(
    live: GameStore, redis: Redis
) -> None:
    from server.protocol import Player, PlayerKind, TimeControl

    ann, bob = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    started = await live.create(ann, bob, time=TimeControl(60, 0), rated=False, now=T0, setup="6x6")
    game_id = started.game_id
    as_read = await live.load(game_id)  # by the sweep, before the game ends
    await live.resign(game_id, "ann", T0 + 1_000)

    assert await live.index.repair(bucket_of(game_id), {game_id: as_read}) == 0
    assert await live.games_of("ann") == []
    assert await live.games_of("bob") == []
    assert await redis.zscore(deadlines_key(bucket_of(game_id)), game_id) is None


@pytest.mark.asyncio
async def test_an_older_folders_indexes_move_into_their_buckets_once(
    live: GameStore, redis: Redis
) -> None:
    from server.game_index import BUCKETS, handover_key, live_key, spectators_key
    from server.protocol import Player, PlayerKind, TimeControl

    ann, house = Player("ann", PlayerKind.HUMAN), Player("greedy", PlayerKind.HOUSE)
    terms = {"time": TimeControl(60, 0), "rated": False, "now": T0, "setup": "6x6"}
    playing = await live.create(house, ann, house=("greedy@5", None), **terms)  # type: ignore[arg-type]
    ended = await live.create(ann, house, house=(None, "greedy@5"), **terms)  # type: ignore[arg-type]
    await live.resign(ended.game_id, "ann", T0 + 1_000)
    # As servers before the buckets kept them: one key an index.
    for bucket in range(BUCKETS):
        await redis.delete(live_key(bucket), deadlines_key(bucket), handover_key(bucket))
        await redis.delete(house_stream(bucket), spectators_key(bucket), user_games_key("ann"))
    await redis.sadd("games:live", playing.game_id)
    await redis.zadd("games:deadlines", {playing.game_id: T0 + FIRST_MOVE_MS})
    await redis.hset("games:spectators", playing.game_id, 2)
    await redis.sadd("games:handover", ended.game_id)
    await redis.xadd("ai:requests", {"game_id": playing.game_id, "ply": 0})
    await redis.sadd("user-games:ann", playing.game_id)

    await live.move_older_index()
    assert not await redis.exists(
        "games:live", "games:deadlines", "games:spectators", "games:handover", "ai:requests"
    )
    assert not await redis.exists("user-games:ann")
    assert await live.index.live() == [playing.game_id]
    assert await live.due(T0 + FIRST_MOVE_MS) == [playing.game_id]
    assert await live.index.spectators([playing.game_id]) == {playing.game_id: 2}
    assert await live.index.waiting_handover() == [ended.game_id]
    assert await live.games_of("ann") == [playing.game_id]
    stream = house_stream(bucket_of(playing.game_id))
    assert [f[b"ply"] for _, f in await redis.xrange(stream)] == [b"0"]
    assert await live.index.move_older() == 0  # once


@pytest.mark.asyncio
async def test_a_move_that_brings_the_deadline_forward_writes_it_before_its_commit(
    live: GameStore,
) -> None:
    from server.protocol import Player, PlayerKind, TimeControl

    ann, bob = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    started = await live.create(ann, bob, time=TimeControl(60, 0), rated=False, now=T0, setup="6x6")
    game_id = started.game_id
    await live.play(game_id, "ann", 0, "b1-b4/d4", T0 + 1_000)
    await live.play(game_id, "bob", 1, "e6-e3/c3", T0 + 2_000)
    await live.play(game_id, "ann", 2, "e1-d1/d2", T0 + 50_000)  # Ann has 12 s left
    # Looked at before its time: the index holds Bob's deadline, 60 s away.
    assert await live.expire(game_id, T0 + 50_500) is None
    await live.play(game_id, "bob", 3, "a5-b5/c5", T0 + 51_000)  # Ann's 12 s come first
    flag = (await live.load(game_id)).clock.timeout_at()
    assert flag < T0 + 70_000  # long before Bob's
    assert await live.due(flag - 1) == []
    assert await live.due(flag) == [game_id]
