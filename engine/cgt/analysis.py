"""An Amazons position read through combinatorial game theory: each region's value (Left =
Black), their sum, who wins with each side to move, and the moves that keep a win, all within
a time budget (a value that cannot be found in time is left unknown).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from engine.amazons.notation import Move, Side
from engine.amazons.position import Position
from engine.amazons.regions import Region
from engine.cgt import amazons
from engine.cgt.amazons import BudgetExceededError, RegionSolver
from engine.cgt.form import ZERO, Form

__all__ = ["PositionAnalysis", "RegionAnalysis", "analyze", "winner"]

JsonValue = str | int | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


@dataclass(frozen=True, slots=True)
class RegionAnalysis:
    """A region and its value; None when it was not found within the time given."""

    region: Region
    value: Form | None


@dataclass(frozen=True, slots=True)
class PositionAnalysis:
    """What `analyze` found in a position."""

    position: Position
    regions: tuple[RegionAnalysis, ...]
    total: Form | None  # the sum of the regions' values, when every one is known
    best_moves: tuple[Move, ...] | None  # for the side to move; None when not known

    def winner(self, to_move: Side) -> Side | None:
        """Who wins with `to_move` moving first, when the sum is known."""
        return None if self.total is None else winner(self.total, to_move)

    def as_dict(self) -> dict[str, JsonValue]:
        """The analysis as plain data (values in CGSuite notation, numbers as text)."""
        return {
            "position": self.position.text(),
            "side_to_move": str(self.position.side_to_move),
            "regions": [
                {
                    "kind": str(r.region.kind),
                    "squares": len(r.region.squares),
                    "white": len(r.region.white),
                    "black": len(r.region.black),
                    **_value_fields(r.value),
                }
                for r in self.regions
            ],
            "sum": _value_fields(self.total),
            "winner": {
                f"{side}_to_move": _side_name(self.winner(side))
                for side in (Side.BLACK, Side.WHITE)
            },
            "best_moves": None if self.best_moves is None else [str(m) for m in self.best_moves],
        }


def winner(value: Form, to_move: Side) -> Side:
    """Who wins a sum worth `value` (Left = Black) with `to_move` moving first: Black moving
    first wins unless value <= 0, White unless value >= 0."""
    if to_move is Side.BLACK:
        return Side.WHITE if value <= ZERO else Side.BLACK
    return Side.BLACK if value >= ZERO else Side.WHITE


def analyze(
    position: Position,
    *,
    seconds: float | None = None,
    solver: RegionSolver | None = None,
    positions: int | None = None,
    largest: int | None = None,
) -> PositionAnalysis:
    """Analyse `position` within `seconds` in all and `positions` new region positions in all
    (no limit when None), leaving unknown without a search every region with more than
    `largest` empty squares."""
    solver = solver or amazons.solver
    deadline = None if seconds is None else time.perf_counter() + seconds
    first = solver.stats.positions

    def left() -> int | None:
        return None if positions is None else max(0, positions - (solver.stats.positions - first))

    def remaining() -> float | None:
        return None if deadline is None else max(0.0, deadline - time.perf_counter())

    regions = position.regions()
    values: dict[int, Form | None] = {}
    # Smallest first, so that one hard region does not starve the easy ones of time.
    for i in sorted(range(len(regions)), key=lambda i: len(regions[i].squares)):
        if largest is not None and regions[i].empty > largest:
            values[i] = None
            continue
        try:
            values[i] = solver.region_value(regions[i], seconds=remaining(), positions=left())
        except BudgetExceededError:
            values[i] = None
    found = [RegionAnalysis(region, values[i]) for i, region in enumerate(regions)]
    total: Form | None = ZERO
    for r in found:
        total = None if total is None or r.value is None else total + r.value
    best: tuple[Move, ...] | None = None
    if total is not None:
        try:
            best = tuple(solver.best_moves(position, seconds=remaining(), positions=left()))
        except BudgetExceededError:
            best = None
    return PositionAnalysis(position, tuple(found), total, best)


def _value_fields(value: Form | None) -> dict[str, JsonValue]:
    if value is None:
        return {"value": "?", "mean": "?", "temperature": "?"}
    return {
        "value": str(value),
        "mean": _number(value.mean),
        "temperature": _number(value.temperature),
    }


def _number(x: Fraction) -> str:
    return str(x)


def _side_name(side: Side | None) -> str | None:
    return None if side is None else str(side)
