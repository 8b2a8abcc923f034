"""A point of a player's rating history: when, which game, its setup, the rating and deviation
after it. The history store keeps them, a game's pools' (server/db/ratings.py) as a ladder's
(server/db/ladders.py), each written in the transaction that rates its game, so that a history
and its rating never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HISTORY_POINTS", "RatingPoint"]

# Points a page shows per player and pool, the newest: a chart of the last 200 games says where a
# rating went, and the page stays a few kilobytes.
HISTORY_POINTS = 200


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating and deviation right after the rated game `game_id` (of `setup`, when it
    had a named one) ended at `at` (ms since the Unix epoch)."""

    at: int
    game_id: str
    rating: float
    deviation: float
    setup: str | None = None
