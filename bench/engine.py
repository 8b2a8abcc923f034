"""Engine speed: perft(3) of 10x10, random full games per second, start-up time of the CLI.

Run from the repository root: python -m bench.engine [--repeats N]. Prints figures only. When
open-spiel is installed, its C++ random-game loop (pyspiel.evaluate_bots with two uniform random
bots) is measured in the same run, interleaved with ours, and the ratio of medians printed.
--profile prints where a random 10x10 move's time goes instead: the same games played with
each step of a move done again k times, so that the extra time over k is that step's cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from engine.amazons import Position, kernels
from engine.jit import njit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (median reported)")
    parser.add_argument("--games", type=int, default=2000, help="our random games per round")
    parser.add_argument("--openspiel-games", type=int, default=200, help="OpenSpiel's per round")
    parser.add_argument("--skip-perft", action="store_true", help="skip perft(3) of 10x10")
    parser.add_argument("--profile", action="store_true", help="only the cost of each step")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    if args.profile:
        profile(args.games)
        return

    startup()
    if not args.skip_perft:
        perft3()
    playouts(args.repeats, args.games, args.openspiel_games)


def startup() -> None:
    """Wall time of `arena perft 1 --setup 10x10` with an empty and then a filled numba cache."""
    command = [sys.executable, "-m", "engine", "perft", "1", "--setup", "10x10"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold (empty numba cache)", "warm (cache filled)", "warm (cache filled)"):
            start = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            print(f"arena perft 1 --setup 10x10, {label}: {time.perf_counter() - start:.2f} s")


def perft3() -> None:
    position = Position.setup("10x10")
    position.perft(2)  # compile outside the timing
    start = time.perf_counter()
    leaves = position.perft(3)
    seconds = time.perf_counter() - start
    print(
        f"perft(3) 10x10: {leaves:,} leaves in {seconds:.2f} s, "
        f"{leaves / seconds / 1e6:,.0f} M leaves/s (one thread)"
    )


def _ours(setup: str, games: int, rng: np.ndarray) -> tuple[float, float]:
    board, mob, amazons, meta, zob = Position.setup(setup).arrays()
    start = time.perf_counter()
    _, moves = kernels.random_games(board, mob, amazons, meta, zob, rng, games)
    return games / (time.perf_counter() - start), moves / games


def _openspiel(pyspiel: object, game: object, games: int, seed: int) -> float:
    bots = [
        pyspiel.make_uniform_random_bot(0, seed),  # type: ignore[attr-defined]
        pyspiel.make_uniform_random_bot(1, seed + 1),  # type: ignore[attr-defined]
    ]
    start = time.perf_counter()
    for i in range(games):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)  # type: ignore[attr-defined]
    return games / (time.perf_counter() - start)


def playouts(repeats: int, games: int, openspiel_games: int) -> None:
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("open-spiel not installed: no OpenSpiel baseline (pip install -e '.[bench]')")
    rng = np.array([0x9E3779B97F4A7C15], dtype=np.uint64)
    for setup, size in (("10x10", 10), ("6x6", 6)):
        _ours(setup, 20, rng)  # compile
        game = pyspiel.load_game("amazons", {"board_size": size}) if pyspiel else None
        if pyspiel:
            _openspiel(pyspiel, game, 20, 1)
        ours, theirs, lengths = [], [], []
        for r in range(repeats):
            rate, length = _ours(setup, games, rng)
            ours.append(rate)
            lengths.append(length)
            if pyspiel:
                theirs.append(_openspiel(pyspiel, game, openspiel_games, 1000 * r))
        line = (
            f"random {setup} games/s, one thread, uniform over full moves: "
            f"median {statistics.median(ours):,.0f} (min {min(ours):,.0f}, max {max(ours):,.0f}; "
            f"{statistics.mean(lengths):.1f} moves a game)"
        )
        print(line)
        if theirs:
            ratio = statistics.median(ours) / statistics.median(theirs)
            print(
                f"  OpenSpiel C++ evaluate_bots loop: median {statistics.median(theirs):,.0f} "
                f"games/s (min {min(theirs):,.0f}, max {max(theirs):,.0f}); ours / OpenSpiel = "
                f"{ratio:.2f}x"
            )


@njit(cache=True)
def _mobility_games(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    games: int,
    again: np.ndarray,
) -> int:
    """Random games drawn as draw_move draws, on the mobility map, with ray_weights, nth_move
    and make_move (with its unmake_move) each done again[0], again[1], again[2] more times a
    move; return the moves played."""
    weights = np.empty(8 * amazons.shape[1], dtype=np.int64)
    moves = 0
    for _ in range(games):
        b, m, a, t = board.copy(), mob.copy(), amazons.copy(), meta.copy()
        while True:
            for _ in range(again[0]):
                kernels.ray_weights(b, m, a, t, weights)
            total = kernels.ray_weights(b, m, a, t, weights)
            if total == 0:
                break
            r = kernels.random_below(rng, total)
            for _ in range(again[1]):
                kernels.nth_move(b, m, a, t, weights, r)
            move = kernels.nth_move(b, m, a, t, weights, r)
            for _ in range(again[2]):
                kernels.make_move(b, m, a, t, zob, move)
                kernels.unmake_move(b, m, a, t, zob, move)
            kernels.make_move(b, m, a, t, zob, move)
        moves += t[kernels.PLY] - meta[kernels.PLY]
    return moves


@njit(cache=True)
def _line_games(
    board: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    rng: np.ndarray,
    games: int,
    again: np.ndarray,
) -> int:
    """Random games as random_games plays them, on line masks, with sample_move done again[0]
    more times a move (which draws other games of the same kind) and the masks' update, done
    and undone, again[1]; return the moves played."""
    line_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    bit_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    start = np.zeros(4 * board.shape[0], dtype=np.int64)
    kernels.line_masks(board, meta[kernels.STRIDE], line_of, bit_of, start)
    steps_of = np.empty(8 * amazons.shape[1], dtype=np.int64)
    rays = np.empty(8, dtype=np.int64)
    zob = np.zeros((4, board.shape[0]), dtype=np.int64)
    sight = kernels.empty_sight(board, meta[kernels.STRIDE])
    moves = 0
    for _ in range(games):
        lines, a, t = start.copy(), amazons.copy(), meta.copy()
        b = board.copy()
        empty = kernels.empty_squares(b)
        while True:
            bound = min(sight, empty)
            for _ in range(again[0]):
                kernels.sample_move(a, t, rng, lines, line_of, bit_of, steps_of, rays, bound)
            move = kernels.sample_move(a, t, rng, lines, line_of, bit_of, steps_of, rays, bound)
            if move < 0:
                break
            for _ in range(2 * again[1]):
                for sq in (move & 1023, (move >> 10) & 1023, move >> 20):
                    kernels.flip_square(lines, line_of, bit_of, sq)
            kernels.play_on_lines(b, a, t, zob, lines, line_of, bit_of, move)
            empty -= 1
        moves += t[kernels.PLY] - meta[kernels.PLY]
    return moves


def profile(games: int) -> None:
    """ns a move of each step of a random 10x10 move, on the mobility map and on line masks."""
    board, mob, amazons, meta, zob = Position.setup("10x10").arrays()

    def per_move(
        play: Callable[[np.ndarray, int, np.ndarray], int], again: tuple[int, ...]
    ) -> float:
        runs = []
        for _ in range(3):
            rng = np.array([0x9E3779B97F4A7C15], dtype=np.uint64)
            start = time.perf_counter()
            moves = play(rng, games, np.array(again, dtype=np.int64))
            runs.append((time.perf_counter() - start) / moves * 1e9)
        return min(runs)

    def mobility(rng: np.ndarray, n: int, again: np.ndarray) -> int:
        return int(_mobility_games(board, mob, amazons, meta, zob, rng, n, again))

    def lines(rng: np.ndarray, n: int, again: np.ndarray) -> int:
        return int(_line_games(board, amazons, meta, rng, n, again))

    k = 4
    for name, play, steps in (
        ("mobility map", mobility, ("ray_weights", "nth_move", "make_move + unmake_move")),
        ("line masks", lines, ("sample_move", "masks' update, done and undone")),
    ):
        per_move(play, (0,) * len(steps))  # compile
        whole = per_move(play, (0,) * len(steps))
        parts = []
        for i, step in enumerate(steps):
            again = tuple(k if j == i else 0 for j in range(len(steps)))
            parts.append(f"{step} {(per_move(play, again) - whole) / k:,.0f}")
        print(f"{name}: {whole:,.0f} ns a move; of which {', '.join(parts)} ns")


if __name__ == "__main__":
    main()
