"""Regions: the 8-connected groups of non-burnt squares a board falls apart into.

No move crosses from one region to another, so late in a game each region is a game of its own
(the CGT library sums them). A region's canonical key is the same for regions equal up to
translation and the 8 symmetries of the square; its `Symmetry` maps moves back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

import numpy as np

from engine.amazons import kernels
from engine.amazons.notation import Move, Side, Square
from engine.amazons.position import Position

__all__ = [
    "KEY_BLACK",
    "KEY_BURNT",
    "KEY_EMPTY",
    "KEY_WHITE",
    "SYMMETRIES",
    "CanonicalRegion",
    "Region",
    "RegionKind",
    "Symmetry",
    "regions",
]


class RegionKind(Enum):
    DEAD = "dead"  # no amazon: nobody can ever use it
    SETTLED = "settled"  # amazons of one colour only
    CONTESTED = "contested"  # amazons of both colours

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Symmetry:
    """One of the 8 symmetries of the square: (x, y) -> (xx*x + xy*y, yx*x + yy*y)."""

    xx: int
    xy: int
    yx: int
    yy: int

    def apply(self, x: int, y: int) -> tuple[int, int]:
        return self.xx * x + self.xy * y, self.yx * x + self.yy * y

    @property
    def inverse(self) -> Symmetry:
        # Orthogonal matrices: the inverse is the transpose.
        return Symmetry(self.xx, self.yx, self.xy, self.yy)


SYMMETRIES: Final = (
    Symmetry(1, 0, 0, 1),
    Symmetry(0, -1, 1, 0),
    Symmetry(-1, 0, 0, -1),
    Symmetry(0, 1, -1, 0),
    Symmetry(-1, 0, 0, 1),
    Symmetry(1, 0, 0, -1),
    Symmetry(0, 1, 1, 0),
    Symmetry(0, -1, -1, 0),
)

# Cell codes in keys (not the board's codes of engine.amazons.kernels). Burnt sorts first, so
# keys of the same shape order by contents.
KEY_BURNT, KEY_EMPTY, KEY_WHITE, KEY_BLACK = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class CanonicalRegion:
    """A region in its canonical orientation. `key` is equal for regions equal up to translation
    and symmetry; `form` is the keyed position (White to move). A square of the form maps back
    to the board as `back(square + shift)`."""

    key: bytes
    form: Position
    back: Symmetry
    shift: tuple[int, int]

    def to_original(self, square: Square) -> Square:
        return Square(*self.back.apply(square.file + self.shift[0], square.rank + self.shift[1]))

    def move_to_original(self, move: Move) -> Move:
        return Move(
            self.to_original(move.origin),
            self.to_original(move.target),
            self.to_original(move.arrow),
        )


@dataclass(frozen=True, slots=True)
class Region:
    """A region: its squares (board order) and the amazons on them."""

    squares: tuple[Square, ...]
    white: tuple[Square, ...]
    black: tuple[Square, ...]

    @property
    def empty(self) -> int:
        """Empty squares in the region."""
        return len(self.squares) - len(self.white) - len(self.black)

    @property
    def kind(self) -> RegionKind:
        if self.white and self.black:
            return RegionKind.CONTESTED
        if self.white or self.black:
            return RegionKind.SETTLED
        return RegionKind.DEAD

    @property
    def owner(self) -> Side | None:
        """The colour of a settled region's amazons."""
        if self.kind is not RegionKind.SETTLED:
            return None
        return Side.WHITE if self.white else Side.BLACK

    def position(self, side: Side = Side.WHITE) -> Position:
        """The region alone on its bounding box, every other square burnt."""
        x0 = min(s.file for s in self.squares)
        y0 = min(s.rank for s in self.squares)
        cells = self._cells(swap=False)
        return _position_of({(x - x0, y - y0): c for (x, y), c in cells.items()}, side)

    def canonical(self, swap: bool = False) -> CanonicalRegion:
        """The canonical orientation of this region (with colours swapped if `swap`, which
        negates its combinatorial value)."""
        key, symmetry, shift, cells = self._orient(swap)
        return CanonicalRegion(key, _position_of(cells, Side.WHITE), symmetry.inverse, shift)

    def key(self) -> bytes:
        return self._orient(swap=False)[0]

    def swapped_key(self) -> bytes:
        """The key of this region with White and Black exchanged."""
        return self._orient(swap=True)[0]

    def _orient(
        self, swap: bool
    ) -> tuple[bytes, Symmetry, tuple[int, int], dict[tuple[int, int], int]]:
        """The least key over the 8 symmetries, with its symmetry, the shift that brought the
        turned cells to the origin, and those cells."""
        cells = self._cells(swap)
        best: tuple[bytes, Symmetry, tuple[int, int], dict[tuple[int, int], int]] | None = None
        for symmetry in SYMMETRIES:
            turned = {symmetry.apply(x, y): c for (x, y), c in cells.items()}
            x0 = min(x for x, _ in turned)
            y0 = min(y for _, y in turned)
            placed = {(x - x0, y - y0): c for (x, y), c in turned.items()}
            key = _key(placed)
            if best is None or key < best[0]:
                best = (key, symmetry, (x0, y0), placed)
        assert best is not None  # a region has at least one square
        return best

    def _cells(self, swap: bool) -> dict[tuple[int, int], int]:
        white, black = (KEY_BLACK, KEY_WHITE) if swap else (KEY_WHITE, KEY_BLACK)
        cells = {(s.file, s.rank): KEY_EMPTY for s in self.squares}
        cells.update({(s.file, s.rank): white for s in self.white})
        cells.update({(s.file, s.rank): black for s in self.black})
        return cells


def _key(cells: dict[tuple[int, int], int]) -> bytes:
    width = 1 + max(x for x, _ in cells)
    height = 1 + max(y for _, y in cells)
    grid = bytearray(width * height)
    for (x, y), c in cells.items():
        grid[y * width + x] = c
    return bytes((width, height)) + bytes(grid)


def _position_of(cells: dict[tuple[int, int], int], side: Side) -> Position:
    width = 1 + max(x for x, _ in cells)
    height = 1 + max(y for _, y in cells)
    letters = {KEY_EMPTY: None, KEY_WHITE: "W", KEY_BLACK: "B"}
    pieces: dict[Square, str] = {
        Square(x, y): "x" for x in range(width) for y in range(height) if (x, y) not in cells
    }
    for (x, y), c in cells.items():
        letter = letters[c]
        if letter is not None:
            pieces[Square(x, y)] = letter
    return Position(width, height, pieces, side)


def regions(position: Position) -> list[Region]:
    """The regions of `position`, ordered by their first square in board order."""
    board, _, _, meta, _ = position.arrays()
    labels = np.empty(board.shape[0], dtype=np.int64)
    count = kernels.label_regions(board, int(meta[kernels.STRIDE]), labels)
    members: list[list[Square]] = [[] for _ in range(count)]
    for index in np.flatnonzero(labels >= 0):
        members[labels[index]].append(position.square(int(index)))
    found = []
    for squares in members:
        ordered = tuple(sorted(squares, key=lambda s: (s.rank, s.file)))
        white = tuple(s for s in ordered if position.piece_at(s) == "W")
        black = tuple(s for s in ordered if position.piece_at(s) == "B")
        found.append(Region(ordered, white, black))
    return sorted(found, key=lambda r: (r.squares[0].rank, r.squares[0].file))
