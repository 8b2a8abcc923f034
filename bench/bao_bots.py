"""The Bao bots against each other: `bao-alphabeta` against `random` and `mcts`, `bao-deep`
against `bao-alphabeta`, a fixed time a move, colours alternating; prints each match's table
(wins by colour, score, Elo difference with its 95% interval, ms and nodes a move) and the
machine's load average before and after, since the budgets are wall-clock seconds.

With --overrun SPEC ..., each bot instead plays itself --games games and the bench prints how
far its moves overran the budget (p50, p99, max) and the longest full collection of Python's
garbage collector meanwhile: a search that keeps its objects between moves makes those long.

Run from the repository root: python -m bench.bao_bots [--pairs A/B ...] [--overrun SPEC ...]
[--games N] [--time SECONDS] [--out FILE]. Prints figures only.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.bots import overrun_figures
from engine.bao import BaoPosition
from engine.bao.notation import Move
from engine.search.bot import Budget
from engine.search.match import run_match
from engine.search.registry import make_bot

PAIRS = ("bao-alphabeta/random", "bao-alphabeta/mcts", "bao-deep/bao-alphabeta")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", nargs="+", default=list(PAIRS), metavar="A/B")
    parser.add_argument("--games", type=int, default=20, help="games a pair")
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="append the game records here")
    parser.add_argument("--overrun", nargs="+", default=None, metavar="SPEC")
    args = parser.parse_args()
    if args.overrun:
        for spec in args.overrun:
            overrun(spec, args.games, args.time)
        return
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


def overrun(spec: str, games: int, seconds: float) -> None:
    """Two of `spec` (seeds 1 and 2) play `games` games; print the moves' overrun in ms."""
    collections: list[float] = []
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif info["generation"] == 2:
            collections.append(1000 * (time.perf_counter() - started[0]))

    bots = [make_bot(spec, seed=1), make_bot(spec, seed=2)]
    for bot in bots:
        bot.prepare()
    overruns = []
    gc.callbacks.append(timed)
    try:
        for _ in range(games):
            position = BaoPosition()
            while not position.is_terminal():
                start = time.perf_counter()
                decision = bots[position.current_player].choose(position, Budget(seconds=seconds))
                overruns.append(1000 * (time.perf_counter() - start - seconds))
                assert isinstance(decision.move, Move)
                position.apply(decision.move)
    finally:
        gc.callbacks.remove(timed)
    print(
        f"{spec} at {seconds:g} s a move, {games} games, {len(overruns)} moves: overrun "
        f"{overrun_figures(overruns)}; {len(collections)} full collections, the longest "
        f"{max(collections, default=0):.0f} ms",
        flush=True,
    )


if __name__ == "__main__":
    main()
