"""Ladder pairing speed: how long `pair_round` takes for a round of N connected bots (ratings
spread like a real ladder's, a few owners with many bots, one bot in ten playing several games
at once, a fifth already busy), with a history of earlier rounds behind it. Medians of several
rounds, the first (a warm-up) left out.

Run from the repository root: python -m bench.ladder_pairing [--bots N ...] [--rounds R].
Prints figures only.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from server.ladder.pairing import Member, PairHistory, pair_round


def _members(count: int, rng: random.Random) -> list[Member]:
    members = []
    for i in range(count):
        # A tenth of the owners run many bots; the rest one or two each.
        owner = f"team{i % 10}" if rng.random() < 0.2 else f"owner{i // 2}"
        limit = rng.choice((2, 3, 4)) if rng.random() < 0.1 else 1
        playing = rng.randint(0, limit) if rng.random() < 0.2 else 0
        members.append(Member(f"bot{i}", owner, rng.gauss(1500.0, 350.0), playing, limit))
    return members


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", nargs="+", type=int, default=[100, 1000, 5000])
    parser.add_argument("--rounds", type=int, default=11, help="timed rounds per size")
    args = parser.parse_args(argv)
    for count in args.bots:
        rng = random.Random(count)
        members = _members(count, rng)
        history = PairHistory()
        seconds, games = [], []
        for _ in range(args.rounds + 1):
            start = time.perf_counter()
            paired = pair_round(members, history, rng)
            seconds.append(time.perf_counter() - start)
            games.append(len(paired))
            for game in paired:
                history.record(game)
        timed = seconds[1:]
        print(
            f"pairing a round of {count:,} bots: median {1000 * statistics.median(timed):.1f} ms"
            f" (min {1000 * min(timed):.1f}, max {1000 * max(timed):.1f}; {len(timed)} rounds"
            f", {statistics.median(games[1:]):.0f} games a round)"
        )


if __name__ == "__main__":
    main()
