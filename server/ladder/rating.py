"""Glicko-2 for ladder games: each game its own rating period, as for people (`server.glicko`),
but per ladder, with the anchors' ratings held where they were set so the scale means the same
from year to year, and a rating called provisional while its deviation is high.
"""

from __future__ import annotations

from server.glicko import Rating, rate_game

__all__ = [
    "ANCHOR_DEVIATION",
    "PROVISIONAL_DEVIATION",
    "anchor_rating",
    "is_provisional",
    "rate_ladder_game",
]

# lichess's rule: a rating is provisional while its deviation is 110 or more. A new bot's 350
# falls below it after ten games against well-known opponents (more against new ones).
PROVISIONAL_DEVIATION = 110.0

# An anchor's strength is fixed by definition; this small deviation only sets how much a game
# against it tells its opponent (Glicko-2 weighs it by g = 0.996 at 30, 1 being a sure rating).
ANCHOR_DEVIATION = 30.0


def anchor_rating(rating: float) -> Rating:
    """The Glicko-2 rating an anchor of fixed `rating` (Elo) plays with, for ever."""
    return Rating(rating, ANCHOR_DEVIATION)


def is_provisional(rating: Rating) -> bool:
    """Whether the rating is still too uncertain to rank on (deviation 110 or more)."""
    return rating.deviation >= PROVISIONAL_DEVIATION


def rate_ladder_game(
    white: Rating,
    black: Rating,
    white_won: bool,
    *,
    white_is_anchor: bool = False,
    black_is_anchor: bool = False,
) -> tuple[Rating, Rating]:
    """White's and Black's ladder ratings after one game between them: Glicko-2 with the game
    its own rating period, except that an anchor keeps its rating unchanged. Its opponent is
    rated against it as against anyone."""
    new_white, new_black = rate_game(white, black, white_won)
    return (
        white if white_is_anchor else new_white,
        black if black_is_anchor else new_black,
    )
