"""Calibrate a ladder's anchors: its anchors play each other on the ladder's terms (its game,
setup and clock, each at its strength, each move budgeted as `arena worker` budgets it and
charged on the server's clock with the bot allowance), every pair the same number of games with
colours alternating, and the games are fitted as the standings fit them, the weakest anchor held
at its rating. Prints each pair's score, then each anchor's fixed rating beside the fitted one
with its 95% interval: the ratings to set in server/ladder/anchors.py (docs/ladder.md,
"Calibrating the anchors").

The games are played in this process, without a server or a queue, so a move's time is its
thinking only: what a house bot gets from a worker with a free slot (docs/ladder.md, "Workers").

Run from the repository root: python -m bench.ladder_calibrate LADDER [--games N] [--hours H]
[--seed S]. LADDER is a default ladder (main, fast, bao), whose terms it knows, or a ladder of
an operator's own with its terms given: `--time BASE+INC [--game G] [--setup S]`, as
`arena ladder create` takes them (its anchors are those `anchors_of` gives its name and game).
Each finished game is printed as it ends, so a run stopped early still shows what it played,
and `--fit LOG...` fits the games that runs printed (runs on several machines or days, added
up) without playing any.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.game import get_game
from engine.search.budget import HOUSE_BOT, Turn
from engine.search.registry import make_bot
from server.clock import Clock, LagPolicy, LateMoveError
from server.ladder.anchors import Anchor, anchors_of
from server.ladder.results import Result
from server.ladder.standing import standings
from server.ladder.store import DEFAULT_LADDERS, Ladder, parse_time
from server.protocol import DEFAULT_GAME, Colour

__all__ = ["play"]

_COLOURS = (Colour.WHITE, Colour.BLACK)  # as the engine numbers its players
# A game as a run prints it.
_GAME = re.compile(r"(?P<white>\S+) - (?P<black>\S+): (?P<winner>\S+) by (?P<ending>.+)")


def play(ladder: Ladder, white: Anchor, black: Anchor, seed: int) -> tuple[bool, str]:
    """One game between two anchors on the ladder's terms: whether White won, and how it
    ended (`no legal move` or `time forfeit`)."""
    rules = get_game(ladder.game)
    position: Any = rules.new_state(ladder.setup)
    sides = (white, black)
    bots = (make_bot(white.bot, seed=seed), make_bot(black.bot, seed=seed + 1))
    policy = LagPolicy.for_bot(ladder.time.base, ladder.time.increment)
    clock = Clock.start(ladder.time.base, ladder.time.increment, _now(), white=policy, black=policy)
    while not position.is_terminal():
        side = position.current_player
        now = _now()
        first_move = not clock.running
        own = clock.remaining(clock.to_move, now)
        turn = Turn(
            own_ms=own,
            opponent_ms=clock.remaining(clock.to_move.other, now),
            increment_ms=clock.increment_ms,
            first_move_ms=clock.first_move_ms if first_move else None,
            elapsed=clock.elapsed(now) / 1000 if first_move else 0.0,
        )
        budget = HOUSE_BOT.budget(turn, strength=sides[side].strength / 10)
        move = bots[side].choose(position, budget).move
        following = position.clone()
        following.apply(move)
        try:
            clock, _ = clock.charge(_now(), 0, _COLOURS[following.current_player])
        except LateMoveError:
            return side == 1, "time forfeit"
        position = following
    white_return, black_return = position.returns()
    return white_return > black_return, "no legal move"


def _now() -> int:
    return int(time.time() * 1000)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ladder", help="a default ladder's name, or a name of one's own")
    parser.add_argument("--time", metavar="BASE+INC", help="the terms of a ladder of one's own")
    parser.add_argument("--game", default=DEFAULT_GAME)
    parser.add_argument("--setup", help="default: the game's standard setup")
    parser.add_argument("--games", type=int, default=40, help="games a pair (default 40)")
    parser.add_argument("--hours", type=float, default=1.0, help="stop after this long anyway")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--fit", nargs="+", type=Path, metavar="LOG", help="fit the games these runs printed"
    )
    args = parser.parse_args(argv)
    try:
        ladder = _ladder(args.ladder, args.time, args.game, args.setup)
    except ValueError as error:
        parser.error(str(error))
    anchors = anchors_of(ladder.name, ladder.game)
    if len(anchors) < 2:
        parser.error(f"ladder {ladder.name} of {ladder.game} has {len(anchors)} anchors to play")
    if args.fit:
        print(f"ladder {ladder.name}: {ladder.terms}, the games of {len(args.fit)} runs")
        _report(anchors, *_read(args.fit, {anchor.spec: anchor.bot for anchor in anchors}))
        return
    deadline = time.monotonic() + args.hours * 3600
    print(f"ladder {ladder.name}: {ladder.terms}, {args.games} games a pair", flush=True)
    results: list[Result] = []
    endings: Counter[str] = Counter()
    pairs = list(itertools.combinations(anchors, 2))
    # Round after round of every pair, so a run stopped early has played every pair alike.
    for index in range(args.games):
        if time.monotonic() > deadline:
            print(f"stopped at the time limit after {len(results)} games", flush=True)
            break
        for first, second in pairs:
            white, black = (first, second) if index % 2 == 0 else (second, first)
            white_won, ending = play(ladder, white, black, args.seed + 2 * len(results))
            endings[ending] += 1
            results.append(Result(white.bot, black.bot, white_won))
            winner = white if white_won else black
            print(f"{white.spec} - {black.spec}: {winner.spec} by {ending}", flush=True)
    _report(anchors, results, endings)


def _ladder(name: str, time: str | None, game: str, setup: str | None) -> Ladder:
    """The default ladder `name`, or a ladder of that name on the terms given."""
    if time is None:
        for ladder in DEFAULT_LADDERS:
            if ladder.name == name.lower():
                return ladder
        names = ", ".join(ladder.name for ladder in DEFAULT_LADDERS)
        raise ValueError(f"{name} is not a default ladder ({names}): give its terms, --time")
    if setup is None:
        setup = get_game(game).info.default_setup
    return Ladder(name, setup, parse_time(time), game)


def _read(logs: Sequence[Path], bots: dict[str, str]) -> tuple[list[Result], Counter[str]]:
    """The games the runs printed in `logs` (`WHITE - BLACK: WINNER by ENDING`), between the
    anchors whose specs `bots` maps to their names."""
    results: list[Result] = []
    endings: Counter[str] = Counter()
    for log in logs:
        for line in log.read_text().splitlines():
            found = _GAME.fullmatch(line)
            if found is None or not {found["white"], found["black"]} <= bots.keys():
                continue
            results.append(
                Result(
                    bots[found["white"]], bots[found["black"]], found["winner"] == found["white"]
                )
            )
            endings[found["ending"]] += 1
    return results, endings


def _report(anchors: Sequence[Anchor], results: list[Result], endings: Counter[str]) -> None:
    print(f"\n{len(results)} games; endings: {dict(endings)}")
    for first, second in itertools.combinations(anchors, 2):
        games = [r for r in results if {r.white, r.black} == {first.bot, second.bot}]
        won = sum((r.white == second.bot) == r.white_won for r in games)
        print(f"  {second.spec} - {first.spec}: {won} of {len(games)}")
    weakest = min(anchors, key=lambda anchor: anchor.rating)
    fitted = {row.name: row for row in standings(results, {weakest.bot: weakest.rating})}
    print(f"\nthe anchors fitted, {weakest.spec} held at {weakest.rating:.0f}:")
    for anchor in anchors:
        row = fitted.get(anchor.bot)
        found = "no games" if row is None else f"{row.rating:.0f} ±{row.margin:.0f}"
        print(f"  {anchor.spec:<16} fixed {anchor.rating:>5.0f}   fitted {found}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
