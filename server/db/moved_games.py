"""An older data folder's finished games moved into the history store: the games servers kept in
Redis after their end (`games:archive`, each `{g:ID}:game`) are copied, records and moves, into
a database that has no finished game yet, before it is handed over its first game. Their ratings
moved with the players' (`moved_ratings`), so they are written rated as they were, moving no
rating; a game a ladder started is written as its ladder's (`ladder:game`: the ladder's
results and ratings moved with the ladders, `moved_ladders`), which `ladder:game` then forgets;
a game still waiting for its hand-over is left to it. Redis keeps its copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sqlalchemy import select

from server.db.database import Database
from server.db.finished_games import FinishedGame, copy_finished_games
from server.db.schema import GAMES
from server.ladder.store import LADDER_OF_GAME
from server.protocol import GameStatus

if TYPE_CHECKING:
    from server.games import GameStore

__all__ = ["move_finished_games"]

BATCH: Final = 200  # games written in one transaction


async def move_finished_games(db: Database, store: GameStore) -> int | None:
    """Copy the ended games Redis keeps into `db` when it has none yet; None when it has. How
    many were copied."""
    async with db.reading() as connection:
        if (await connection.execute(select(GAMES.c.game_id).limit(1))).first() is not None:
            return None
    waiting = set(await store.index.waiting_handover())
    ladders = {
        game_id.decode(): ladder.decode()
        for game_id, ladder in (await store.redis.hgetall(LADDER_OF_GAME)).items()
    }
    moved = 0
    batch: list[FinishedGame] = []

    async def copy() -> int:
        copied = await copy_finished_games(db, batch)
        # The database knows their ladder now.
        if of_ladders := [game.game_id for game in batch if game.ladder is not None]:
            await store.redis.hdel(LADDER_OF_GAME, *of_ladders)
        return copied

    async for game in store.archived():
        if game.status is not GameStatus.ENDED or game.game_id in waiting:
            continue
        batch.append(FinishedGame.of(game, ladders.get(game.game_id)))
        if len(batch) == BATCH:
            moved += await copy()
            batch = []
    if batch:
        moved += await copy()
    return moved
