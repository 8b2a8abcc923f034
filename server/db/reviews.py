"""Reviewed games in the history store: a finished game's review, written once per engine
effort (a second writer's is the same and changes nothing), and read back by game.
"""

from __future__ import annotations

from sqlalchemy import select

from server.db.database import Database
from server.db.pools import dialect_insert
from server.db.schema import GAME_REVIEWS

__all__ = ["game_review", "keep_review"]


async def keep_review(db: Database, game_id: str, effort: int, review: str, now: int) -> None:
    """Keep `review` (JSON) of game `game_id` judged at `effort`, unless it is kept already."""
    async with db.writing() as connection:
        insert = dialect_insert(connection.dialect.name, GAME_REVIEWS).on_conflict_do_nothing()
        await connection.execute(
            insert.values(game_id=game_id, effort=effort, review=review, created=now)
        )


async def game_review(db: Database, game_id: str, effort: int) -> str | None:
    """The review of game `game_id` judged at `effort` (JSON), or None when there is none."""
    async with db.reading() as connection:
        found = await connection.execute(
            select(GAME_REVIEWS.c.review).where(
                GAME_REVIEWS.c.game_id == game_id, GAME_REVIEWS.c.effort == effort
            )
        )
        return found.scalar_one_or_none()
