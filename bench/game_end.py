"""What a game's end costs in the live store with its hand-over to the history store and without:
rated 6x6 games among a few accounts on an embedded Redis, each played two moves and resigned,
through a `GameStore` without a database (the end's commit only: the game stays on the hand-over
set) and one with a SQLite file (that, then the game's record, moves and ratings written and the
game taken off the hand-over set), the two interleaved game by game so the machine's load weighs
on both alike, and a third kind beside them: a game the `fast` ladder started between two bots,
whose hand-over also writes its result and the bots' ladder ratings. The moves are timed too:
the hand-over must leave them as they were.

Run from the repository root: python -m bench.game_end [--games N] [--players P]. The machine's
load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path

import structlog

from server.db import Database
from server.games import GameStore, open_redis
from server.ladder.pairing import Pairing
from server.ladder.store import LadderStore
from server.protocol import Player, PlayerKind, TimeControl
from server.redis_embedded import EmbeddedRedis

T0 = 1_790_000_000_000
MOVES = ("b1-b4/d4", "e6-e3/c3")


async def _game(
    store: GameStore, number: int, players: int, ladder: bool = False
) -> tuple[float, float, float]:
    """One game, rated or (`ladder`) one the fast ladder started between two bots: the seconds
    its moves took (the later one) and its end took, and the CPU seconds of its end (this
    process's, the database's thread with it; not Redis's)."""
    kind = PlayerKind.BOT if ladder else PlayerKind.HUMAN
    white = Player(f"player{number % players}", kind)
    black = Player(f"player{(number + 1) % players}", kind)
    now = T0 + number * 10_000
    started = await store.create(
        white, black, time=TimeControl(60, 2), rated=not ladder, now=now, setup="6x6"
    )
    game_id = started.game_id
    if ladder:
        await LadderStore(store.redis).started("fast", Pairing(white.name, black.name), game_id)
    await store.play(game_id, white.name, 0, MOVES[0], now + 1_000)
    begun = time.perf_counter()
    await store.play(game_id, black.name, 1, MOVES[1], now + 2_000)
    moved = time.perf_counter() - begun
    begun, cpu = time.perf_counter(), time.process_time()
    await store.resign(game_id, white.name, now + 3_000)
    return moved, time.perf_counter() - begun, time.process_time() - cpu


def _figures(label: str, seconds: list[float], cpu: list[float] | None = None) -> None:
    ms = sorted(s * 1000 for s in seconds)
    p90 = ms[int(len(ms) * 0.9)]
    spent = "" if cpu is None else f"  CPU median {statistics.median(cpu) * 1000:5.2f} ms"
    print(
        f"{label:<44} median {statistics.median(ms):6.2f} ms  p90 {p90:6.2f} ms{spent}"
        f"  (n={len(ms)})"
    )


async def _run(folder: Path, count: int, players: int) -> None:
    with EmbeddedRedis(folder / "redis") as redis_server:
        db = await Database.open(None, folder)
        plain = GameStore(open_redis(redis_server.url))
        handing = GameStore(open_redis(redis_server.url), database=db)
        await LadderStore(handing.redis, db).ensure_defaults()
        kinds = ("move", "end", "move+db", "end+db", "end+ladder")
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
        try:
            for number in range(count):
                moved, ended, spent = await _game(plain, 3 * number, players)
                times["move"].append(moved)
                times["end"].append(ended)
                cpu["end"].append(spent)
                moved, ended, spent = await _game(handing, 3 * number + 1, players)
                times["move+db"].append(moved)
                times["end+db"].append(ended)
                cpu["end+db"].append(spent)
                _, ended, spent = await _game(handing, 3 * number + 2, players, ladder=True)
                times["end+ladder"].append(ended)
                cpu["end+ladder"].append(spent)
        finally:
            await plain.redis.aclose()
            await handing.redis.aclose()
            await db.close()
    print(f"load average {os.getloadavg()[0]:.2f} over {os.cpu_count()} CPUs")
    _figures("a move, no database", times["move"])
    _figures("a move, handing over to SQLite", times["move+db"])
    _figures("a game's end, no database", times["end"], cpu["end"])
    _figures("a game's end, handed over to SQLite", times["end+db"], cpu["end+db"])
    _figures("a ladder game's end, handed over to SQLite", times["end+ladder"], cpu["end+ladder"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games of each kind")
    parser.add_argument("--players", type=int, default=20, help="players the games are among")
    args = parser.parse_args()
    # Each game's end logs a line or two: not what is measured.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory(prefix="arena-bench-", dir="/tmp") as folder:
        asyncio.run(_run(Path(folder), args.games, args.players))


if __name__ == "__main__":
    main()
