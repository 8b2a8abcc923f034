"""A ladder game's end handed over to the history store, on SQLite and PostgreSQL: the process
that ended it records it with its ladder and rates it there in the same transaction; one killed
at any step between the end and the hand-over loses nothing, and the sweep of the next process
to start rates it once; the scheduler then forgets it."""

import asyncio
import os
import random
import sys
from pathlib import Path

import pytest
from redis.asyncio import Redis
from sqlalchemy import func, select

from server.db.database import Database
from server.db.finished_games import finished_game
from server.db.ladders import create_ladder, ladder_ratings, ladder_results, rating_history
from server.db.schema import RATING_HISTORY
from server.game_index import GameIndex
from server.games import GameStore, open_redis
from server.glicko import Rating
from server.ladder.definition import DEFAULT_LADDERS
from server.ladder.rating import rate_ladder_game
from server.ladder.results import Result
from server.ladder.scheduler import GameStarter, Scheduler
from server.ladder.store import LADDER_OF_GAME, LadderStore
from server.offers import DEFAULT_TIME_CONTROLS, Offered, TimeControls
from server.worker import HOUSE_BOTS

T0 = 1_790_000_000_000
KILLED = 17  # the exit status of a process killed at a step
FAST = next(ladder for ladder in DEFAULT_LADDERS if ladder.name == "fast")

# A process that starts a game of the `fast` ladder as its scheduler does, plays it to its end
# (Ada resigns) and is killed (os._exit: nothing after it runs, as for SIGKILL) at the step
# named by its third argument; `none` lets it hand the game over.
KILLED_AT = f"""
import asyncio, os, sys
from pathlib import Path

import server.db
import server.db.finished_games
from server.db import Database
from server.games import GameStore, open_redis
from server.ladder.pairing import Pairing
from server.ladder.store import LadderStore
from server.protocol import Player, PlayerKind, TimeControl

redis_url, database_url, step = sys.argv[1:4]


def die(*args, **kwargs):
    os._exit({KILLED})


async def main():
    database = await Database.open(database_url, Path("unused"))
    store = GameStore(open_redis(redis_url), database=database)
    recorded = server.db.record_finished_game

    async def recorded_then_die(*args, **kwargs):
        await recorded(*args, **kwargs)
        die()

    if step == "before_record":
        server.db.record_finished_game = die
    elif step == "in_rating":  # the game's row and moves written, its transaction open
        server.db.finished_games.rate_ladder_game_in = die
    elif step == "after_record":
        server.db.record_finished_game = recorded_then_die
    ada, bea = Player("Ada", PlayerKind.BOT), Player("Bea", PlayerKind.BOT)
    started = await store.create(
        ada, bea, time=TimeControl(10, 0), rated=False, now={T0}, setup="6x6"
    )
    await LadderStore(store.redis).started("fast", Pairing("Ada", "Bea"), started.game_id)
    print(started.game_id, flush=True)
    await store.play(started.game_id, "Ada", 0, "b1-b4/d4", {T0 + 1_000})
    await store.play(started.game_id, "Bea", 1, "e6-e3/c3", {T0 + 2_000})
    await store.resign(started.game_id, "Ada", {T0 + 3_000})


asyncio.run(main())
"""


async def _history_points(db: Database, game_id: str) -> int:
    async with db.reading() as connection:
        query = select(func.count()).where(RATING_HISTORY.c.game_id == game_id)
        return int((await connection.execute(query)).scalar_one())


async def _rated_once(db: Database, game_id: str) -> None:
    """The game is in the history store with its ladder, and moved each bot's ladder rating
    once (Black won)."""
    found = await finished_game(db, game_id)
    assert found is not None
    assert (found.ladder, found.record.winner, found.record.rated) == ("fast", "black", False)
    ada, bea = rate_ladder_game(Rating(), Rating(), white_won=False)
    assert await ladder_ratings(db, "fast") == {"ada": ada, "bea": bea}
    assert await ladder_results(db, "fast") == [Result("Ada", "Bea", False, game_id, T0 + 3_000)]
    assert [point.game_id for point in await rating_history(db, "fast", "ada")] == [game_id]
    assert await _history_points(db, game_id) == 2


async def _killed_at(step: str, redis_url: str, database_url: str) -> str:
    """Run the process that ends a ladder game, killed at `step`; the game's id."""
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
    assert child.returncode == (0 if step == "none" else KILLED), out
    return out.decode().splitlines()[0]


def _scheduler(redis: Redis, db: Database) -> Scheduler:
    offered = Offered.every_game(TimeControls.parse(DEFAULT_TIME_CONTROLS), HOUSE_BOTS)
    starter: GameStarter = None  # type: ignore[assignment]  # forgetting starts no game
    ladders = LadderStore(redis, db)
    return Scheduler(ladders, starter, GameStore(redis, database=db), offered, rng=random.Random())


@pytest.mark.asyncio
async def test_a_ladder_game_is_rated_as_it_is_handed_over_and_then_forgotten(
    redis: Redis, redis_url: str, database_url: str, db: Database
) -> None:
    await create_ladder(db, FAST, T0)
    game_id = await _killed_at("none", redis_url, database_url)

    await _rated_once(db, game_id)
    assert await GameIndex(redis).waiting_handover() == []
    # Redis knows it as the ladder's until the scheduler's next round sees it handed over.
    assert await redis.hget(LADDER_OF_GAME, game_id) == b"fast"
    assert await _scheduler(redis, db).forget_ended(FAST) == {}
    assert await LadderStore(redis, db).unrated("fast") == []
    assert await redis.hget(LADDER_OF_GAME, game_id) is None
    assert await LadderStore(redis, db).games("fast") == [game_id]


@pytest.mark.asyncio
@pytest.mark.parametrize("step", ["before_record", "in_rating", "after_record"])
async def test_a_process_killed_between_a_ladder_games_end_and_its_hand_over_rates_it_once(
    step: str, redis: Redis, redis_url: str, database_url: str, db: Database
) -> None:
    await create_ladder(db, FAST, T0)
    game_id = await _killed_at(step, redis_url, database_url)
    assert await GameIndex(redis).waiting_handover() == [game_id]
    recorded_before = await finished_game(db, game_id)
    assert (recorded_before is not None) == (step == "after_record")
    # The scheduler does not forget a game still to be handed over.
    assert await _scheduler(redis, db).forget_ended(FAST) == {}
    assert await LadderStore(redis, db).unrated("fast") == [game_id]

    # The next process to start sweeps the set; a second sweep (another process) finds it empty.
    restarted = GameStore(open_redis(redis_url), database=db)
    try:
        assert await restarted.hand_over_leftovers() == 1
        assert await restarted.hand_over_leftovers() == 0
    finally:
        await restarted.redis.aclose()

    await _rated_once(db, game_id)
    await _scheduler(redis, db).forget_ended(FAST)
    assert await LadderStore(redis, db).unrated("fast") == []
