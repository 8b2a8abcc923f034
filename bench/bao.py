"""Bao speed: perft from the start to a depth (each depth's leaves, time and leaves a second;
the deepest again by the plain-Python rules), and random games from the start a second, one
thread, three ways in the same run: the numba kernels playing whole games
(`engine.bao.kernels.random_game`), the Python API on the kernels (`BaoPosition`), and the same
rules in plain Python (bench/bao_python.py), with the ratios.

Run from the repository root: python -m bench.bao [--depth N] [--games N] [--plain-games N].
Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

from bench import bao_python
from engine.bao import BAO, BaoPosition, BaoRules, Board
from engine.bao import kernels as bao_kernels
from engine.bao.board import board_array, rule_array, start_board

EXPECTED = [4, 14, 38, 124, 405, 1430, 5655, 23270, 105596]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=9, help="deepest perft")
    parser.add_argument("--games", type=int, default=20000, help="random games in the kernels")
    parser.add_argument("--api-games", type=int, default=1000, help="random games by the API")
    parser.add_argument("--plain-games", type=int, default=200, help="plain-Python games")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    start = BaoPosition()
    start.perft(1)  # compile (or load) the kernels before timing them
    for depth in range(1, args.depth + 1):
        began = time.perf_counter()
        leaves = start.perft(depth)
        seconds = time.perf_counter() - began
        expected = EXPECTED[depth - 1] if depth <= len(EXPECTED) else None
        check = "" if expected is None else (" ok" if leaves == expected else f" != {expected}")
        rate = leaves / seconds if seconds else float("inf")
        print(f"perft {depth}: {leaves}{check} in {seconds:.3f} s ({rate:,.0f} leaves/s)")
    began = time.perf_counter()
    leaves = _plain_perft(start_board(), BaoRules(), args.depth)
    plain_seconds = time.perf_counter() - began
    print(
        f"plain Python perft {args.depth}: {leaves} in {plain_seconds:.3f} s "
        f"({plain_seconds / seconds:,.0f}x the kernels' time)"
    )

    kernel_rate = _report("numba kernels", *_kernel_games(args.games))
    api_rate = _report("BaoPosition API", *_api_games(args.api_games))
    plain_rate = _report("plain Python", *_plain_games(args.plain_games))
    print(
        f"kernels / plain Python: {kernel_rate / plain_rate:,.1f}x; "
        f"API / plain Python: {api_rate / plain_rate:,.1f}x"
    )


def _report(name: str, games: int, plies: int, seconds: float) -> float:
    print(
        f"{name}: {games} random games, {plies} plies in {seconds:.2f} s: "
        f"{games / seconds:,.0f} games/s, {plies / seconds:,.0f} plies/s"
    )
    return games / seconds


def _plain_perft(board: Board, rules: BaoRules, depth: int) -> int:
    moves = bao_python.legal_moves(board, rules)
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    return sum(_plain_perft(after, rules, depth - 1) for after in moves.values())


def _kernel_games(games: int) -> tuple[int, int, float]:
    rules = rule_array(BaoRules())
    first = board_array(start_board())
    bao_kernels.random_game(first.copy(), rules, 0)  # compile before timing
    plies = 0
    began = time.perf_counter()
    for seed in range(games):
        state = np.array(first)
        plies += bao_kernels.random_game(state, rules, seed)
    return games, plies, time.perf_counter() - began


def _api_games(games: int) -> tuple[int, int, float]:
    rng = random.Random(0)
    plies = 0
    began = time.perf_counter()
    for _ in range(games):
        state = BAO.new_state()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves))
            plies += 1
    return games, plies, time.perf_counter() - began


def _plain_games(games: int) -> tuple[int, int, float]:
    rules = BaoRules()
    rng = random.Random(0)
    plies = 0
    began = time.perf_counter()
    for _ in range(games):
        board = start_board()
        while moves := bao_python.legal_moves(board, rules):
            board = rng.choice(list(moves.values()))
            plies += 1
    return games, plies, time.perf_counter() - began


if __name__ == "__main__":
    main()
