"""The `arena` commands of combinatorial game theory: `cgt eval` (a game in CGSuite notation,
to its canonical form and properties), `cgt value` (a position's value), `cgt thermograph` (a
game's thermograph drawn) and `analyze` (a position region by region). Bad input exits with
status 2 and one line naming the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from engine.amazons.notation import Side
from engine.amazons.position import Position
from engine.cgt import amazons, endgame_cli
from engine.cgt.amazons import BudgetExceededError
from engine.cgt.analysis import PositionAnalysis, analyze
from engine.cgt.form import Form
from engine.cgt.thermograph_drawing import thermograph_svg, thermograph_text
from engine.errors import NotationError
from engine.game import get_game
from engine.game_review import review_record
from engine.judge import DEFAULT_EFFORT, MAX_EFFORT, Judgement, judge
from engine.progress import progress_printer
from engine.records_cli import add_record_options, game_option, recorded_game

__all__ = ["add_commands"]

_STDIN = "-"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `cgt` (with `eval` and `value`) and `analyze` to an `arena` parser."""
    cgt = commands.add_parser(
        "cgt",
        help="combinatorial game theory: canonical forms of games and of positions",
        description="Canonical forms in CGSuite's notation (Left = Black, Right = White).",
    )
    actions = cgt.add_subparsers(dest="cgt_command", required=True, metavar="ACTION")

    evaluate = actions.add_parser(
        "eval",
        help="the canonical form of a game written in CGSuite notation",
        description="Print the canonical form of EXPR, a game in CGSuite notation ('{3||2|1}', "
        "'+-1 + ^*', '{0|^*}'). With EXPR - read one game per line from stdin and print one "
        "result per line. Put -- before an EXPR that starts with a minus sign.",
    )
    evaluate.add_argument("expression", metavar="EXPR")
    evaluate.add_argument(
        "--props",
        action="store_true",
        help="also print the left and right stops, mean, temperature and outcome class",
    )
    evaluate.set_defaults(run=_eval)

    value = actions.add_parser(
        "value",
        help="the canonical form of a position's value",
        description="Print the value of a position (the sum of its regions' values, Left = "
        "Black) as a canonical form. With --fen - read one position per line from stdin.",
    )
    value.add_argument("--fen", required=True, metavar="TEXT", help="position text, or -")
    value.add_argument(
        "--time",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="give up on a position after this long and print ? (default: no limit)",
    )
    value.set_defaults(run=_value)

    drawing = actions.add_parser(
        "thermograph",
        help="draw a game's thermograph: text in the terminal, or an SVG picture",
        description="Draw the thermograph of VALUE, a game in CGSuite notation ('{2|-1}', "
        "'{3||2|1}', '+-1'): temperature up the page, values along it with Left's (Black's) "
        "to the left, the left wall from the left stop, the right wall from the right stop and "
        "the mast at the mean from the temperature up. Without --svg, a text drawing.",
    )
    drawing.add_argument("value", metavar="VALUE")
    drawing.add_argument(
        "--svg", type=Path, default=None, metavar="FILE", help="write an SVG picture to FILE"
    )
    drawing.set_defaults(run=_thermograph)

    analysis = commands.add_parser(
        "analyze",
        help="a position's regions, their values, who wins and the winning moves; or a "
        "recorded game reviewed move by move",
        description="List every region of a position with its kind, size, amazons, canonical "
        "value, mean and temperature; then their sum, who wins with each side to move and the "
        "moves that keep a win for the side to move (a value not found within the time given "
        "prints as ?); then the engine's judgement, for Bao alone: White's chance to win (exact "
        "once the regions are solved) and its best line. With --record FILE and no --ply, "
        "review the whole game (either game): "
        "every position judged by the engine (White's chance to win, exact once solved), "
        "each move marked inaccuracy, mistake or blunder by the mover's drop in that chance, "
        "with the engine's better move, and each player's count of marks and average loss.",
    )
    sources = analysis.add_mutually_exclusive_group(required=True)
    sources.add_argument("--fen", metavar="TEXT", help="position text")
    add_record_options(analysis, sources)
    analysis.add_argument(
        "--time",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="time for the whole analysis (default 10)",
    )
    analysis.add_argument(
        "--effort",
        type=_effort,
        default=DEFAULT_EFFORT,
        metavar="N",
        help=f"the engine's work a position, 1 to {MAX_EFFORT}, each step twice the last "
        f"(default {DEFAULT_EFFORT}: about half a second a 10x10 position)",
    )
    analysis.add_argument("--json", action="store_true", help="print one JSON object")
    analysis.set_defaults(run=_analyze)

    endgame_cli.add_commands(commands)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def _items(argument: str) -> Iterator[tuple[str, str]]:
    """(text, where) for the argument, or for each non-blank stdin line when it is -."""
    if argument != _STDIN:
        yield argument, ""
        return
    for number, line in enumerate(sys.stdin, 1):
        if line.strip():
            yield line.strip(), f"stdin line {number}: "


def _eval(args: argparse.Namespace) -> int:
    for text, where in _items(args.expression):
        try:
            form = Form.parse(text)
        except NotationError as error:
            raise NotationError(f"{where}{error}") from None
        line = str(form)
        if args.props:
            line += (
                f" left_stop={form.left_stop} right_stop={form.right_stop} mean={form.mean}"
                f" temperature={form.temperature} outcome={form.outcome}"
            )
        print(line, flush=True)
    return 0


def _thermograph(args: argparse.Namespace) -> int:
    game = Form.parse(args.value)
    if args.svg is None:
        print(thermograph_text(game), end="")
        return 0
    try:
        args.svg.write_text(thermograph_svg(game), encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write {args.svg}: {error.strerror or error}") from None
    print(f"thermograph of {game} written to {args.svg}")
    return 0


def _value(args: argparse.Namespace) -> int:
    for text, where in _items(args.fen):
        try:
            position = Position.parse(text)
        except NotationError as error:
            raise NotationError(f"{where}{error}") from None
        try:
            print(amazons.position_value(position, seconds=args.time), flush=True)
        except BudgetExceededError:
            print("?", flush=True)
    return 0


def _effort(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_EFFORT:
        raise argparse.ArgumentTypeError(f"{value} is not from 1 to {MAX_EFFORT}")
    return value


def _analyze(args: argparse.Namespace) -> int:
    if args.record is not None and args.ply is None:
        return _review(args)
    found = recorded_game(args)
    if found is None:
        game = game_option(args)
        text = get_game(game).parse_state(args.fen).text()
    else:
        record, ply = found
        game, text = record.game, record.replay(ply).text()
    judgement = judge(game, text, effort=args.effort)
    engine = {
        name: getattr(judgement, name)
        for name in ("white_wins", "line", "depth", "playouts", "exact", "note")
    }
    if game != "amazons":  # no regions: the engine's judgement alone
        if args.json:
            print(json.dumps({"position": text, "engine": engine}))
        else:
            print("\n".join([f"position {text}", *_judgement_lines(judgement)]))
        return 0
    result = analyze(Position.parse(text), seconds=args.time)
    if args.json:
        print(json.dumps({**result.as_dict(), "engine": engine}))
    else:
        print("\n".join([*_report(result), *_judgement_lines(judgement)]))
    return 0


def _judgement_lines(judgement: Judgement) -> list[str]:
    if judgement.playouts:
        behind = f"{judgement.playouts:,} playouts"
    elif judgement.depth:
        behind = f"{judgement.depth} plies searched"
    else:
        behind = "perfect play"
    line = " ".join(judgement.line) or "none, the game is over"
    return [f"judgement: {judgement.note}", f"best line ({behind}): {line}"]


def _review(args: argparse.Namespace) -> int:
    """The whole recorded game reviewed, with progress on stderr."""
    found = recorded_game(args)
    assert found is not None
    record, _ = found
    title = f"game {1 if args.game is None else args.game} of {args.record}"
    show = progress_printer()

    def progress(done: int, total: int) -> None:
        show(f"{title}: {done} of {total} positions judged")

    reviewed = review_record(record, effort=args.effort, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)  # past the redrawn progress line
    print(reviewed.json() if args.json else reviewed.text(title))
    return 0


def _report(result: PositionAnalysis) -> list[str]:
    count = len(result.regions)
    lines = [
        f"position {result.position.text()}",
        f"{count} region{'s' if count != 1 else ''}:",
    ]
    for number, found in enumerate(result.regions, 1):
        region = found.region
        lines.append(
            f"  {number}. {region.kind}: {len(region.squares)} squares, "
            f"white {len(region.white)}, black {len(region.black)}: {_value_text(found.value)}"
        )
    lines.append(f"sum: {_value_text(result.total)}")
    for side in (Side.BLACK, Side.WHITE):
        won = result.winner(side)
        lines.append(f"{side} to move: {'?' if won is None else f'{won} wins'}")
    mover = result.position.side_to_move
    if result.best_moves is None:
        lines.append(f"best moves for {mover}: ?")
    elif not result.best_moves:
        lines.append(f"best moves for {mover}: none, every move loses")
    else:
        moves = " ".join(str(m) for m in result.best_moves)
        lines.append(f"best moves for {mover} ({len(result.best_moves)}): {moves}")
    return lines


def _value_text(value: Form | None) -> str:
    if value is None:
        return "?"
    return f"{value} (mean {value.mean}, temperature {value.temperature})"
