"""The client's CPU for each command of the lane (server/lane.py): rounds of concurrent game-like
operations (a slot-local script, as a move's commit, then an HGET and an LRANGE of the game),
timed by the process's CPU clock, so Redis's own work and the machine's other load are left out.

With `--source DIR`, the same rounds run with another checkout's `server` package too (e.g. a
git worktree of an earlier commit), the two alternating run by run in the same window, so the
machine's load weighs on both alike. `--url` is the Redis to use (a node of a Redis Cluster
too); without it, an embedded Redis on a unix socket, as `arena serve` has by default.

Run from the repository root: python -m bench.lane [--url URL] [--source DIR] [--runs N].
Prints the best and the median µs of CPU per command of each side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT = """
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'version', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
return tonumber(ARGV[2])
"""
GAMES = 200  # operations at once in a round, each on a game of its own
ROUNDS = 50
COMMANDS = 3  # a round's commands per game
# This file run in `source` with its packages first on the path (run as a script, bench/ would
# come first, and its modules hide the packages of the same names).
INNER = (
    "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


async def _measure(url: str) -> float:
    """µs of this process's CPU per command, over ROUNDS rounds of GAMES games."""
    from server.games import open_redis  # the checkout's on the path (see --source)

    redis = open_redis(url)
    commit = redis.register_script(SCRIPT)
    doc = b"x" * 300

    async def game(number: int, version: int) -> None:
        keys = [f"{{g:{number}}}:game", f"{{g:{number}}}:events"]
        await commit(keys=keys, args=[doc, version])
        await redis.hget(keys[0], "version")
        await redis.lrange(keys[1], -1, -1)

    await asyncio.gather(*(game(n, 0) for n in range(GAMES)))  # connected, scripts loaded
    start = time.process_time()
    for version in range(1, ROUNDS + 1):
        await asyncio.gather(*(game(n, version) for n in range(GAMES)))
    spent = time.process_time() - start
    await redis.delete(*(f"{{g:{n}}}:events" for n in range(GAMES)))  # keep them short
    await redis.aclose()
    return spent / (ROUNDS * GAMES * COMMANDS) * 1e6


def _run(url: str, source: Path) -> float:
    """One measurement in a process of its own, with `source`'s server package."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run(
        [sys.executable, "-c", INNER, __file__, "--inner", "--url", url],
        env=env,
        cwd=source,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(done.stdout)["us"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="the Redis to use (default: an embedded one)")
    parser.add_argument("--source", type=Path, help="another checkout to compare with")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps({"us": asyncio.run(_measure(args.url))}))
        return
    here = Path(__file__).resolve().parent.parent
    sides = {"this checkout": here}
    if args.source is not None:
        sides[f"{args.source}"] = args.source.resolve()
    with tempfile.TemporaryDirectory() as folder:
        if args.url is None:
            from server.redis_embedded import EmbeddedRedis

            with EmbeddedRedis(Path(folder)) as server:
                figures = _runs(server.url, sides, args.runs)
        else:
            figures = _runs(args.url, sides, args.runs)
    print(f"client CPU per lane command, {GAMES} games at once x {ROUNDS} rounds x {COMMANDS}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for side, runs in figures.items():
        best, median = min(runs), statistics.median(runs)
        print(f"  {side}: best {best:.2f} µs, median {median:.2f} µs ({len(runs)} runs)")


def _runs(url: str, sides: dict[str, Path], runs: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(runs):
        for side, source in sides.items():
            figures[side].append(_run(url, source))
    return figures


if __name__ == "__main__":
    main()
