"""The ladder scheduler end to end: bot clients join the `fast` ladder and play the games it
starts, round after round, never two at once and never against themselves; two bots of one
owner meet only when nobody else is free; two server processes on one Redis schedule one at a
time, and when the one holding the lease stops (or dies, and the lease lapses) another takes
over."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from redis.asyncio import Redis

from clients.bot import BotPlayer
from server.app import Arena
from server.clock import now_ms
from server.db import Database
from server.games import GameStore, StoredGame
from server.glicko import Rating
from server.identity import create_account, create_bot_token
from server.ladder.pairing import FAR_GAP, PATIENCE
from server.ladder.scheduler import Scheduler
from server.ladder.store import LadderStore
from server.offers import DEFAULT_TIME_CONTROLS, Offered, TimeControls
from server.protocol import Clocks, GameStarted, GameStatus, Player, TimeControl
from server.worker import HOUSE_BOTS
from tests.server.endpoint import arena_serving
from tests.server.ladder.rated import set_rating

BOTS = ("Ada", "Bea", "Cy")
ROUND_SECONDS = 0.2  # short rounds: the tests wait for games, not for the clock
LEASE_MS = 10_000  # as a server has it: a loaded machine may stall the loop for seconds
DEADLINE_SECONDS = 240  # generous: a loaded two-core machine plays slowly


async def _until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait for `condition`, looked at often, failing after DEADLINE_SECONDS."""
    try:
        async with asyncio.timeout(DEADLINE_SECONDS):
            while not await condition():
                await asyncio.sleep(0.1)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


@contextlib.asynccontextmanager
async def _arena(redis_url: str) -> AsyncIterator[tuple[Arena, str]]:
    async with arena_serving(
        redis_url, ladder_round_seconds=ROUND_SECONDS, ladder_lease_ms=LEASE_MS
    ) as served:
        yield served


@contextlib.asynccontextmanager
async def _bots(database: Database, urls: list[str]) -> AsyncIterator[list[BotPlayer]]:
    """The three bots on the `fast` ladder, the i-th connected to `urls[i % len(urls)]`."""
    players = [
        BotPlayer(
            urls[i % len(urls)], await create_bot_token(database, name), "random", ladders=["fast"]
        )
        for i, name in enumerate(BOTS)
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(player.run(stop)) for player in players]
    try:
        yield players
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 30)


async def _ladder_games(redis: Redis, database: Database) -> list[StoredGame]:
    store = GameStore(redis, database=database)
    return [
        await store.load(game_id) for game_id in await LadderStore(redis, database).games("fast")
    ]


def _check_never_two_at_once(games: list[StoredGame]) -> None:
    """No game against oneself, and each bot's games one after another: each ended before (or
    as) the bot's next one was created."""
    by_bot: dict[str, list[StoredGame]] = {}
    for game in games:
        assert game.white.name != game.black.name, game.game_id
        for name in (game.white.name, game.black.name):
            by_bot.setdefault(name, []).append(game)
    for name, played in by_bot.items():
        played.sort(key=lambda game: game.created)
        for earlier, later in itertools.pairwise(played):
            at_once = f"{name} played {earlier.game_id} and {later.game_id} at once"
            assert earlier.ended is not None, at_once
            assert earlier.ended <= later.created, at_once


def _ended(games: list[StoredGame]) -> int:
    return sum(1 for game in games if game.status is GameStatus.ENDED)


@pytest.mark.asyncio
async def test_three_bots_play_round_after_round_one_game_at_a_time(
    redis: Redis, redis_url: str, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    async with _arena(redis_url) as (_, url), _bots(database, [url]):

        async def rounds_played() -> bool:
            games = await _ladder_games(redis, database)
            players = {name for game in games for name in (game.white.name, game.black.name)}
            return _ended(games) >= 4 and players == set(BOTS)

        await _until(rounds_played, "four ladder games to end, every bot in one")
        # Each game that ended with a winner moves its players' ladder ratings as it is handed
        # over, and the scheduler forgets it the round after: wait for that round.
        ended = {
            game.game_id
            for game in await _ladder_games(redis, database)
            if game.status is GameStatus.ENDED and game.winner
        }

        async def rated() -> bool:
            return not ended & set(await LadderStore(redis, database).unrated("fast"))

        await _until(rated, "the ended games to be rated")
    games = await _ladder_games(redis, database)
    _check_never_two_at_once(games)
    assert {name for game in games for name in (game.white.name, game.black.name)} == set(BOTS)
    assert all(not game.rated and game.setup == "6x6" for game in games)
    assert {(game.time.base, game.time.increment) for game in games} == {(10, 0)}
    ratings = await LadderStore(redis, database).ratings("fast")
    assert set(ratings) <= {bot.lower() for bot in BOTS}
    assert len(ratings) >= 2
    assert all(rating.deviation < 350 for rating in ratings.values())
    # Colours between two bots stay balanced (counted as the games start).
    history = await LadderStore(redis, database).history("fast")
    for a in BOTS:
        for b in BOTS:
            assert abs(history.whites(a, b) - history.whites(b, a)) <= 1


@pytest.mark.asyncio
async def test_two_servers_on_one_redis_schedule_one_at_a_time_and_the_other_takes_over(
    redis: Redis, redis_url: str, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    async with contextlib.AsyncExitStack() as first_stack:
        first, _ = await first_stack.enter_async_context(_arena(redis_url))

        async def first_holds() -> bool:
            return first.scheduler.holding

        await _until(first_holds, "the first server to take the lease")
        async with _arena(redis_url) as (second, second_url), _bots(database, [second_url]):

            async def played() -> bool:
                return _ended(await _ladder_games(redis, database)) >= 3

            await _until(played, "three ladder games to end")
            # The first server paired the second's bots all along.
            assert (first.scheduler.holding, second.scheduler.holding) == (True, False)
            before = len(await _ladder_games(redis, database))
            await first_stack.aclose()  # the holder stops, and gives the lease up

            async def taken_over() -> bool:
                return second.scheduler.holding

            await _until(taken_over, "the other server to take the lease")

            async def more_games() -> bool:
                return len(await _ladder_games(redis, database)) >= before + 2

            await _until(more_games, "the new holder to start games")
    _check_never_two_at_once(await _ladder_games(redis, database))


@pytest.mark.asyncio
async def test_two_servers_started_together_never_pair_a_bot_twice_at_once(
    redis: Redis, redis_url: str, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    async with (
        _arena(redis_url) as (first, first_url),
        _arena(redis_url) as (second, second_url),
        _bots(database, [first_url, second_url]),
    ):

        async def played() -> bool:
            return _ended(await _ladder_games(redis, database)) >= 4

        await _until(played, "four ladder games to end")
        assert first.scheduler.holding != second.scheduler.holding
    _check_never_two_at_once(await _ladder_games(redis, database))


@pytest.mark.asyncio
async def test_a_lease_whose_holder_died_lapses_and_another_takes_it(
    redis: Redis, database: Database
) -> None:
    def scheduler() -> Scheduler:
        offered = Offered.every_game(TimeControls.parse(DEFAULT_TIME_CONTROLS), HOUSE_BOTS)
        return Scheduler(
            LadderStore(redis, database),
            _NoGames(),
            GameStore(redis),
            offered,
            round_seconds=0.1,
            lease_ms=500,
        )

    dead, heir = scheduler(), scheduler()
    assert await dead.step() == []
    assert dead.holding

    async def taken() -> bool:
        await heir.step()
        return heir.holding

    await _until(taken, "the lease to lapse and be taken")  # `dead` never renews nor releases
    assert await LadderStore(redis, database).lease_holder() == heir.token
    assert not await LadderStore(redis, database).take_lease(dead.token, 500)


class _NoGames:
    """A game starter for a scheduler with no members to pair."""

    async def start_game(self, *args: object, **options: object) -> GameStarted:
        raise AssertionError("no game should start")


@pytest.mark.asyncio
async def test_two_bots_of_one_owner_meet_only_when_the_third_is_busy(
    redis: Redis, database: Database
) -> None:
    """Ada and Bea belong to ann, Cy to cid: each round pairs Cy with one of them; Ada and Bea
    play each other only once Cy has no free place left and both still have one."""
    for human in ("ann", "cid"):
        await create_account(database, human, f"{human}-password")
    for bot, owner in (("Ada", "ann"), ("Bea", "ann"), ("Cy", "cid")):
        await create_bot_token(database, bot, owner)
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    offered = Offered.every_game(TimeControls.parse(DEFAULT_TIME_CONTROLS), HOUSE_BOTS)
    starter = _Recorder()
    scheduler = Scheduler(store, starter, GameStore(redis), offered, rng=random.Random(18))
    ladder = await store.get("fast")
    for bot in BOTS:
        await store.join("fast", bot, 1, now_ms())
    for _ in range(20):  # the recorder starts no real game: every round finds all three free
        await scheduler.play_round(ladder)
    assert len(starter.pairs) == 20
    assert all("Cy" in pair for pair in starter.pairs), starter.pairs
    assert {"Ada", "Bea"} <= {name for pair in starter.pairs for name in pair}

    starter.pairs.clear()
    for bot in ("Ada", "Bea"):
        await store.join("fast", bot, 2, now_ms())
    await scheduler.play_round(ladder)
    assert len(starter.pairs) == 2, starter.pairs
    assert frozenset(("Ada", "Bea")) in starter.pairs
    assert any("Cy" in pair for pair in starter.pairs)


class _NoLuck(random.Random):
    """A generator whose draws never fall under a chance: a far pair meets only by waiting."""

    def random(self) -> float:
        return 0.999


@pytest.mark.asyncio
async def test_a_bot_waits_a_few_rounds_before_it_plays_one_far_from_its_rating(
    redis: Redis,
    database: Database,
) -> None:
    """Low and High are more than FAR_GAP apart: each round they are the only two free, and
    they meet once one of them has waited PATIENCE rounds; the count starts again after."""
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    for bot, rating in (("Low", 1500.0), ("High", 1501.0 + FAR_GAP)):
        await create_bot_token(database, bot)
        await set_rating(database, "fast", bot, Rating(rating, 60.0))
        await store.join("fast", bot, 1, now_ms())
    offered = Offered.every_game(TimeControls.parse(DEFAULT_TIME_CONTROLS), HOUSE_BOTS)
    starter = _Recorder()
    scheduler = Scheduler(store, starter, GameStore(redis), offered, rng=_NoLuck())
    ladder = await store.get("fast")
    rounds = []
    for round_number in range(2 * PATIENCE + 2):
        before = len(starter.pairs)
        await scheduler.play_round(ladder)  # no worker is ready: no anchors
        if len(starter.pairs) > before:
            rounds.append(round_number)
    assert rounds == [PATIENCE, 2 * PATIENCE + 1]


class _Recorder:
    """A game starter that only records who it was asked to pair."""

    def __init__(self) -> None:
        self.pairs: list[frozenset[str]] = []

    async def start_game(
        self, first: Player, second: Player, *args: object, time: TimeControl, **options: object
    ) -> GameStarted:
        self.pairs.append(frozenset((first.name, second.name)))
        clocks = Clocks(time.base * 1000, time.base * 1000)
        game_id = f"g{len(self.pairs)}"
        return GameStarted(game_id, 1, first, second, "3 w", time, False, clocks)
