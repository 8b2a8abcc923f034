"""`arena endgame build` (the endgame database, bottom-up, resumable, with progress) and
`arena endgame info` (what a database holds). Bad input exits with status 2 and one line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from engine.cgt.endgame import MAX_CELLS, EndgameDatabase, build

__all__ = ["DEFAULT_DB", "add_commands", "default_db"]

DEFAULT_DB: Final = Path(".arena") / "endgame.sqlite"
_ENV: Final = "ARENA_ENDGAME_DB"


def default_db() -> Path:
    """The database path: $ARENA_ENDGAME_DB, else ./.arena/endgame.sqlite."""
    return Path(os.environ.get(_ENV) or DEFAULT_DB)


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `endgame` (with `build` and `info`) to an `arena` parser."""
    endgame = commands.add_parser(
        "endgame",
        help="the Amazons endgame database: every small region's value",
        description="Build or inspect the database of values of every region of up to N "
        f"squares with up to K amazons of each colour (default file: ${_ENV} or {DEFAULT_DB}).",
    )
    actions = endgame.add_subparsers(dest="endgame_command", required=True, metavar="ACTION")
    make = actions.add_parser(
        "build",
        help="build the database, or carry on an interrupted build",
        description="Value every region shape of 1 to N squares with every placement of at "
        "most K amazons of each colour, smallest regions first. Progress and ETA go to "
        "stderr. Work is committed in batches: run the same command again to resume.",
    )
    make.add_argument("--max-cells", type=_bounded(1, MAX_CELLS), required=True, metavar="N")
    make.add_argument("--max-amazons", type=_bounded(1, 4), required=True, metavar="K")
    make.add_argument("--jobs", type=_bounded(1, 64), default=1, metavar="J")
    make.add_argument("--db", type=Path, default=None, metavar="PATH")
    make.set_defaults(run=_build)
    info = actions.add_parser("info", help="counts by size and amazons, values, file size")
    info.add_argument("--db", type=Path, default=None, metavar="PATH")
    info.set_defaults(run=_info)


def _bounded(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value

    return parse


def _build(args: argparse.Namespace) -> int:
    path = args.db or default_db()
    progress = sys.stderr
    try:
        report = build(path, args.max_cells, args.max_amazons, args.jobs, progress)
    except KeyboardInterrupt:
        print(f"interrupted: run the same command again to resume ({path})", file=sys.stderr)
        return 130
    print(
        f"{path}: {report.shapes_built:,} shapes built, {report.shapes_skipped:,} already done, "
        f"{report.positions:,} positions in {report.seconds:.1f} s ({report.rate:,.0f}/s)"
    )
    return 0


def _info(args: argparse.Namespace) -> int:
    path = args.db or default_db()
    db = EndgameDatabase(path)  # a DatabaseError (ValueError) exits with status 2
    counts = db.counts()
    db.close()
    print(f"database {path}: {counts.bytes:,} bytes, {counts.values:,} distinct values")
    print("cells  shapes (built/all)  positions by amazons (white+black)")
    for cells in sorted(counts.shapes_done):
        built, known = counts.shapes_done[cells]
        by_amazons: dict[int, int] = {}
        for (c, w, b), n in counts.by_size.items():
            if c == cells:
                by_amazons[w + b] = by_amazons.get(w + b, 0) + n
        parts = " ".join(f"{a}:{n:,}" for a, n in sorted(by_amazons.items()))
        total = sum(by_amazons.values())
        print(f"{cells:5}  {built:>7,}/{known:<9,}  {total:,} ({parts})")
    total = sum(counts.by_size.values())
    print(f"total  {total:,} positions")
    return 0
