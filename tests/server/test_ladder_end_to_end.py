"""A ladder end to end, on a server on real Redis: three bot clients (two `BotPlayer`s with
built-in engines, and an `arena bot --engine-cmd` process running the Python example program)
and the anchors, through a house-bot worker, play round after round on a 6x6 ladder; the
standings and the cross table, as the ladder's store and `arena ladder standings` give them,
count exactly the games played, and name each bot's engine. A Bao ladder the same way, with a
program that knows no rules (it moves from the `legal` lines) and the Bao anchors, leaving the
Amazons ladders' ratings as they were."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator, Collection
from functools import partial
from pathlib import Path

import pytest
from redis.asyncio import Redis

from clients.bot import BotPlayer
from server.clock import now_ms
from server.db import Database
from server.games import GameStore, StoredGame
from server.identity import create_bot_token
from server.ladder.anchors import ANCHORS, anchors_of
from server.ladder.store import Ladder, LadderStore, parse_time
from server.offers import TimeControls
from server.protocol import Colour, GameStatus
from tests.server.endpoint import arena_serving, house_worker, standings_rows, until
from tests.server.ladder.rated import rated_game

LADDER = "e2e"
ROUNDS = 3  # games each bot plays at least
# Bao's games are longer: two each still has every bot meet the anchors, in half the time.
BAO_ROUNDS = 2
ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = f"{sys.executable} {ROOT / 'examples' / 'random_bot.py'}"
RANDOM_LEGAL = f"{sys.executable} {ROOT / 'examples' / 'random_legal.py'}"
# A new Amazons ladder has the fast ladder's anchors; a Bao ladder, whatever its name, Bao's.
ANCHOR_NAMES = {anchor.bot for anchor in ANCHORS["amazons"]["fast"]}
BAO_ANCHORS = {anchor.bot: anchor for anchor in anchors_of(LADDER, "bao")}


async def _games(ladders: LadderStore) -> list[StoredGame]:
    store = GameStore(ladders.redis, database=ladders.database)
    return [await store.load(game_id) for game_id in await ladders.games(LADDER)]


@contextlib.asynccontextmanager
async def _in_process(database: Database, url: str, name: str, engine: str) -> AsyncIterator[None]:
    """A `BotPlayer` on the ladder, as `arena bot --engine ENGINE --ladder` plays."""
    player = BotPlayer(url, await create_bot_token(database, name), engine, ladders=[LADDER])
    stop = asyncio.Event()
    task = asyncio.create_task(player.run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


@contextlib.asynccontextmanager
async def _program(
    database: Database, url: str, name: str, folder: Path, program: str = RANDOM_BOT
) -> AsyncIterator[None]:
    """`arena bot --engine-cmd` with an example program, one game at a time, as a process."""
    token = folder / f"{name}.token"
    token.write_text(await create_bot_token(database, name) + "\n")
    command = ["bot", "--server", url, "--token-file", str(token), "--engine-cmd", program]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "server.cli", *command, "--ladder", LADDER, "--games", "1"),
        env=env,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield
    finally:
        process.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, err.decode()


def _pairs(games: list[StoredGame]) -> Counter[tuple[str, str]]:
    """Wins of each player over each opponent, as (winner, loser), over the games won."""
    return Counter(
        (game.white.name, game.black.name)
        if game.winner is Colour.WHITE
        else (game.black.name, game.white.name)
        for game in games
        if game.winner is not None
    )


def _counted(games: list[StoredGame]) -> tuple[Counter[str], Counter[str]]:
    """Games played and won by each player, over the ended games with a winner (an aborted
    game counts for nobody)."""
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for game in games:
        assert game.status is GameStatus.ENDED, game.game_id
        if game.winner is None:
            continue
        played.update([game.white.name, game.black.name])
        won[(game.white if game.winner is Colour.WHITE else game.black).name] += 1
    return played, won


async def _rounds_played(
    store: LadderStore, bots: set[str], anchors: Collection[str], rounds: int = ROUNDS
) -> None:
    """Wait until each of `bots` has `rounds` ended games with a winner, two anchors among
    their opponents."""

    async def played_enough() -> bool:
        ended = [g for g in await _games(store) if g.status is GameStatus.ENDED]
        played, _ = _counted(ended)
        met = {name for name in played if name in anchors}
        return all(played[bot] >= rounds for bot in bots) and len(met) >= 2

    await until(played_enough, f"{rounds} games for each bot, against two anchors")


async def _past_first_moves(store: LadderStore) -> bool:
    """Whether every game of the ladder has ended or had both sides' first moves."""
    return all(game.status is GameStatus.ENDED or game.ply >= 2 for game in await _games(store))


async def _all_rated(store: LadderStore) -> None:
    """Wait until every game of the ladder has ended and been rated."""

    async def rated() -> bool:
        games = await _games(store)
        ended = all(game.status is GameStatus.ENDED for game in games)
        return ended and not await store.unrated(LADDER)

    await until(rated, "every ladder game ended and rated")


@pytest.mark.asyncio
async def test_three_bots_and_the_anchors_play_rounds_and_the_standings_count_them(
    redis: Redis, redis_url: str, tmp_path: Path, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.create(Ladder(LADDER, "6x6", parse_time("2+0")))
    bots = {"Ada", "Bea", "Cy"}
    async with (
        house_worker(redis, "anchors"),
        arena_serving(
            redis_url,
            time_controls=TimeControls.parse("1-600+10"),
            ladder_round_seconds=0.2,
            ladder_lease_ms=10_000,
        ) as (_, url),
    ):
        async with (
            _in_process(database, url, "Ada", "random"),
            _in_process(database, url, "Bea", "greedy"),
            _program(database, url, "Cy", tmp_path),
        ):
            await _rounds_played(store, bots, ANCHOR_NAMES)
            # Off the ladder, and past the first moves of the games they have: a game paired as
            # a bot left would wait out its first-move window (30 s) before it was aborted.
            for bot in bots:
                await store.leave(LADDER, bot)
            await until(partial(_past_first_moves, store), "every ladder game past its first moves")

        # The bots are gone: their last games end by the rules (on time) and are rated.
        await _all_rated(store)
    games = await _games(store)
    played, won = _counted(games)
    assert set(played) - ANCHOR_NAMES == bots
    # Never a bot against itself; the program, on one game at a time, never in two at once.
    assert all(game.white.name != game.black.name for game in games)
    spans = sorted((g.created, g.ended or 0) for g in games if "Cy" in (g.white.name, g.black.name))
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    table = await store.table(LADDER, now_ms())
    assert {row.name: (row.score.games, row.score.wins) for row in table.rows} == {
        name: (played[name], won[name]) for name in played
    }
    wins = _pairs(games)
    assert {
        (name, opponent): (score.wins, score.losses)
        for name, against in table.cross.items()
        for opponent, score in against.items()
    } == {(a, b): (wins[a, b], wins[b, a]) for a, b in {*wins, *((b, a) for a, b in wins)}}
    # Each bot's engine as it said: the spec, or the name the program gave when ready.
    assert {bot: table.engines.get(bot) for bot in bots} == {
        "Ada": "random",
        "Bea": "greedy",
        "Cy": "random-example",
    }
    rows = await standings_rows(redis_url, LADDER)
    for name in played:
        assert rows[name][4:6] == [str(played[name]), str(won[name])], rows[name]
    assert rows["Cy"][-1] == "random-example"
    ratings = await store.ratings(LADDER)
    assert all(ratings[bot.lower()].deviation < 350 for bot in bots)


@pytest.mark.asyncio
async def test_a_bao_ladder_plays_a_rules_free_program_a_built_in_bot_and_the_bao_anchors(
    redis: Redis, redis_url: str, tmp_path: Path, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    # An Amazons ladder with a rated game already: the Bao ladder's games leave it as it is.
    await rated_game(database, "fast", "old-game", "Old", "random", True)
    before = {name: await store.ratings(name) for name in ("fast", "main")}
    await store.create(Ladder.new(LADDER, parse_time("2+0"), "bao"))
    bots = {"Ada", "Cy"}
    async with (
        house_worker(redis, "anchors"),
        arena_serving(
            redis_url,
            time_controls=TimeControls.parse("1-600+10"),
            ladder_round_seconds=0.2,
            ladder_lease_ms=10_000,
        ) as (_, url),
    ):
        async with (
            _in_process(database, url, "Ada", "bao-alphabeta"),
            _program(database, url, "Cy", tmp_path, RANDOM_LEGAL),
        ):
            await _rounds_played(store, bots, BAO_ANCHORS, BAO_ROUNDS)
            # Taken off the ladder, the bots finish the games they have: a game paired as a
            # bot left would wait out its first-move window (30 s) before it was aborted.
            for bot in bots:
                await store.leave(LADDER, bot)
            await _all_rated(store)

        # A scheduler's round that read the members before they left may have started one
        # more game: it ends by the rules.
        await _all_rated(store)
    games = await _games(store)
    assert {game.game for game in games} == {"bao"}
    played, won = _counted(games)
    assert set(played) - set(BAO_ANCHORS) == bots
    # The anchors that played are Bao's house bots, each at its strength, never two at once.
    for game in games:
        for player, house in zip((game.white, game.black), game.house, strict=True):
            if player.name in BAO_ANCHORS:
                assert house == BAO_ANCHORS[player.name].spec, game.game_id
    assert not any(g.white.name in BAO_ANCHORS and g.black.name in BAO_ANCHORS for g in games)
    table = await store.table(LADDER, now_ms())
    assert {row.name: (row.score.games, row.score.wins) for row in table.rows} == {
        name: (played[name], won[name]) for name in played
    }
    assert {bot: table.engines.get(bot) for bot in bots} == {
        "Ada": "bao-alphabeta",
        "Cy": "random-legal",
    }
    rows = await standings_rows(redis_url, LADDER)
    assert set(rows) == set(played)
    for name in played:
        assert rows[name][4:6] == [str(played[name]), str(won[name])], rows[name]
        if name in BAO_ANCHORS:
            assert rows[name][2:4] == [f"{BAO_ANCHORS[name].rating:.0f}", "anchor"]
    ratings = await store.ratings(LADDER)
    assert all(ratings[bot.lower()].deviation < 350 for bot in bots)
    assert {name: await store.ratings(name) for name in ("fast", "main")} == before
    assert [r.game_id for r in await store.results("fast")] == ["old-game"]
