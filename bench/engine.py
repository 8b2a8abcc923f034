"""Engine speed: perft(3) of 10x10, random full games per second, start-up time of the CLI.

Run from the repository root: python -m bench.engine [--repeats N]. Prints figures only. When
open-spiel is installed, its C++ random-game loop (pyspiel.evaluate_bots with two uniform random
bots) is measured in the same run, interleaved with ours, and the ratio of medians printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from engine.amazons import Position, kernels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (median reported)")
    parser.add_argument("--games", type=int, default=2000, help="our random games per round")
    parser.add_argument("--openspiel-games", type=int, default=200, help="OpenSpiel's per round")
    parser.add_argument("--skip-perft", action="store_true", help="skip perft(3) of 10x10")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")

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


if __name__ == "__main__":
    main()
