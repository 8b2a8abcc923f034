"""The `arena` command line: engine subcommands (perft, show, moves, bots, match, tournament,
explain, fit); `show --svg` draws the position as a picture (engine.picture). A position comes
from a setup, position text or a file of game records; `--game` picks a registered game other
than Amazons (`perft`, `show`, `moves` and `explain` reach it through the generic interface of
`engine.game`).

Bad input (a malformed position, an unknown setup, a bad depth) prints one line naming the
problem to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, TextIO, runtime_checkable

from engine.amazons import SETUPS, Move, Position, RegionKind
from engine.cgt import cli as cgt_cli
from engine.errors import NotationError
from engine.game import GameRules, GameState, get_game
from engine.picture import game_caption, game_svg
from engine.progress import progress_printer
from engine.records import read_records
from engine.records_cli import add_record_options, game_option, recorded_game, recorded_position
from engine.search.explain import MAX_EXPLAIN_DEPTH, explain
from engine.search.fitting import fit_records
from engine.search.match import run_match
from engine.search.registry import BOTS, make_bot
from engine.search.tournament import run_tournament

__all__ = ["add_commands", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except (NotationError, ValueError) as error:
        parser.exit(2, f"arena {args.command}: error: {error}\n")
    except BrokenPipeError:
        return 0
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Amazons Arena: play, watch and study the Game of the Amazons."
    )
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the engine's subcommands to an `arena` parser (the server adds its own)."""
    perft = commands.add_parser(
        "perft",
        help="count the leaves of the legal move tree",
        description="Count the leaves of the legal move tree DEPTH moves deep. With --fen - "
        "read one position per line from stdin and print one count per line.",
    )
    perft.add_argument("depth", type=_depth, metavar="DEPTH")
    _add_position_options(perft, allow_stdin=True)
    perft.add_argument(
        "--divide", action="store_true", help="print the count below each legal move, then total"
    )
    perft.set_defaults(run=_perft)

    show = commands.add_parser(
        "show",
        help="print a board with coordinates and its regions, or draw it as an SVG picture",
        description="Print the board with coordinates, the side to move and (Amazons) the "
        "regions. With --svg FILE, write it instead as a standalone SVG picture with its "
        "coordinates and, for a position of a game record, the last move marked.",
    )
    _add_position_options(show, allow_stdin=False)
    show.add_argument(
        "--svg", type=Path, default=None, metavar="FILE", help="write an SVG picture to FILE"
    )
    show.set_defaults(run=_show)

    moves = commands.add_parser("moves", help="list the legal moves of a position")
    _add_position_options(moves, allow_stdin=False)
    moves.set_defaults(run=_moves)

    bots = commands.add_parser("bots", help="list the bots and their parameters")
    bots.set_defaults(run=_bots)

    match = commands.add_parser(
        "match",
        help="play bots against each other and report the score",
        description="Play BOT_A against BOT_B with alternating colours. Ctrl-C stops the match "
        "and keeps the finished games.",
    )
    match.add_argument("bot_a", metavar="BOT_A", help="bot spec, e.g. mcts:c=0.8")
    match.add_argument("bot_b", metavar="BOT_B")
    _add_match_options(match)
    match.set_defaults(run=_match)

    tournament = commands.add_parser(
        "tournament",
        help="play every pair of bots and print a cross table and a rating list",
    )
    tournament.add_argument("bots", nargs="+", metavar="BOT", help="two or more bot specs")
    _add_match_options(tournament)
    tournament.set_defaults(run=_tournament)

    explain_parser = commands.add_parser(
        "explain",
        help="print an alpha-beta search tree: the states considered and the cut-offs",
        description="Search a position with plain alpha-beta DEPTH plies deep and print the "
        "tree: each state considered with its move and value, indented by ply, and each "
        "cut-off with the bound that caused it and the moves it spared.",
    )
    explain_parser.add_argument(
        "--game", default="amazons", metavar="NAME", help="game: amazons (default) or bao"
    )
    explain_parser.add_argument(
        "--fen", default=None, metavar="TEXT", help="position text (default: the game's start)"
    )
    explain_parser.add_argument(
        "--depth",
        type=int,
        default=2,
        metavar="D",
        help=f"plies to search, 1 to {MAX_EXPLAIN_DEPTH} (default 2)",
    )
    explain_parser.add_argument(
        "--lines",
        type=_positive(int),
        default=200,
        metavar="N",
        help="lines of tree printed at most (default 200)",
    )
    explain_parser.set_defaults(run=_explain)

    fit = commands.add_parser(
        "fit",
        help="fit the evaluation's weights to the results of recorded games",
        description="Fit the weights of the evaluation's terms to the results of recorded games "
        "(match --out files) by logistic regression, and compare them with Lieberum's on games "
        "held out.",
    )
    fit.add_argument("records", nargs="+", type=Path, metavar="FILE", help="game records")
    fit.add_argument(
        "--slope",
        type=_positive(float),
        default=0.3,
        help="print the weights divided by this slope too, as invader holds them (default 0.3)",
    )
    fit.set_defaults(run=_fit)

    cgt_cli.add_commands(commands)


def _add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", type=_positive(int), default=10, metavar="N", help="games a pair (default 10)"
    )
    parser.add_argument(
        "--time",
        type=_positive(float),
        default=1.0,
        metavar="SECONDS",
        help="time a move (default 1)",
    )
    parser.add_argument(
        "--game",
        default="amazons",
        metavar="GAME",
        type=str.lower,
        help="the game the bots play (default amazons; bao too)",
    )
    parser.add_argument(
        "--setup",
        default=None,
        metavar="NAME",
        help="start position: " + ", ".join(SETUPS) + " (default 10x10); for bao: zanzibar",
    )
    parser.add_argument(
        "--jobs",
        type=_positive(int),
        default=1,
        metavar="J",
        help="worker processes playing games at once (default 1)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game's bots")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE", help="game records")


def _add_position_options(parser: argparse.ArgumentParser, allow_stdin: bool) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--setup",
        default=None,
        metavar="NAME",
        help="named start: 10x10 (default), 8x8, 6x6; for --game bao: zanzibar",
    )
    group.add_argument(
        "--fen",
        default=None,
        metavar="TEXT",
        help="position text of the game, e.g. '3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w'"
        + (" (- reads one per line from stdin)" if allow_stdin else ""),
    )
    add_record_options(parser, group)


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text} is not positive")
        return value

    return parse


def _depth(text: str) -> int:
    try:
        depth = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth {text!r} is not a whole number") from None
    if depth < 0:
        raise argparse.ArgumentTypeError(f"depth {depth} is negative")
    return depth


def _positions(args: argparse.Namespace) -> Iterator[Position]:
    recorded = recorded_position(args)
    if recorded is not None:
        yield recorded
    elif args.fen == "-":
        for number, line in enumerate(sys.stdin, 1):
            if line.strip():
                try:
                    yield Position.parse(line)
                except NotationError as error:
                    raise NotationError(f"stdin line {number}: {error}") from None
    elif args.fen is not None:
        yield Position.parse(args.fen)
    else:
        yield Position.setup(args.setup or "10x10")


@runtime_checkable
class _CountsItsTree(Protocol):
    """A state with its own (fast) perft and divide, as Amazons' and Bao's positions have."""

    def perft(self, depth: int) -> int: ...

    def divide(self, depth: int) -> Sequence[tuple[object, int]]: ...


@runtime_checkable
class _Drawn(Protocol):
    """A state that draws itself as a board diagram."""

    def diagram(self) -> str: ...


@runtime_checkable
class _Reported(Protocol):
    """A state that says in its own words who is to move or how the game ended."""

    def result(self) -> str: ...


def _states(args: argparse.Namespace, game: GameRules[object]) -> Iterator[GameState[object]]:
    """The positions of a game other than Amazons that the options name."""
    recorded_position(args)  # refuses --record and --ply with a game named
    if args.fen == "-":
        for number, line in enumerate(sys.stdin, 1):
            if line.strip():
                try:
                    yield game.parse_state(line.strip())
                except NotationError as error:
                    raise NotationError(f"stdin line {number}: {error}") from None
    elif args.fen is not None:
        yield game.parse_state(args.fen)
    else:
        yield game.new_state(args.setup)


def _walk(state: GameState[object], depth: int) -> int:
    """Perft through the generic interface: apply and undo every move."""
    if depth == 0:
        return 1
    moves = list(state.legal_moves)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        state.apply(move)
        total += _walk(state, depth - 1)
        state.undo()
    return total


def _divide(state: GameState[object], depth: int) -> list[tuple[object, int]]:
    if isinstance(state, _CountsItsTree):
        return list(state.divide(depth))
    divided: list[tuple[object, int]] = []
    for move in list(state.legal_moves):
        state.apply(move)
        divided.append((move, _walk(state, depth - 1)))
        state.undo()
    return divided


def _game_result(state: GameState[object], game: GameRules[object]) -> str:
    if isinstance(state, _Reported):
        return state.result()
    names = game.info.player_names
    if not state.is_terminal():
        return f"{names[state.current_player]} to move, {len(state.legal_moves)} legal moves"
    returns = state.returns()
    if returns[0] == returns[1]:
        return "game over: drawn"
    return f"game over: {names[0 if returns[0] > returns[1] else 1]} wins"


def _perft_game(args: argparse.Namespace, game: GameRules[object]) -> int:
    for state in _states(args, game):
        if args.divide:
            divided = _divide(state, args.depth)
            for move, count in divided:
                print(f"{state.format_move(move)} {count}")
            print(f"total {sum(count for _, count in divided)}", flush=True)
        elif isinstance(state, _CountsItsTree):
            print(state.perft(args.depth), flush=args.fen == "-")
        else:
            print(_walk(state, args.depth), flush=args.fen == "-")
    return 0


def _show_game(args: argparse.Namespace, game: GameRules[object]) -> int:
    (state,) = _states(args, game)
    if isinstance(state, _Drawn):
        print(state.diagram())
    print(state.text())
    print(_game_result(state, game))
    return 0


def _moves_game(args: argparse.Namespace, game: GameRules[object]) -> int:
    (state,) = _states(args, game)
    if state.is_terminal():
        # On stderr: standard output stays one legal move a line, none here.
        print(_game_result(state, game), file=sys.stderr)
    for move in state.legal_moves:
        print(state.format_move(move))
    return 0


def _other_game(args: argparse.Namespace) -> GameRules[object] | None:
    """The game `--game` names when it is not Amazons (an unknown name is an error)."""
    name = game_option(args)
    game = get_game(name)
    return None if name == "amazons" else game


def _perft(args: argparse.Namespace) -> int:
    game = _other_game(args)
    if game is not None:
        return _perft_game(args, game)
    for position in _positions(args):
        if args.divide:
            divided = sorted(position.divide(args.depth), key=lambda item: _move_order(item[0]))
            for move, count in divided:
                print(f"{move} {count}")
            print(f"total {sum(count for _, count in divided)}", flush=True)
        else:
            print(position.perft(args.depth), flush=args.fen == "-")
    return 0


def _show(args: argparse.Namespace) -> int:
    if args.svg is not None:
        return _show_svg(args)
    game = _other_game(args)
    if game is not None:
        return _show_game(args, game)
    (position,) = _positions(args)
    print(position.diagram())
    print(position.text())
    if position.is_terminal():
        print(f"{position.side_to_move} to move has no legal move: {position.winner} wins")
    else:
        print(f"{position.side_to_move} to move, {position.count_moves()} legal moves")
    regions = position.regions()
    print(f"{len(regions)} region{'s' if len(regions) != 1 else ''}:")
    for number, region in enumerate(regions, 1):
        kind = str(region.kind)
        if region.kind is RegionKind.SETTLED:
            kind += f" ({region.owner})"
        amazons = "".join(
            f", {name} {' '.join(map(str, squares))}"
            for name, squares in (("white", region.white), ("black", region.black))
            if squares
        )
        print(f"  {number}. {kind}: {len(region.squares)} squares, {region.empty} empty{amazons}")
    return 0


def _show_svg(args: argparse.Namespace) -> int:
    found = recorded_game(args)
    if found is not None:
        record, ply = found
        caption = game_caption(record.white, record.black, record.moves, ply)
        try:
            picture = game_svg(record.game, record.start, record.moves, ply, caption)
        except ValueError as error:
            raise NotationError(f"{args.record}: {error}") from None
    else:
        name = game_option(args)
        game = get_game(name)
        state = game.parse_state(args.fen) if args.fen is not None else game.new_state(args.setup)
        picture = game_svg(name, state.text(), [], 0)
    try:
        args.svg.write_text(picture, encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write {args.svg}: {error.strerror or error}") from None
    print(f"board picture written to {args.svg}")
    return 0


def _moves(args: argparse.Namespace) -> int:
    game = _other_game(args)
    if game is not None:
        return _moves_game(args, game)
    (position,) = _positions(args)
    if position.is_terminal():
        # On stderr: standard output stays one legal move a line, none here.
        print(
            f"game over: {position.side_to_move} to move has no legal move; {position.winner} wins",
            file=sys.stderr,
        )
    for move in sorted(position.legal_moves, key=_move_order):
        print(move)
    return 0


def _bots(args: argparse.Namespace) -> int:
    for bot_type in BOTS.values():
        print(bot_type.describe())
    return 0


def _match(args: argparse.Namespace) -> int:
    with _records(args.out) as out:
        result = run_match(
            args.bot_a,
            args.bot_b,
            games=args.games,
            seconds=args.time,
            setup=_match_setup(args),
            jobs=args.jobs,
            out=out,
            seed=args.seed,
            progress=progress_printer(),
            game=args.game,
        )
    print(result.table())
    return 0


def _tournament(args: argparse.Namespace) -> int:
    if len(args.bots) < 2:
        raise NotationError("a tournament needs two bots or more")
    for spec in args.bots:
        make_bot(spec)
    with _records(args.out) as out:
        result = run_tournament(
            args.bots,
            games=args.games,
            seconds=args.time,
            setup=_match_setup(args),
            jobs=args.jobs,
            out=out,
            progress=progress_printer(),
            game=args.game,
        )
    print(result.cross_table())
    print()
    print(result.rating_list())
    return 0


def _match_setup(args: argparse.Namespace) -> str:
    """The setup named, or the game's default; an unknown game or setup is an error."""
    game = get_game(args.game)
    setup: str = args.setup or game.info.default_setup
    game.new_state(setup)
    return setup


def _explain(args: argparse.Namespace) -> int:
    print(explain(args.game, args.fen, args.depth, args.lines))
    return 0


def _fit(args: argparse.Namespace) -> int:
    records = [record for path in args.records for record in read_records(path)]
    print(fit_records(records).table(args.slope))
    return 0


def _records(path: Path | None) -> contextlib.AbstractContextManager[TextIO | None]:
    return path.open("a") if path else contextlib.nullcontext()


def _move_order(move: Move) -> tuple[int, ...]:
    """Moves grouped by origin, then target, then arrow, each by file then rank."""
    return tuple(c for s in (move.origin, move.target, move.arrow) for c in (s.file, s.rank))
