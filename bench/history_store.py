"""What the history store costs a game's end and a player's page: the time `record_finished_game`
takes for a rated 60-move game (the record, its moves, both players' ratings and history points
in one transaction), one at a time and with several games ending at once among a few players,
and the time `games` takes for a page of a player's games, newest first, deep in the list.

Run from the repository root: python -m bench.history_store [--database-url URL] [--games N]
[--at-once K] [--players P] (by default a SQLite file in a folder made for the run; a
PostgreSQL URL names an empty database to fill). The machine's load average is printed with
the figures: on a shared machine they move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from engine.records import GameRecord, utc_date
from server.db import Database, FinishedGame, Seat, games, record_finished_game
from server.protocol import PlayerKind

PLIES = 60
T0 = 1_790_000_000_000  # ms since the epoch


def _game(number: int, players: int) -> FinishedGame:
    white = number % players
    black = (white + 1 + number // players % (players - 1)) % players
    ended = T0 + number * 1000
    record = GameRecord(
        game="amazons",
        start="3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w",
        white=f"player{white}",
        black=f"player{black}",
        game_id=f"g{number}",
        date=utc_date((ended - 600_000) / 1000),
        rated=True,
        moves=[f"d1-d{2 + ply % 8}/a{1 + ply % 9}" for ply in range(PLIES)],
        seconds=[1.5] * PLIES,
        nodes=[0] * PLIES,
        winner="white" if number % 3 else "black",
        termination="no legal move",
        setup="10x10",
        time=[300, 5],
        clocks=[[300_000 - ply * 100, 300_000 - ply * 90] for ply in range(PLIES)],
    )
    seats = (Seat(record.white, PlayerKind.HUMAN), Seat(record.black, PlayerKind.HUMAN))
    return FinishedGame(record, *seats, created=ended - 600_000, ended=ended)


def _figures(name: str, seconds: list[float]) -> None:
    ms = sorted(1000 * s for s in seconds)
    p99 = ms[min(len(ms) - 1, round(0.99 * len(ms)))]
    print(
        f"{name}: {len(ms)} runs, median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, "
        f"max {ms[-1]:.2f} ms"
    )


async def _run(url: str | None, data_dir: Path, count: int, at_once: int, players: int) -> None:
    db = await Database.open(url, data_dir)
    print(f"{db.where} ({db.dialect}), {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    try:
        one_by_one = []
        for number in range(count):
            started = time.perf_counter()
            await record_finished_game(db, _game(number, players))
            one_by_one.append(time.perf_counter() - started)
        _figures("a game's end, one at a time", one_by_one)

        together: list[float] = []

        async def timed(game: FinishedGame) -> None:
            started = time.perf_counter()
            await record_finished_game(db, game)
            together.append(time.perf_counter() - started)

        for first in range(count, 2 * count, at_once):
            batch = [_game(number, players) for number in range(first, first + at_once)]
            await asyncio.gather(*(timed(game) for game in batch))
        _figures(f"a game's end, {at_once} at once among {players} players", together)

        again = []
        for number in range(min(count, 200)):
            started = time.perf_counter()
            await record_finished_game(db, _game(number, players))
            again.append(time.perf_counter() - started)
        _figures("a game's end handed over again (nothing written)", again)

        pages = []
        for number in range(min(count, 200)):
            cursor = None
            for _ in range(3):  # the third page: a cursor deep in the list
                started = time.perf_counter()
                page = await games(db, player=f"player{number % players}", limit=30, before=cursor)
                pages.append(time.perf_counter() - started)
                cursor = page.next
        _figures("a page of 30 of a player's games, with their moves", pages)
    finally:
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="an empty database (default: a SQLite file)")
    parser.add_argument("--games", type=int, default=1000, help="games in each run")
    parser.add_argument("--at-once", type=int, default=8, help="games ending at once")
    parser.add_argument("--players", type=int, default=20, help="players the games are among")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        asyncio.run(_run(args.database_url, Path(folder), args.games, args.at_once, args.players))


if __name__ == "__main__":
    main()
