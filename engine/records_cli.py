"""`--record FILE --game N --ply K`: the options that take a position from a file of game
records (match --out, archive), for `arena show`, `moves`, `perft` and `analyze`. Without
--record, `--game` names the game instead (`--game bao`; see `game_option`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.amazons import Position
from engine.errors import NotationError
from engine.records import GameRecord, read_record

__all__ = ["add_record_options", "game_option", "recorded_game", "recorded_position"]

DEFAULT_GAME = "amazons"


def add_record_options(
    parser: argparse.ArgumentParser, sources: argparse._MutuallyExclusiveGroup
) -> None:
    """`--record` as one more source of a position in `sources`; `--game` and `--ply` pick it."""
    sources.add_argument(
        "--record", type=Path, default=None, metavar="FILE", help="a file of game records"
    )
    parser.add_argument(
        "--game",
        type=_game_or_number,
        default=None,
        metavar="GAME",
        help=f"the game by name (default {DEFAULT_GAME}); with --record, the game in the file "
        "by number, counted from 1 (default 1)",
    )
    parser.add_argument(
        "--ply",
        type=int,
        default=None,
        metavar="K",
        help="with --record: the position after K moves, 0 for the start (default: the last)",
    )


def _game_or_number(text: str) -> int | str:
    """A record's number in its file (digits) or a game's name (anything else)."""
    return int(text) if text.strip().lstrip("-").isdigit() else text.strip().lower()


def game_option(args: argparse.Namespace) -> str:
    """The game that `--game` names (amazons when it names none, or a record's number)."""
    return args.game if isinstance(args.game, str) else DEFAULT_GAME


def recorded_position(args: argparse.Namespace) -> Position | None:
    """The position the options name, or None when there is no --record."""
    found = recorded_game(args)
    if found is None:
        return None
    record, ply = found
    if record.game != "amazons":
        raise NotationError(f"game {_number(args)} of {args.record} is {record.game}, not amazons")
    position = record.replay(ply)
    assert isinstance(position, Position)
    return position


def _number(args: argparse.Namespace) -> int:
    return 1 if args.game is None else int(args.game)


def recorded_game(args: argparse.Namespace) -> tuple[GameRecord, int] | None:
    """The record the options name, of any game, and the ply asked for (its last by default);
    None when there is no --record."""
    if isinstance(args.game, str):
        if args.record is not None:
            raise NotationError(
                f"--game {args.game} with --record: name the game in the file by its number"
            )
        if args.ply is not None:
            raise NotationError("--ply needs --record FILE")
        return None
    if args.record is None:
        if args.game is not None or args.ply is not None:
            raise NotationError("--game and --ply need --record FILE")
        return None
    number = _number(args)
    record = read_record(args.record, number)
    moves = len(record.moves)
    if args.ply is not None and not 0 <= args.ply <= moves:
        raise NotationError(
            f"game {number} of {args.record} has {moves} move{'s' if moves != 1 else ''}: "
            f"there is no ply {args.ply} (0 to {moves})"
        )
    return record, moves if args.ply is None else args.ply
