"""Bot speed and clock discipline: nodes per second of the search bots on 10x10 and 6x6
(playouts for the MCTS bots, positions searched for alphabeta), and how far each bot's moves
overrun their budget (p50, p99, max).

Run from the repository root: python -m bench.bots [--bots SPEC ...] [--moves N]. Prints
figures only.
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.amazons import Position
from engine.search.bot import Budget
from engine.search.registry import make_bot


def _positions(setup: str, count: int, seed: int) -> list[Position]:
    """Positions from random games, spread over the opening and middle game."""
    found = []
    for i in range(count):
        position = Position.setup(setup)
        for ply in range((i * 7) % 40):
            move = position.random_move(seed + 1000 * i + ply)
            if move is None:
                break
            position.apply(move)
        if not position.is_terminal():
            found.append(position)
    return found


def overrun_figures(overruns: list[float]) -> str:
    """Milliseconds over budget as the benches print them: p50, p99 and max."""
    ordered = sorted(overruns)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"p50 {statistics.median(ordered):+.1f} ms, p99 {p99:+.1f} ms, max {ordered[-1]:+.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", nargs="+", default=["mcts"], metavar="SPEC")
    parser.add_argument("--moves", type=int, default=20, help="timed moves per budget")
    parser.add_argument("--budgets", nargs="+", type=float, default=[0.1, 1.0])
    args = parser.parse_args()
    for spec in args.bots:
        bot = make_bot(spec)
        bot.choose(Position.setup("6x6"), Budget(seconds=0.05))  # compile
        for setup in ("10x10", "6x6"):
            rates, unsearched = [], 0
            for position in _positions(setup, 5, 11):
                decision = bot.choose(position, Budget(seconds=1.0))
                if decision.nodes:
                    rates.append(decision.nodes / decision.seconds)
                else:  # answered without a search: an exact endgame, a settled board
                    unsearched += 1
            if not rates:
                print(f"{spec} {setup}: every position answered without a search")
                continue
            print(
                f"{spec} {setup}: {statistics.median(rates):,.0f} nodes/s at 1 s a move "
                f"(median of {len(rates)} positions; min {min(rates):,.0f}, max {max(rates):,.0f}"
                f"; {unsearched} answered without a search)"
            )
        for budget in args.budgets:
            overruns = []
            for position in _positions("10x10", args.moves, 5):
                start = time.perf_counter()
                bot.choose(position, Budget(seconds=budget))
                overruns.append(1000 * (time.perf_counter() - start - budget))
            print(
                f"{spec} at {budget} s a move, 10x10, {len(overruns)} moves: overrun "
                f"{overrun_figures(overruns)}"
            )


if __name__ == "__main__":
    main()
