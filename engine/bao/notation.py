"""Bao moves and their text: a pit of the mover's own 16, a direction, and the safari choice.

Pits are named from the mover's own side: `A1`..`A8` the front row from the mover's left
(`A1` and `A8` the vichwa, `A5` the nyumba), `B1`..`B8` the back row, `B_k` behind `A_k`.
`>` is clockwise (along the front row toward A8, back along the back row), `<` the other way;
in a namua capture the arrow is the way the captured seeds go, so it names the kichwa they
start in (`>` from A1, `<` from A8). A trailing `+` goes on safari. See docs/bao.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.errors import NotationError

__all__ = ["CCW", "CW", "Move", "pit_label", "pit_of_label"]

CW: Final = 1
CCW: Final = -1
PITS: Final = 16

_MOVE = re.compile(r"\s*([ab])\s*([1-8])\s*([<>])\s*(\+?)\s*", re.IGNORECASE)
_LABEL = re.compile(r"([ab])([1-8])", re.IGNORECASE)


def pit_label(pit: int) -> str:
    """The label of ring index `pit` (0..7 front row A1..A8, 8..15 back row B8..B1)."""
    return f"A{pit + 1}" if pit < 8 else f"B{PITS - pit}"


def pit_of_label(text: str) -> int:
    """The ring index of a pit label such as `A5` or `b2` (any case)."""
    match = _LABEL.fullmatch(text.strip())
    if match is None:
        raise NotationError(f"{text!r} is not a pit: pits are A1 to A8 (front) and B1 to B8")
    row, column = match.group(1).upper(), int(match.group(2))
    return column - 1 if row == "A" else PITS - column


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """Sow from `pit` (ring index of the mover's pits) in `direction` (CW or CCW); `safari`
    lifts the house where a namua capture would stop."""

    pit: int
    direction: int
    safari: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.pit < PITS:
            raise NotationError(f"pit index {self.pit} is not 0 to 15")
        if self.direction not in (CW, CCW):
            raise NotationError(f"direction {self.direction} is neither 1 (>) nor -1 (<)")

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read move text such as `A6>`, `a6 <`, `A1>+` (case and spaces are free)."""
        match = _MOVE.fullmatch(text)
        if match is None:
            raise NotationError(
                f"{text!r} is not a Bao move: write a pit (A1-A8, B1-B8), > or <, and + for "
                "safari, as in A6> or A1>+"
            )
        row, column, arrow, safari = match.groups()
        pit = pit_of_label(row + column)
        return cls(pit, CW if arrow == ">" else CCW, safari == "+")

    def __str__(self) -> str:
        arrow = ">" if self.direction == CW else "<"
        return f"{pit_label(self.pit)}{arrow}{'+' if self.safari else ''}"
