"""Anchors on the server ladders: the house bots of fixed strength play the ladder's bots through
a house-bot worker, their ratings never move while the bots' do, the standings hold them at
their ratings, no anchor plays more games at once than its limit, an anchor's game starts only
into a free worker slot (people's games against house bots hold slots too), with no worker
ready no anchor game starts, and a game a house bot lost on time is not rated."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from clients.bot import BotPlayer
from server.app import Arena
from server.clock import now_ms
from server.db import Database, finished_game
from server.games import GameStore, StoredGame
from server.glicko import Rating
from server.identity import create_bot_token
from server.ladder.anchors import ANCHORS
from server.ladder.rating import anchor_rating
from server.ladder.scheduler import Scheduler
from server.ladder.store import LadderStore
from server.protocol import (
    ColourPreference,
    GameStatus,
    Player,
    PlayerKind,
    Termination,
    TimeControl,
)
from server.slots import SLOTS
from server.worker import WORKERS
from tests.server.endpoint import arena_serving, house_worker, standings_rows, until
from tests.server.ladder.rated import rated_game

ROUND_SECONDS = 0.2  # short rounds: the tests wait for games, not for the clock
LEASE_MS = 10_000
FAST = {anchor.bot: anchor for anchor in ANCHORS["amazons"]["fast"]}


async def _ladder_games(redis: Redis, database: Database) -> list[StoredGame]:
    store = GameStore(redis, database=database)
    return [
        await store.load(game_id) for game_id in await LadderStore(redis, database).games("fast")
    ]


@contextlib.asynccontextmanager
async def _bot(database: Database, url: str, name: str) -> AsyncIterator[None]:
    player = BotPlayer(url, await create_bot_token(database, name), "random", ladders=["fast"])
    stop = asyncio.Event()
    task = asyncio.create_task(player.run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


def _at_most_limit_at_once(games: list[StoredGame]) -> None:
    """Each anchor's games, by the times they were created and ended, never more at once than
    its limit."""
    for name, anchor in FAST.items():
        spans = [
            (game.created, game.ended if game.ended is not None else sys.maxsize)
            for game in games
            if name in (game.white.name, game.black.name)
        ]
        for start, _ in spans:
            at_once = sum(1 for other_start, end in spans if other_start <= start < end)
            assert at_once <= anchor.games, f"{name} played {at_once} games at once"


@pytest.mark.asyncio
async def test_a_bot_alone_on_the_ladder_plays_the_anchors_whose_ratings_stay_fixed(
    redis: Redis, redis_url: str, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    async with (
        house_worker(redis, "anchors"),
        arena_serving(redis_url, ladder_round_seconds=ROUND_SECONDS, ladder_lease_ms=LEASE_MS) as (
            _,
            url,
        ),
        _bot(database, url, "Ada"),
    ):

        async def played_and_rated() -> bool:
            games = await _ladder_games(redis, database)
            ended = {game.game_id for game in games if game.status is GameStatus.ENDED}
            unrated = set(await LadderStore(redis, database).unrated("fast"))
            return len(ended) >= 3 and not ended & unrated

        await until(played_and_rated, "three games against the anchors, ended and rated")
    games = await _ladder_games(redis, database)
    for game in games:
        anchor, bot = (
            (game.white, game.black) if game.white.name in FAST else (game.black, game.white)
        )
        assert (anchor.kind, bot.name) == (PlayerKind.HOUSE, "Ada"), game.game_id
        assert FAST[anchor.name].spec in game.house, game.game_id
    # Played to the end: a side won, on the board or on time, not aborted.
    assert all(game.winner is not None for game in games if game.status is GameStatus.ENDED)
    _at_most_limit_at_once(games)
    ratings = await LadderStore(redis, database).ratings("fast")
    played = {name for game in games for name in (game.white.name, game.black.name)}
    assert played - {"Ada"} <= set(FAST)
    for name in played - {"Ada"}:
        if name in ratings:  # rated once one of its games ended
            assert ratings[name] == anchor_rating(FAST[name].rating)
    assert ratings["ada"] != Rating()
    assert ratings["ada"].deviation < 350
    rows = await standings_rows(redis_url, "fast")
    anchors = set(ratings) - {"ada"}
    assert anchors
    assert set(rows) == anchors | {"Ada"}
    for name in anchors:
        assert rows[name][2:4] == [f"{FAST[name].rating:.0f}", "anchor"]
    assert rows["Ada"][3].startswith("±")


def _scheduler(redis: Redis, database: Database) -> Scheduler:
    arena = Arena(
        redis, database=database
    )  # not started: it only starts the games the scheduler pairs
    return Scheduler(arena.ladders, arena, arena.store, arena.offered, round_seconds=0.2)


async def _worker_ready(redis: Redis, slots: int | None = None) -> None:
    """A worker as the servers see one (its heartbeat, and the `slots` it advertises if any),
    not taking requests: games against the anchors start and stand still."""
    await redis.zadd(WORKERS, {"idle": now_ms() + 600_000})
    if slots is not None:
        await redis.hset(SLOTS, "idle", slots)


@pytest.mark.asyncio
async def test_no_anchor_plays_more_games_at_once_than_its_limit(
    redis: Redis, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    await _worker_ready(redis, slots=2 * len(FAST))
    await store.join("fast", "Ada", 2 * len(FAST), now_ms())
    scheduler = _scheduler(redis, database)
    first = await scheduler.step()
    # Ada has a place for every anchor's game and more; each anchor plays one at once.
    assert len(first) == len(FAST)
    for _ in range(3):
        assert await scheduler.step() == []
    games = await _ladder_games(redis, database)
    anchors = sorted(
        game.white.name if game.black.name == "Ada" else game.black.name for game in games
    )
    assert anchors == sorted(FAST)
    for game in games:
        assert game.status is GameStatus.PLAYING
        anchor = FAST[game.white.name if game.black.name == "Ada" else game.black.name]
        side = 0 if game.white.name == anchor.bot else 1
        assert game.house[side] == anchor.spec
        assert game.house[1 - side] is None


@pytest.mark.asyncio
async def test_with_no_worker_ready_no_anchor_game_starts(redis: Redis, database: Database) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    await store.join("fast", "Ada", 3, now_ms())
    scheduler = _scheduler(redis, database)
    for _ in range(3):
        assert await scheduler.step() == []
    await store.join("fast", "Bea", 1, now_ms())
    started = await scheduler.step()
    assert [{game.white.name, game.black.name} for game in started] == [{"Ada", "Bea"}]
    # Ada has places left and only the anchors to fill them: a worker whose heartbeat has
    # lapsed is not ready, so they stay empty.
    await redis.zadd(WORKERS, {"gone": now_ms() - 1})
    assert await scheduler.step() == []


@pytest.mark.asyncio
async def test_anchors_without_bots_play_nobody(redis: Redis, database: Database) -> None:
    """Two anchors' game would move no rating: with no member on the ladder, none starts."""
    await LadderStore(redis, database).ensure_defaults()
    await _worker_ready(redis)
    scheduler = _scheduler(redis, database)
    for _ in range(3):
        assert await scheduler.step() == []
    assert await _ladder_games(redis, database) == []


@pytest.mark.asyncio
async def test_the_standings_show_the_anchors_online_while_a_worker_is_ready(
    redis: Redis,
    database: Database,
) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    for number, anchor in enumerate(("random", "greedy")):
        await rated_game(database, "fast", f"g{number}", "Ada", anchor, True, ended=number)
    await store.join("fast", "Ada", 1, now_ms())
    table = await store.table("fast", now_ms())
    assert {row.name for row in table.rows} == {"Ada", "random", "greedy"}
    assert table.online == {"Ada"}  # no worker: the anchors would start no game
    await redis.zadd(WORKERS, {"gone": now_ms() - 1})
    assert (await store.table("fast", now_ms())).online == {"Ada"}
    await _worker_ready(redis)
    assert (await store.table("fast", now_ms())).online == {"Ada", "random", "greedy"}


@pytest.mark.asyncio
async def test_an_anchor_game_starts_only_into_a_free_worker_slot(
    redis: Redis, database: Database
) -> None:
    """One worker of one slot: one anchor game at a time over every ladder, and none while a
    person's game against a house bot holds the slot."""
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    await _worker_ready(redis)  # a worker that advertises no slots carries one game
    await store.join("fast", "Ada", 4, now_ms())
    await store.join("main", "Bea", 4, now_ms())
    scheduler = _scheduler(redis, database)
    started = await scheduler.step()
    assert len(started) == 1
    for _ in range(3):
        assert await scheduler.step() == []
    arena = Arena(redis)
    (game,) = started
    bot = game.black if game.white.kind is PlayerKind.HOUSE else game.white
    await arena.store.resign(game.game_id, bot.name, now_ms())
    # The slot is free again, and a person's game against a house bot takes it.
    await arena.start_game(
        Player("Cid", PlayerKind.HUMAN),
        Player("random", PlayerKind.HOUSE),
        ColourPreference.WHITE,
        game="amazons",
        setup="6x6",
        time=TimeControl(60, 0),
        rated=False,
        house_spec="random@10",
    )
    for _ in range(3):
        assert await scheduler.step() == []
    await redis.hset(SLOTS, "idle", 3)  # two free slots, shared by both ladders
    assert len(await scheduler.step()) == 2


@pytest.mark.asyncio
async def test_a_game_an_anchor_lost_on_time_is_not_rated(redis: Redis, database: Database) -> None:
    """The anchor's clock ran out (its moves waited on a worker that never came): the game is
    handed over with its ladder, and rates nobody."""
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    await _worker_ready(redis)
    await store.join("fast", "Ada", 1, now_ms())
    scheduler = _scheduler(redis, database)
    (started,) = await scheduler.step()
    games = GameStore(redis)
    game = await games.load(started.game_id)
    anchor = game.white if game.white.kind is PlayerKind.HOUSE else game.black
    # Both first moves are off the clock; then moves until the anchor's clock runs.
    while game.ply < 2 or game.player(game.to_move).name != anchor.name:
        state = game.state()
        move = state.format_move(next(iter(state.legal_moves)))
        await games.play(game.game_id, game.player(game.to_move).name, game.ply, move, now_ms())
        game = await games.load(game.game_id)
    # The store of a server, which hands the game over as it ends it.
    ended = await GameStore(redis, database=database).expire(game.game_id, now_ms() + 600_000)
    assert ended is not None
    assert ended.termination is Termination.TIME_FORFEIT
    recorded = await finished_game(database, game.game_id)
    assert recorded is not None
    assert recorded.ladder == "fast"
    await scheduler.step()  # forgets the games handed over (and starts Ada's next)
    assert await store.results("fast") == []
    assert game.game_id not in await store.unrated("fast")
    assert await store.ratings("fast") == {}
