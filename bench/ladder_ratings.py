"""Ladder ratings on a simulated ladder: bots of known Elo, two of them anchors held at their
true strength, paired round after round by the ladder's pairing on their Glicko-2 ratings, each
game won by the stronger side as often as Elo says. Prints the standings of the maximum-likelihood
rating list, the true strengths beside it, whether the list ranks the bots in their known order,
and whether every interval is under ±100 Elo.

Run from the repository root: python -m bench.ladder_ratings [--bots N] [--gap ELO]
[--games G] [--seed S]. Prints figures only.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from server.glicko import Rating
from server.ladder.pairing import Member, PairHistory, pair_round
from server.ladder.rating import anchor_rating, rate_ladder_game
from server.ladder.results import Result
from server.ladder.standing import render_standings, standings


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--gap", type=float, default=120.0, help="Elo between neighbours")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    strength = {f"bot{i + 1}": 1200.0 + args.gap * i for i in range(args.bots)}
    weakest, strongest = min(strength, key=strength.get), max(strength, key=strength.get)
    anchors = {name: strength[name] for name in (weakest, strongest)}
    glicko = {
        name: anchor_rating(anchors[name]) if name in anchors else Rating() for name in strength
    }
    history = PairHistory()
    results: list[Result] = []
    while len(results) < args.games:
        members = [Member(name, name, glicko[name].rating) for name in strength]
        for game in pair_round(members, history, rng)[: args.games - len(results)]:
            history.record(game)
            expected = 1.0 / (1.0 + 10.0 ** ((strength[game.black] - strength[game.white]) / 400))
            result = Result(game.white, game.black, rng.random() < expected)
            results.append(result)
            glicko[game.white], glicko[game.black] = rate_ladder_game(
                glicko[game.white],
                glicko[game.black],
                result.white_won,
                white_is_anchor=game.white in anchors,
                black_is_anchor=game.black in anchors,
            )

    rows = standings(results, anchors)
    print(
        f"{len(results)} games among {args.bots} bots {args.gap:.0f} Elo apart "
        f"(anchors {weakest} and {strongest}, seed {args.seed})\n"
    )
    print(render_standings(rows))
    for row in rows:
        inside = abs(row.rating - strength[row.name]) <= row.margin
        print(
            f"{row.name}: true {strength[row.name]:.0f}, listed {row.rating:.0f}"
            f"{'' if row.anchor else ' ± ' + format(row.margin, '.0f')}"
            f"{'' if row.anchor else (' (inside)' if inside else ' (OUTSIDE)')}"
        )
    known = sorted(strength, key=strength.__getitem__, reverse=True)
    widest = max(row.margin for row in rows)
    print(f"\norder matches the known one: {'yes' if [r.name for r in rows] == known else 'no'}")
    print(f"widest interval ±{widest:.0f} Elo: all under ±100: {'yes' if widest < 100 else 'no'}")


if __name__ == "__main__":
    main()
