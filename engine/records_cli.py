"""`--record FILE --game N --ply K`: the options that take a position from a file of game
records (match --out, archive), for `arena show`, `moves`, `perft` and `analyze`."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.amazons import Position
from engine.errors import NotationError
from engine.records import read_record

__all__ = ["add_record_options", "recorded_position"]


def add_record_options(
    parser: argparse.ArgumentParser, sources: argparse._MutuallyExclusiveGroup
) -> None:
    """`--record` as one more source of a position in `sources`; `--game` and `--ply` pick it."""
    sources.add_argument(
        "--record", type=Path, default=None, metavar="FILE", help="a file of game records"
    )
    parser.add_argument(
        "--game",
        type=int,
        default=None,
        metavar="N",
        help="with --record: the game, counted from 1 (default 1)",
    )
    parser.add_argument(
        "--ply",
        type=int,
        default=None,
        metavar="K",
        help="with --record: the position after K moves, 0 for the start (default: the last)",
    )


def recorded_position(args: argparse.Namespace) -> Position | None:
    """The position the options name, or None when there is no --record."""
    if args.record is None:
        if args.game is not None or args.ply is not None:
            raise NotationError("--game and --ply need --record FILE")
        return None
    number = 1 if args.game is None else args.game
    record = read_record(args.record, number)
    if record.game != "amazons":
        raise NotationError(f"game {number} of {args.record} is {record.game}, not amazons")
    moves = len(record.moves)
    if args.ply is not None and not 0 <= args.ply <= moves:
        raise NotationError(
            f"game {number} of {args.record} has {moves} move{'s' if moves != 1 else ''}: "
            f"there is no ply {args.ply} (0 to {moves})"
        )
    position = record.replay(args.ply)
    assert isinstance(position, Position)
    return position
