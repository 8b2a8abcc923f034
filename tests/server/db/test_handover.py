"""A game's end handed over from Redis to the history store, on SQLite and PostgreSQL: the
process that ends a game marks it after its commit, writes it to the database and
unmarks it, and a sweep hands over what a process killed at any step in between left; each
game is recorded and rated once."""

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from sqlalchemy import func, select

from server.db.database import Database
from server.db.finished_games import FinishedGame, Recorded, finished_game
from server.db.schema import GAME_POOL, RATING_HISTORY, RATINGS
from server.game_index import GameIndex
from server.games import GameStore, open_redis
from server.glicko import Rating, rate_game
from server.protocol import Player, PlayerKind, TimeControl

T0 = 1_790_000_000_000
ANN, BOB = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
KILLED = 17  # the exit status of a process killed at a step

# A process that plays a rated game to its end (Ann resigns) and is killed (os._exit: nothing
# after it runs, as for SIGKILL) at the step named by its third argument.
KILLED_AT = f"""
import asyncio, os, sys
from pathlib import Path

import server.db
import server.db.finished_games
import server.games
from server.db import Database
from server.games import GameStore, open_redis
from server.protocol import Player, PlayerKind, TimeControl

redis_url, database_url, step = sys.argv[1:4]


def die(*args, **kwargs):
    os._exit({KILLED})


async def main():
    database = await Database.open(database_url, Path("unused"))
    store = GameStore(open_redis(redis_url), database=database)
    if step == "before_record":
        server.db.record_finished_game = die
    elif step == "in_record":  # the game's row and moves written, its transaction open
        server.db.finished_games._rate = die
    elif step == "before_bump":  # recorded, its players' ratings not yet counted as changed
        server.games.bump_versions = die
    elif step == "before_unmark":  # recorded, not yet let go from Redis
        store.storage.let_go = die
    ann, bob = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    started = await store.create(
        ann, bob, time=TimeControl(60, 2), rated=True, now={T0}, setup="6x6"
    )
    print(started.game_id, flush=True)
    await store.play(started.game_id, "ann", 0, "b1-b4/d4", {T0 + 1_000})
    await store.play(started.game_id, "bob", 1, "e6-e3/c3", {T0 + 2_000})
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


async def _rating(db: Database, player: str) -> Rating:
    async with db.reading() as connection:
        row = (
            await connection.execute(
                select(RATINGS).where(
                    RATINGS.c.player == player,
                    RATINGS.c.game == "amazons",
                    RATINGS.c.ladder == GAME_POOL,
                )
            )
        ).one()
    return Rating(row.rating, row.deviation, row.volatility)


async def _history_points(db: Database, game_id: str) -> int:
    async with db.reading() as connection:
        query = select(func.count()).where(RATING_HISTORY.c.game_id == game_id)
        return int((await connection.execute(query)).scalar_one())


async def _rated_once(db: Database, game_id: str) -> None:
    """The game is in the history store, and moved each player's rating once (Black won)."""
    found = await finished_game(db, game_id)
    assert found is not None
    assert (found.record.winner, found.record.termination) == ("black", "resignation")
    assert found.record.moves == ["b1-b4/d4", "e6-e3/c3"]
    white, black = rate_game(Rating(), Rating(), white_won=False)
    assert await _rating(db, "ann") == white
    assert await _rating(db, "bob") == black
    assert await _history_points(db, game_id) == 2


async def _end_game(store: GameStore) -> str:
    started = await store.create(ANN, BOB, time=TimeControl(60, 2), rated=True, now=T0, setup="6x6")
    await store.play(started.game_id, "ann", 0, "b1-b4/d4", T0 + 1_000)
    await store.play(started.game_id, "bob", 1, "e6-e3/c3", T0 + 2_000)
    await store.resign(started.game_id, "ann", T0 + 3_000)
    return started.game_id


@pytest.mark.asyncio
async def test_a_game_that_ends_is_handed_over_at_once_and_unmarked(
    store: GameStore, db: Database
) -> None:
    game_id = await _end_game(store)

    await _rated_once(db, game_id)
    assert await store.index.waiting_handover() == []
    assert await store.hand_over_leftovers() == 0


@pytest.mark.asyncio
@pytest.mark.parametrize("step", ["before_record", "in_record", "before_bump", "before_unmark"])
async def test_a_process_killed_between_a_games_end_and_its_unmark_loses_nothing(
    step: str, redis: Redis, redis_url: str, database_url: str, db: Database
) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        KILLED_AT,
        redis_url,
        database_url,
        step,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])},
    )
    out, _ = await child.communicate()
    assert child.returncode == KILLED, out
    game_id = out.decode().splitlines()[0]
    assert await GameIndex(redis).waiting_handover() == [game_id]
    recorded_before = await finished_game(db, game_id)
    assert (recorded_before is not None) == (step in ("before_bump", "before_unmark"))

    # The next process to start sweeps the set; a second sweep (another process) finds it empty.
    restarted = GameStore(open_redis(redis_url), database=db)
    try:
        assert await restarted.hand_over_leftovers() == 1
        assert await restarted.hand_over_leftovers() == 0
    finally:
        await restarted.redis.aclose()

    await _rated_once(db, game_id)
    assert await GameIndex(redis).waiting_handover() == []
    # Each hand-over counts the change to the players' ratings, the one that found the game
    # recorded too: every process reads the new ratings (server/ratings.py).
    counted = 2 if step == "before_unmark" else 1
    assert (
        await redis.mget("rating-version:ann", "rating-version:bob") == [str(counted).encode()] * 2
    )


@pytest.mark.asyncio
async def test_a_hand_over_that_fails_leaves_the_game_to_the_sweep_and_the_end_stands(
    store: GameStore, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def unreachable(*args: object) -> None:
        raise OSError("the database went away")

    monkeypatch.setattr("server.db.record_finished_game", unreachable)
    game_id = await _end_game(store)  # the resignation is not refused
    assert await finished_game(db, game_id) is None
    monkeypatch.undo()

    assert await store.hand_over_leftovers() == 1
    await _rated_once(db, game_id)


@pytest.mark.asyncio
async def test_a_game_a_store_without_a_database_ends_is_handed_over_by_a_sweep(
    store: GameStore, redis_url: str, db: Database
) -> None:
    worker = GameStore(open_redis(redis_url))  # a house-bot worker's: Redis only
    try:
        game_id = await _end_game(worker)
    finally:
        await worker.redis.aclose()
    assert await finished_game(db, game_id) is None

    assert await store.hand_over_leftovers() == 1
    await _rated_once(db, game_id)


@pytest.mark.asyncio
async def test_an_aborted_game_keeps_its_cause_and_side_in_the_history(
    store: GameStore, db: Database
) -> None:
    started = await store.create(ANN, BOB, time=TimeControl(60, 2), rated=True, now=T0, setup="6x6")
    await store.abort(started.game_id, "bob", T0 + 500)

    found = await finished_game(db, started.game_id)
    assert found is not None
    assert (found.record.termination, found.record.winner) == ("aborted", None)
    assert (found.abort_cause, found.abort_side) == ("called_off", "black")
    assert found.changes is None


@pytest.mark.asyncio
async def test_a_sweep_leaves_alone_a_game_its_process_is_handing_over(
    store: GameStore, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    import server.db

    record = server.db.record_finished_game
    swept: list[int] = []

    async def slow_record(database: Database, game: FinishedGame) -> Recorded:
        swept.append(await store.hand_over_leftovers())  # the sweep, while the record is written
        return await record(database, game)

    monkeypatch.setattr("server.db.record_finished_game", slow_record)
    game_id = await _end_game(store)

    assert swept == [0]
    await _rated_once(db, game_id)


@pytest.mark.asyncio
async def test_a_game_that_cannot_be_handed_over_holds_up_no_other(
    store: GameStore, redis_url: str, db: Database
) -> None:
    await store.redis.hset("{g:broken}:game", mapping={"doc": b"not a game", "version": 3})
    await store.index.to_hand_over(["broken"])
    worker = GameStore(open_redis(redis_url))
    try:
        game_id = await _end_game(worker)
    finally:
        await worker.redis.aclose()

    assert await store.hand_over_leftovers() == 1
    await _rated_once(db, game_id)
    assert await store.index.waiting_handover() == ["broken"]  # kept, for an operator to see
