"""Anchors on the server ladders: the house bots of fixed strength play the ladder's bots through
a house-bot worker, their ratings never move while the bots' do, the standings hold them at
their ratings, no anchor plays more games at once than its limit, and with no worker ready no
anchor game starts."""

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
from server.games import GameStore, StoredGame
from server.glicko import Rating
from server.identity import create_bot_token
from server.ladder.anchors import ANCHORS
from server.ladder.pairing import Pairing
from server.ladder.rating import anchor_rating
from server.ladder.scheduler import Scheduler
from server.ladder.store import LadderStore
from server.protocol import GameStatus, PlayerKind
from server.worker import WORKERS
from tests.server.endpoint import arena_serving, house_worker, standings_rows, until

ROUND_SECONDS = 0.2  # short rounds: the tests wait for games, not for the clock
LEASE_MS = 10_000
FAST = {anchor.bot: anchor for anchor in ANCHORS["amazons"]["fast"]}


async def _ladder_games(redis: Redis) -> list[StoredGame]:
    store = GameStore(redis)
    return [await store.load(game_id) for game_id in await LadderStore(redis).games("fast")]


@contextlib.asynccontextmanager
async def _bot(redis: Redis, url: str, name: str) -> AsyncIterator[None]:
    player = BotPlayer(url, await create_bot_token(redis, name), "random", ladders=["fast"])
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
    redis: Redis, redis_url: str
) -> None:
    await LadderStore(redis).ensure_defaults()
    async with (
        house_worker(redis, "anchors"),
        arena_serving(redis_url, ladder_round_seconds=ROUND_SECONDS, ladder_lease_ms=LEASE_MS) as (
            _,
            url,
        ),
        _bot(redis, url, "Ada"),
    ):

        async def played_and_rated() -> bool:
            games = await _ladder_games(redis)
            ended = {game.game_id for game in games if game.status is GameStatus.ENDED}
            unrated = set(await LadderStore(redis).unrated("fast"))
            return len(ended) >= 3 and not ended & unrated

        await until(played_and_rated, "three games against the anchors, ended and rated")
    games = await _ladder_games(redis)
    for game in games:
        anchor, bot = (
            (game.white, game.black) if game.white.name in FAST else (game.black, game.white)
        )
        assert (anchor.kind, bot.name) == (PlayerKind.HOUSE, "Ada"), game.game_id
        assert FAST[anchor.name].spec in game.house, game.game_id
    # Played to the end: a side won, on the board or on time, not aborted.
    assert all(game.winner is not None for game in games if game.status is GameStatus.ENDED)
    _at_most_limit_at_once(games)
    ratings = await LadderStore(redis).ratings("fast")
    played = {name for game in games for name in (game.white.name, game.black.name)}
    assert played - {"Ada"} <= set(FAST)
    for name in played - {"Ada"}:
        if name in ratings:  # rated once one of its games ended
            assert ratings[name] == anchor_rating(FAST[name].rating)
    assert ratings["Ada"] != Rating()
    assert ratings["Ada"].deviation < 350
    rows = await standings_rows(redis_url, "fast")
    anchors = set(ratings) - {"Ada"}
    assert anchors
    assert set(rows) == anchors | {"Ada"}
    for name in anchors:
        assert rows[name][2:4] == [f"{FAST[name].rating:.0f}", "anchor"]
    assert rows["Ada"][3].startswith("±")


def _scheduler(redis: Redis) -> Scheduler:
    arena = Arena(redis)  # not started: it only starts the games the scheduler pairs
    return Scheduler(arena.ladders, arena, arena.store, arena.offered, round_seconds=0.2)


async def _worker_ready(redis: Redis) -> None:
    """A worker as the servers see one (its heartbeat), not taking requests: games against the
    anchors start and stand still."""
    await redis.zadd(WORKERS, {"idle": now_ms() + 600_000})


@pytest.mark.asyncio
async def test_no_anchor_plays_more_games_at_once_than_its_limit(redis: Redis) -> None:
    store = LadderStore(redis)
    await store.ensure_defaults()
    await _worker_ready(redis)
    await store.join("fast", "Ada", 2 * len(FAST), now_ms())
    scheduler = _scheduler(redis)
    first = await scheduler.step()
    # Ada has a place for every anchor's game and more; each anchor plays one at once.
    assert len(first) == len(FAST)
    for _ in range(3):
        assert await scheduler.step() == []
    games = await _ladder_games(redis)
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
async def test_with_no_worker_ready_no_anchor_game_starts(redis: Redis) -> None:
    store = LadderStore(redis)
    await store.ensure_defaults()
    await store.join("fast", "Ada", 3, now_ms())
    scheduler = _scheduler(redis)
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
async def test_anchors_without_bots_play_nobody(redis: Redis) -> None:
    """Two anchors' game would move no rating: with no member on the ladder, none starts."""
    await LadderStore(redis).ensure_defaults()
    await _worker_ready(redis)
    scheduler = _scheduler(redis)
    for _ in range(3):
        assert await scheduler.step() == []
    assert await _ladder_games(redis) == []


@pytest.mark.asyncio
async def test_the_standings_show_the_anchors_online_while_a_worker_is_ready(
    redis: Redis,
) -> None:
    store = LadderStore(redis)
    await store.ensure_defaults()
    anchors = {name: anchor.rating for name, anchor in FAST.items()}
    for number, anchor in enumerate(("random", "greedy")):
        await store.started("fast", Pairing("Ada", anchor), f"g{number}")
        assert await store.rate("fast", f"g{number}", "Ada", anchor, True, anchors, ended=number)
    await store.join("fast", "Ada", 1, now_ms())
    table = await store.table("fast", now_ms())
    assert {row.name for row in table.rows} == {"Ada", "random", "greedy"}
    assert table.online == {"Ada"}  # no worker: the anchors would start no game
    await redis.zadd(WORKERS, {"gone": now_ms() - 1})
    assert (await store.table("fast", now_ms())).online == {"Ada"}
    await _worker_ready(redis)
    assert (await store.table("fast", now_ms())).online == {"Ada", "random", "greedy"}
