"""The presence sweep of one server process (server/presence.py): every 5 s it renews the
attendance of each of its players' connections and reads every live game's attendance. This
measures, on an embedded Redis, the CPU each turn takes and the longest the event loop goes
without turning meanwhile (a move waits that long), for the sweep as it is (a batch at a time)
and, in the same run, for the same commands sent as one redis-py pipeline (as it was).

Run from the repository root: python -m bench.presence_sweep [--games N] [--runs K]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import redis.asyncio as aioredis

from server.game_index import bucket_of, live_key
from server.games import GameStore, open_redis
from server.presence import RENEW
from server.protocol import Colour
from server.redis_embedded import EmbeddedRedis
from server.storage import online_key

FAR = 10**13  # server ms far in the future: no attendance lapses

Entries = Sequence[tuple[str, Colour, str]]


async def _longest_turn(work: Awaitable[object]) -> tuple[float, float]:
    """CPU seconds of `work`, and the longest the event loop went without turning meanwhile."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    cpu = time.process_time()
    await work
    cpu = time.process_time() - cpu
    done.set()
    await ticker
    return cpu, max(gaps)


async def _renew_in_one_pipeline(redis: aioredis.Redis, entries: Entries) -> None:
    async with redis.pipeline(transaction=False) as pipe:
        for game_id, colour, connection in entries:
            pipe.eval(RENEW, 1, online_key(game_id), f"{colour}:{connection}", FAR)
        await pipe.execute()


async def _read_in_one_pipeline(store: GameStore, games: Sequence[str]) -> None:
    async with store.redis.pipeline(transaction=False) as pipe:
        for game_id in games:
            pipe.hgetall(online_key(game_id))
        tables = await pipe.execute()
    for game_id, fields in zip(games, tables, strict=True):
        await store.attendance._lapse(game_id, fields, 0)


async def _measure(games: int, runs: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="arena-presence-"))
    embedded = EmbeddedRedis(folder / "redis")
    embedded.start()
    try:
        redis = open_redis(embedded.url)
        store = GameStore(redis)
        ids = [f"g{i}" for i in range(games)]
        entries = [(g, colour, f"{colour}-{g}") for g in ids for colour in Colour]
        for game_id, colour, connection in entries:
            await redis.sadd(live_key(bucket_of(game_id)), game_id)
            await redis.hset(online_key(game_id), f"{colour}:{connection}", FAR)
        ways: dict[str, Callable[[], Awaitable[object]]] = {
            "renew, in batches": lambda: store.keep_attending(entries, FAR - 15_000),
            "renew, one pipeline": lambda: _renew_in_one_pipeline(redis, entries),
            "read, in batches": lambda: store.attendance.lapse_attendance(0),
            "read, one pipeline": lambda: _read_in_one_pipeline(store, ids),
        }
        found: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
        for _ in range(runs):  # alternated, so the machine's load falls on each alike
            for name, way in ways.items():
                found[name].append(await _longest_turn(way()))
        await redis.aclose()
    finally:
        embedded.stop()
    print(f"{games:,} games, {len(entries):,} attendances, {runs} runs each, medians")
    for name, figures in found.items():
        cpu = statistics.median(c for c, _ in figures)
        turn = statistics.median(t for _, t in figures)
        print(f"  {name:<20} CPU {1000 * cpu:7.1f} ms   longest loop turn {1000 * turn:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3000, help="live games (two players each)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    asyncio.run(_measure(args.games, args.runs))
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
