"""What an ended game leaves in Redis, on SQLite and PostgreSQL: once handed over it stays for
the ended window and then only the history store has it, where whatever reads a game by id
finds it; its attendance goes at its end, and nothing it had is left without an expiry."""

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.db.database import Database
from server.game_index import GameIndex, bucket_of, spectators_key
from server.games import GameStore, open_redis
from server.protocol import (
    Colour,
    ErrorCode,
    GameStatus,
    Player,
    PlayerKind,
    ProtocolError,
    TimeControl,
)
from server.storage import ARCHIVE, events_key, game_key, online_key

T0 = 1_790_000_000_000
ANN, BOB = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
# Long enough that a test process stalled by a loaded machine between a game's hand-over and
# the look at its expiry still finds the game there (at 300 ms, runs at a load of 15 did not).
WINDOW_MS = 2000
GONE_SECONDS = 10  # for Redis to have deleted keys past their expiry


@pytest_asyncio.fixture
async def store(redis: Redis, redis_url: str, db: Database) -> AsyncIterator[GameStore]:
    games = GameStore(open_redis(redis_url), database=db, ended_window_ms=WINDOW_MS)
    try:
        yield games
    finally:
        await games.redis.aclose()


async def _played(store: GameStore, *, end: bool = True) -> str:
    """A casual game with two moves, which Ann resigns when `end`."""
    started = await store.create(
        ANN, BOB, time=TimeControl(60, 2), rated=False, now=T0, setup="6x6"
    )
    await store.play(started.game_id, "ann", 0, "b1-b4/d4", T0 + 1_000)
    await store.play(started.game_id, "bob", 1, "e6-e3/c3", T0 + 2_000)
    if end:
        await store.resign(started.game_id, "ann", T0 + 3_000)
    return started.game_id


async def _gone(redis: Redis, *keys: str) -> None:
    deadline = time.monotonic() + GONE_SECONDS
    while await redis.exists(*keys):
        assert time.monotonic() < deadline, f"{keys} still in Redis"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_game_leaves_redis_a_window_after_its_hand_over_and_is_read_from_the_history(
    store: GameStore, redis: Redis
) -> None:
    game_id = await _played(store)
    assert await GameIndex(redis).waiting_handover() == []
    assert not await redis.exists(ARCHIVE)
    for key in (game_key(game_id), events_key(game_id)):
        assert 0 < await redis.pttl(key) <= WINDOW_MS
    in_window = await store.load(game_id)

    await _gone(redis, game_key(game_id), events_key(game_id))
    assert await store.events_since(game_id, 0) == []
    read = await GameStore(redis, database=store.database).load(game_id)
    assert read.record() == in_window.record()
    assert (read.status, read.winner, read.termination, read.to_move) == (
        GameStatus.ENDED,
        Colour.BLACK,
        in_window.termination,
        Colour.WHITE,
    )
    assert read.state() == in_window.state()
    assert read.version == in_window.version == 4  # started, two moves, ended
    # The clocks at the resignation, a second after Bob's move: Ann's ran on.
    assert read.final_clocks() == in_window.final_clocks() != in_window.clocks_after[-1]
    snapshot, shown = read.snapshot(T0 + 9_000), in_window.snapshot(T0 + 9_000)
    assert snapshot.moves == shown.moves
    assert (snapshot.white, snapshot.black, snapshot.time) == (shown.white, shown.black, shown.time)

    # A store without a database (a house-bot worker's) has no game of that id any more.
    with pytest.raises(ProtocolError) as missing:
        await GameStore(redis).load(game_id)
    assert missing.value.code is ErrorCode.NOT_FOUND
    # Nor has the history a game that was never played.
    with pytest.raises(ProtocolError) as unknown:
        await store.load("nosuchgame")
    assert unknown.value.code is ErrorCode.NOT_FOUND


@pytest.mark.asyncio
async def test_a_game_s_attendance_goes_at_its_end_and_is_not_renewed(
    store: GameStore, redis: Redis
) -> None:
    game_id = await _played(store, end=False)
    await store.attend(game_id, Colour.WHITE, "c1", present=True, now=T0 + 2_500)
    await store.keep_attending([(game_id, Colour.WHITE, "c1")], T0 + 2_600)
    assert await redis.hkeys(online_key(game_id)) == [b"white:c1"]

    await store.resign(game_id, "ann", T0 + 3_000)
    assert not await redis.exists(online_key(game_id))
    # The connection's process renews what its connections attend: not an ended game's.
    await store.keep_attending([(game_id, Colour.WHITE, "c1")], T0 + 3_100)
    assert not await redis.exists(online_key(game_id))
    # Nor by a connection that comes as it ends (the end committed between its read and write).
    await store.attend(game_id, Colour.BLACK, "c2", present=True, now=T0 + 3_200)
    assert not await redis.exists(online_key(game_id))


@pytest.mark.asyncio
async def test_a_game_a_worker_ended_expires_once_a_sweep_hands_it_over(
    store: GameStore, redis: Redis, redis_url: str
) -> None:
    worker = GameStore(open_redis(redis_url))  # a house-bot worker's: Redis only
    try:
        game_id = await _played(worker)
    finally:
        await worker.redis.aclose()
    assert await redis.pttl(game_key(game_id)) == -1  # kept until it is in the history

    assert await store.hand_over_leftovers() == 1
    assert 0 < await redis.pttl(game_key(game_id)) <= WINDOW_MS
    await _gone(redis, game_key(game_id), events_key(game_id))
    assert (await store.load(game_id)).moves == ("b1-b4/d4", "e6-e3/c3")


@pytest.mark.asyncio
async def test_the_spectators_of_a_game_watched_to_its_end_leave_no_count_behind(
    store: GameStore, redis: Redis
) -> None:
    game_id = await _played(store, end=False)
    await store.count_spectator(game_id, +1)
    assert await redis.hget(spectators_key(bucket_of(game_id)), game_id) == b"1"
    await store.resign(game_id, "ann", T0 + 3_000)  # its count goes with the end
    await store.count_spectator(game_id, -1)  # and the spectator leaves after it
    assert await redis.hlen(spectators_key(bucket_of(game_id))) == 0
