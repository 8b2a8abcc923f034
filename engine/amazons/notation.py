"""Squares and moves in Amazons notation: `d1`, and `d1-d7/g7` (from-to/arrow).

Files a..z run left to right and ranks 1..26 bottom to top. Moves are read in every common
spelling (`d1-d7/g7`, `d1-d7(g7)`, `d1d7g7`, `d1 d7 g7`, `d1,d7,g7`) and written in the first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from engine.errors import NotationError

__all__ = ["MAX_SIZE", "Move", "Side", "Square"]

MAX_SIZE = 26
FILES = "abcdefghijklmnopqrstuvwxyz"


class Side(IntEnum):
    """The two players. White moves first on the named setups (player 0)."""

    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> Side:
        return Side(1 - self)

    @property
    def letter(self) -> str:
        """`w` or `b`, as in position text."""
        return "wb"[self]

    @property
    def piece(self) -> str:
        """`W` or `B`, as in position text."""
        return "WB"[self]

    def __str__(self) -> str:
        return self.name.lower()


_SQUARE = re.compile(r"([a-z])(\d{1,2})")


class Square(NamedTuple):
    """A square by 0-based file (a = 0) and rank (rank 1 = 0)."""

    file: int
    rank: int

    @classmethod
    def parse(cls, text: str) -> Square:
        word = text.strip().lower()
        if _SQUARE.fullmatch(word) is None:
            raise NotationError(f"{text!r} is not a square: expected a file a-z and a rank 1-26")
        return cls._read(word, text)

    @classmethod
    def _read(cls, word: str, text: str) -> Square:
        """The square of `word`, a letter and one or two digits (matched already)."""
        if word[1] == "0":
            raise NotationError(f"{text!r} is not a square: expected a file a-z and a rank 1-26")
        rank = int(word[1:])
        if rank > MAX_SIZE:
            raise NotationError(f"{text!r} is not a square: ranks run from 1 to {MAX_SIZE}")
        return cls(ord(word[0]) - ord("a"), rank - 1)

    def __str__(self) -> str:
        return f"{FILES[self.file]}{self.rank + 1}"

    def __repr__(self) -> str:
        return f"Square.parse({str(self)!r})"


_SQ = r"([a-z]\d{1,2})"
_MOVE = re.compile(rf"{_SQ}\s*[-,]?\s*{_SQ}\s*(?:[/,]\s*{_SQ}|\(\s*{_SQ}\s*\)|{_SQ})")


@dataclass(frozen=True, slots=True)
class Move:
    """An amazon's queen move from `origin` to `target`, then its arrow shot to `arrow`."""

    origin: Square
    target: Square
    arrow: Square

    @classmethod
    def parse(cls, text: str) -> Move:
        match = _MOVE.fullmatch(text.strip().lower())
        if match is None:
            raise NotationError(
                f"cannot read move {text!r}: expected from-to/arrow such as d1-d7/g7"
            )
        origin, target, arrow = (group for group in match.groups() if group is not None)
        return cls(
            Square._read(origin, origin), Square._read(target, target), Square._read(arrow, arrow)
        )

    def __str__(self) -> str:
        return f"{self.origin}-{self.target}/{self.arrow}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"
