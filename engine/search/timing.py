"""Time management: how long to think for one move, from a fixed budget or a game clock."""

from __future__ import annotations

import numpy as np

from engine.amazons import Position, kernels
from engine.search.bot import Budget

__all__ = ["SAFETY", "move_time", "moves_left", "think_time"]

SAFETY = 0.015  # seconds kept back for returning the move after the search stops
MINIMUM = 0.002


def think_time(budget: Budget, moves_left: int) -> float:
    """Seconds to search. With a clock: an equal share of the time left over the moves still
    to play (fewer as the board fills up), plus most of the increment, never more than a third
    of what is left."""
    if budget.seconds is not None:
        return max(MINIMUM, budget.seconds - SAFETY)
    clock = budget.clock
    assert clock is not None
    share = clock.own / max(moves_left, 1) + 0.8 * clock.increment
    return max(MINIMUM, min(share, clock.own / 3) - SAFETY)


def moves_left(position: Position) -> int:
    """Moves the side to move still expects to make: about one for every 2.5 empty squares."""
    board = position.arrays()[0]
    return max(4, int(np.count_nonzero(board == kernels.EMPTY) / 2.5))


def move_time(budget: Budget, position: Position) -> float:
    """Seconds to search for a move in an Amazons position (think_time over moves_left)."""
    return think_time(budget, moves_left(position))
