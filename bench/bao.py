"""Bao speed: perft from the start to a depth, each depth's leaves, time and leaves a second,
and random full games a second.

Run from the repository root: python -m bench.bao [--depth N] [--games N]. Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from engine.bao import BAO, BaoPosition

EXPECTED = [4, 14, 38, 124, 405, 1430, 5655, 23270, 105596]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=9, help="deepest perft")
    parser.add_argument("--games", type=int, default=200, help="random games to play")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    start = BaoPosition()
    for depth in range(1, args.depth + 1):
        began = time.perf_counter()
        leaves = start.perft(depth)
        seconds = time.perf_counter() - began
        expected = EXPECTED[depth - 1] if depth <= len(EXPECTED) else None
        check = "" if expected is None else (" ok" if leaves == expected else f" != {expected}")
        rate = leaves / seconds if seconds else float("inf")
        print(f"perft {depth}: {leaves}{check} in {seconds:.3f} s ({rate:,.0f} leaves/s)")
    rng = random.Random(0)
    plies = 0
    began = time.perf_counter()
    for _ in range(args.games):
        state = BAO.new_state()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves))
            plies += 1
    seconds = time.perf_counter() - began
    print(
        f"{args.games} random games, {plies} plies in {seconds:.2f} s: "
        f"{args.games / seconds:,.0f} games/s, {plies / seconds:,.0f} plies/s"
    )


if __name__ == "__main__":
    main()
