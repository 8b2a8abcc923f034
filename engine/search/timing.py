"""Time management: how long to think for one move, from a fixed budget or a game clock."""

from __future__ import annotations

from engine.search.bot import Budget

__all__ = ["SAFETY", "think_time"]

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
