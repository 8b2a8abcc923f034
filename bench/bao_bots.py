"""The Bao bots against each other: `bao-alphabeta` against `random` and `mcts`, `bao-deep`
against `bao-alphabeta`, a fixed time a move, colours alternating; prints each match's table
(wins by colour, score, Elo difference with its 95% interval, ms and nodes a move) and the
machine's load average before and after, since the budgets are wall-clock seconds.

Run from the repository root: python -m bench.bao_bots [--pairs A/B ...] [--games N]
[--time SECONDS] [--out FILE]. Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engine.search.match import run_match

PAIRS = ("bao-alphabeta/random", "bao-alphabeta/mcts", "bao-deep/bao-alphabeta")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", nargs="+", default=list(PAIRS), metavar="A/B")
    parser.add_argument("--games", type=int, default=20, help="games a pair")
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="append the game records here")
    args = parser.parse_args()
    out = args.out.open("a") if args.out else None
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for pair in args.pairs:
        a, _, b = pair.partition("/")
        result = run_match(
            a,
            b,
            games=args.games,
            seconds=args.time,
            setup="zanzibar",
            out=out,
            seed=args.seed,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
            game="bao",
        )
        print(f"\n{a} against {b}, {args.time:g} s a move", flush=True)
        print(result.table(), flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if out is not None:
        out.close()


if __name__ == "__main__":
    main()
