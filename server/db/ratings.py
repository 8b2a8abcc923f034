"""Ratings in the games' own pools as the history store keeps them (tables `ratings` and
`rating_history`, written by `record_finished_game` as each rated game is handed over): the
ratings of a few players in one game, for what shows a player with its rating, and the last
points of a player's history in one, for its page. A player is known
here by its holder: an account's lower-case name, or a house bot's spec at one strength
(`invader@5`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from server.db.database import Database
from server.db.schema import GAME_POOL, RATING_HISTORY, RATINGS
from server.glicko import Rating
from server.rating_history import HISTORY_POINTS, RatingPoint

__all__ = ["history", "ratings"]


async def ratings(db: Database, holders: Sequence[str], game: str) -> dict[str, Rating]:
    """The ratings in `game` of those of `holders` that have one there, by holder."""
    if not holders:
        return {}
    async with db.reading() as connection:
        found = await connection.execute(
            select(
                RATINGS.c.player, RATINGS.c.rating, RATINGS.c.deviation, RATINGS.c.volatility
            ).where(
                RATINGS.c.player.in_(holders),
                RATINGS.c.game == game,
                RATINGS.c.ladder == GAME_POOL,
            )
        )
        return {row.player: Rating(row.rating, row.deviation, row.volatility) for row in found}


async def history(
    db: Database, holder: str, game: str, points: int = HISTORY_POINTS
) -> list[RatingPoint]:
    """The last `points` points of `holder`'s rating history in `game`, oldest first."""
    async with db.reading() as connection:
        found = await connection.execute(
            select(RATING_HISTORY)
            .where(
                RATING_HISTORY.c.player == holder,
                RATING_HISTORY.c.game == game,
                RATING_HISTORY.c.ladder == GAME_POOL,
            )
            .order_by(RATING_HISTORY.c.at.desc(), RATING_HISTORY.c.id.desc())
            .limit(points)
        )
        newest_first = [
            RatingPoint(row.at, row.game_id, row.rating, row.deviation, row.setup) for row in found
        ]
    return newest_first[::-1]
