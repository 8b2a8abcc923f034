"""A real ladder run: the built-in bots as ordinary bot accounts on a ladder of an `arena serve`
(its private Redis in a temporary folder, house-bot workers for the anchors), each through
`arena bot --engine NAME --ladder LADDER --games 1`, until the ladder has rated the games asked
for. Prints the standings as `arena ladder standings` prints them, then whether the
maximum-likelihood list ranks the bots in their known order (docs/experiments.md: random, then
mobility and greedy, which tie, then mcts, alphabeta, invader) and whether every interval is
under ±100 Elo. Last, the anchors as these games measure them: the rating list with only the
weakest anchor held at its rating, beside each anchor's fixed one (docs/ladder.md: how the
anchors are calibrated).

Run from the repository root: python -m bench.ladder_run [--games N] [--ladder NAME]
[--workers N] [--hours H] [--slow-games N]. It takes a while: on the fast ladder (6x6, 10 s a
game) about 25 games a minute on two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.serving import arena_serve
from server.clock import now_ms
from server.db import Database
from server.games import open_redis
from server.ladder.anchors import anchors_of
from server.ladder.results import Result
from server.ladder.standing import Table, standings
from server.ladder.store import LadderStore
from server.redis_embedded import SOCKET_NAME

# The built-in bots, in their known order on 6x6 (docs/experiments.md, "Tournament, 6x6"):
# each tier is stronger than the one before; the bots of one tier tie.
TIERS = (("random",), ("mobility", "greedy"), ("mcts",), ("alphabeta",), ("invader",))
# The bots that search until their clock says stop: their games last longest, so by default they
# play two at once (`arena bot --games 2`) to get about as many games as the quick bots.
SLOW = ("alphabeta", "invader")
PREFIX = "b-"  # their accounts' names: `b-random`, ...; the house bots' own names are anchors'
MARGIN = 100.0  # Elo: every interval's half-width should be under this


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="rated games to play")
    parser.add_argument("--ladder", default="fast")
    parser.add_argument("--workers", type=int, default=2, help="house-bot workers (anchors)")
    parser.add_argument("--hours", type=float, default=2.0, help="stop after this long anyway")
    parser.add_argument(
        "--slow-games",
        type=int,
        default=2,
        help=f"games at once for {' and '.join(SLOW)} (the others play one at a time)",
    )
    args = parser.parse_args()
    # Stopped (kill, a job runner's timeout), it stops its server and bots on the way out.
    signal.signal(signal.SIGTERM, _stopped)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ladder-run-") as folder:
        data = Path(folder)
        with (
            arena_serve(data, args.workers, data / "serve.log") as url,
            _bots(data, url, args.ladder, args.slow_games),
        ):
            print(f"server {url}, ladder {args.ladder}, {args.games} games", file=sys.stderr)
            deadline = started + args.hours * 3600
            table, results = asyncio.run(_wait(data, args.ladder, args.games, deadline))
    minutes = (time.monotonic() - started) / 60
    games = sum(row.score.games for row in table.rows) // 2
    print(f"{games} rated games on ladder {args.ladder} in {minutes:.0f} min\n")
    print(table.render(now_ms()))
    _judge(table)
    _calibration(args.ladder, results)


def _judge(table: Table) -> None:
    """Print whether the list ranks the tiers in order and every interval is narrow."""
    rating = {row.name: row.rating for row in table.rows}
    margin = {row.name: row.margin for row in table.rows if not row.anchor}
    missing = [PREFIX + bot for tier in TIERS for bot in tier if PREFIX + bot not in rating]
    if missing:
        print(f"\nno result yet for {', '.join(missing)}")
        return
    wrong = [
        f"{PREFIX}{low} above {PREFIX}{high}"
        for lower, higher in itertools.pairwise(TIERS)
        for low in lower
        for high in higher
        if rating[PREFIX + low] >= rating[PREFIX + high]
    ]
    print(f"\nknown order kept: {'yes' if not wrong else 'no: ' + ', '.join(wrong)}")
    widest = max(margin, key=margin.__getitem__)
    print(
        f"every interval under ±{MARGIN:.0f} Elo: "
        f"{'yes' if margin[widest] < MARGIN else 'no'} (widest ±{margin[widest]:.0f}, {widest})"
    )


def _calibration(ladder: str, results: list[Result]) -> None:
    """Print each anchor's fixed rating beside the one these games give it, with only the
    weakest anchor held."""
    anchors = anchors_of(ladder, "amazons")  # the bots this run starts play Amazons
    weakest = min(anchors, key=lambda anchor: anchor.rating)
    measured = {row.name: row for row in standings(results, {weakest.bot: weakest.rating})}
    print(f"\nthe anchors as measured here, {weakest.bot} held at {weakest.rating:.0f}:")
    for anchor in anchors:
        row = measured.get(anchor.bot)
        found = "no games" if row is None else f"{row.rating:.0f} ±{row.margin:.0f}"
        print(f"  {anchor.spec:<14} fixed {anchor.rating:>5.0f}   measured {found}")


async def _wait(data: Path, ladder: str, games: int, deadline: float) -> tuple[Table, list[Result]]:
    """Poll the ladder's database until it has rated `games` games (or the deadline passes);
    its standings and results then."""
    redis = open_redis(f"unix://{data / SOCKET_NAME}")
    database = await Database.open(None, data)
    store = LadderStore(redis, database)
    try:
        said = 0
        while time.monotonic() < deadline:
            done = len(await store.results(ladder))
            if done >= games:
                break
            if done >= said + 25:
                said = done - done % 25
                print(f"  {done} games rated", file=sys.stderr)
            await asyncio.sleep(5)
        return await store.table(ladder, now_ms()), await store.results(ladder)
    finally:
        await database.close()
        await redis.aclose()


def _stopped(signal_number: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signal_number}")


def _arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "server.cli", *args]


@contextlib.contextmanager
def _bots(data: Path, url: str, ladder: str, slow_games: int) -> Iterator[None]:
    """One `arena bot` per built-in bot, each on its own account, the SLOW ones playing
    `slow_games` at once; stopped on the way out."""
    processes = []
    try:
        for bot in (bot for tier in TIERS for bot in tier):
            token = subprocess.run(
                _arena("token", "create", PREFIX + bot, "--bot", "--data-dir", str(data)),
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            token_file = data / f"{bot}.token"
            token_file.write_text(token + "\n")
            command = ["bot", "--server", url, "--token-file", str(token_file)]
            games = slow_games if bot in SLOW else 1
            command += ["--engine", bot, "--ladder", ladder, "--games", str(games)]
            processes.append(
                subprocess.Popen(_arena(*command), stderr=(data / f"{bot}.log").open("w"))
            )
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(30)


if __name__ == "__main__":
    main()
