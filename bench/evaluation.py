"""Evaluation speed: one `evaluate` call on the 10x10 start and after 30 random moves.

Run from the repository root: python -m bench.evaluation [--repeats N] [--calls N]. Calls are
made from a numba loop, so the figure is the kernel's cost without Python's call overhead.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from engine.amazons import Position
from engine.search.evaluation import evaluate, make_scratch


# Not cached: numba's cache would keep an old `evaluate` inlined after that module changes.
@njit
def _evaluate_repeatedly(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray, calls: int
) -> float:
    total = 0.0
    for _ in range(calls):
        total += evaluate(board, amazons, meta, scratch)
    return total


def _midgame(moves: int, seed: int) -> Position:
    position = Position.setup("10x10")
    for i in range(moves):
        move = position.random_move(seed + i)
        if move is None:
            break
        position.apply(move)
    return position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (median reported)")
    parser.add_argument("--calls", type=int, default=100_000, help="evaluate calls per round")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random moves")
    args = parser.parse_args()
    for label, position in (
        ("10x10 start", Position.setup("10x10")),
        ("10x10 after 30 random moves", _midgame(30, args.seed)),
    ):
        board, _, amazons, meta, _ = position.arrays()
        scratch = make_scratch(board)
        _evaluate_repeatedly(board, amazons, meta, scratch, 10)  # compile
        rounds = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            _evaluate_repeatedly(board, amazons, meta, scratch, args.calls)
            rounds.append((time.perf_counter() - start) / args.calls * 1e6)
        print(
            f"evaluate, {label} ({position.text()}): median {statistics.median(rounds):.2f} µs "
            f"per call (min {min(rounds):.2f}, max {max(rounds):.2f}; {args.calls:,} calls, "
            f"{args.repeats} rounds)"
        )


if __name__ == "__main__":
    main()
