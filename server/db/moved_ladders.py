"""An older data folder's ladders moved into the history store. Servers before the database kept
them in Redis: the definitions in the hash `ladders` (name -> JSON game, setup, base,
increment), and under each ladder's keys its bots' ratings (hash `ladder:{NAME}:ratings`, bot ->
JSON [rating, deviation, volatility]), its results (list `ladder:{NAME}:results`, JSON game_id,
white, black, white_won and ended where known), each bot's rating history (lists
`ladder:{NAME}:history:BOT`, points as `server.rating_history` writes them) and the ids of its
games (list `ladder:{NAME}:games`). Each defined ladder's are copied in one transaction and
then leave Redis, the definitions last, so the move runs once. A removed ladder's keys, with no
definition to say its game, are left as they were.

A game the ladder started and had not rated yet is rated here when the database has its record
(handed over without its ladder by servers before this move), or put on the hand-over set when
it has ended in Redis and is not recorded yet (an older folder's, whose finished games move
later: `moved_games`), so that its hand-over rates it; one still under way is rated when it
ends, as any ladder game.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Final, NamedTuple

import redis.asyncio as aioredis
from sqlalchemy import select, update

from server.clock import now_ms
from server.db.database import Database
from server.db.finished_games import finished_game
from server.db.ladders import rate_ladder_game_in
from server.db.moved_ratings import history_rows
from server.db.pools import insert
from server.db.schema import GAMES, LADDER_RESULTS, LADDERS, RATING_HISTORY, RATINGS
from server.game_index import GameIndex
from server.ladder.definition import Ladder, LadderError
from server.ladder.store import LADDER_OF_GAME
from server.protocol import GameStatus
from server.storage import game_key
from server.stored_game import StoredGame

__all__ = ["OLD_LADDERS", "MovedLadders", "move_ladders"]

OLD_LADDERS: Final = "ladders"  # the definitions' hash of servers before the database
BATCH: Final = 500  # game ids in one statement


class MovedLadders(NamedTuple):
    """What was moved: ladders, their bots' ratings, results and history points, and the games
    of theirs rated in the move."""

    ladders: int
    ratings: int
    results: int
    points: int
    rated: int

    def __str__(self) -> str:
        said = [
            f"{n} {one if n == 1 else many}"
            for n, (one, many) in zip(
                self,
                (
                    ("ladder", "ladders"),
                    ("ladder rating", "ladder ratings"),
                    ("ladder result", "ladder results"),
                    ("ladder history point", "ladder history points"),
                    ("game rated", "games rated"),
                ),
                strict=True,
            )
        ]
        return f"{', '.join(said[:-1])} and {said[-1]}"


async def move_ladders(db: Database, redis: aioredis.Redis) -> MovedLadders | None:
    """Copy the ladders an older data folder keeps in Redis into `db`, then take their
    definitions out of Redis; None when Redis has none (a new folder, or moved already). A
    definition that does not read as one (edited by hand) is left out, and so is a rating or
    point that does not read as a number. Two processes moving at once write each row once."""
    found = await redis.hgetall(OLD_LADDERS)
    if not found:
        return None
    ladders = []
    for name, text in found.items():
        try:
            ladders.append(Ladder.from_json(_text(name), text))
        except (ValueError, KeyError, TypeError, LadderError):
            continue
    moved = MovedLadders(len(ladders), 0, 0, 0, 0)
    for ladder in ladders:
        moved = _add(moved, await _move(db, redis, ladder))
    await redis.hdel(OLD_LADDERS, *found)
    return moved


def _add(one: MovedLadders, other: MovedLadders) -> MovedLadders:
    return MovedLadders(*(a + b for a, b in zip(one, other, strict=True)))


async def _move(db: Database, redis: aioredis.Redis, ladder: Ladder) -> MovedLadders:
    name = ladder.name
    prefix = f"ladder:{{{name}}}:"
    histories = [
        _text(key) async for key in redis.scan_iter(match=f"{prefix}history:*", _type="list")
    ]
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hgetall(f"{prefix}ratings")
        pipe.lrange(f"{prefix}results", 0, -1)
        pipe.lrange(f"{prefix}games", 0, -1)
        pipe.smembers(f"{prefix}unrated")
        for key in histories:
            pipe.lrange(key, 0, -1)
        ratings, results, games, unrated, *points = await pipe.execute()
    pool = {"game": ladder.game, "ladder": name}
    point_rows = [
        row
        for key, texts in zip(histories, points, strict=True)
        for row in history_rows(key.removeprefix(f"{prefix}history:").lower(), pool, texts)
    ]
    last: dict[str, int] = {}
    for row in point_rows:
        last[row["player"]] = max(last.get(row["player"], 0), row["at"])
    now = now_ms()
    rating_rows = _ratings(ratings, pool, last, now)
    result_rows = _results(name, results)
    async with db.writing() as connection:
        await connection.execute(
            insert(connection, LADDERS)
            .values(
                name=name,
                game=ladder.game,
                setup=ladder.setup,
                time_base=ladder.time.base,
                time_increment=ladder.time.increment,
                created=None,
            )
            .on_conflict_do_nothing()
        )
        for table, rows in (
            (RATINGS, rating_rows),
            (LADDER_RESULTS, result_rows),
            (RATING_HISTORY, point_rows),
        ):
            if rows:
                await connection.execute(insert(connection, table).on_conflict_do_nothing(), rows)
        ids = [_text(game_id) for game_id in games]
        recorded: list[str] = []
        for first in range(0, len(ids), BATCH):
            batch = ids[first : first + BATCH]
            # Handed over before this move, without their ladder.
            await connection.execute(
                update(GAMES)
                .where(GAMES.c.game_id.in_(batch), GAMES.c.ladder.is_(None))
                .values(ladder=name)
            )
            found = await connection.execute(
                select(GAMES.c.game_id).where(GAMES.c.game_id.in_(batch))
            )
            recorded += found.scalars()
    # What lasts is the database's now. A game not recorded yet keeps its ladder in
    # `ladder:game` for its hand-over, or for the move of an older folder's finished games
    # (`moved_games`); one the ladder had not rated stays the scheduler's until it is rated.
    waiting = {_text(game_id) for game_id in unrated}
    if done := [game_id for game_id in recorded if game_id not in waiting]:
        await redis.hdel(LADDER_OF_GAME, *done)
    await redis.unlink(f"{prefix}ratings", f"{prefix}results", f"{prefix}games", *histories)
    rated = 0
    for game_id in sorted(waiting):
        rated += await _rate_unrated(db, redis, name, game_id)
    return MovedLadders(0, len(rating_rows), len(result_rows), len(point_rows), rated)


async def _rate_unrated(db: Database, redis: aioredis.Redis, ladder: str, game_id: str) -> int:
    """Rate a game the ladder had not rated yet, if the database has its record; put it on the
    hand-over set if it ended and is not recorded yet. Whether it was rated here."""
    recorded = await finished_game(db, game_id)
    if recorded is None:
        text = await redis.hget(game_key(game_id), "doc")
        if text is not None and StoredGame.from_bytes(text).status is GameStatus.ENDED:
            await GameIndex(redis).to_hand_over([game_id])
        return 0
    async with db.writing() as connection:
        await connection.execute(
            update(GAMES).where(GAMES.c.game_id == game_id).values(ladder=ladder)
        )
        rated = await connection.run_sync(rate_ladder_game_in, replace(recorded, ladder=ladder))
        return int(rated)


def _ratings(
    found: dict[bytes, bytes], pool: dict[str, str], last: dict[str, int], now: int
) -> list[dict[str, Any]]:
    rows = []
    for bot, text in found.items():
        player = _text(bot).lower()
        try:
            rating, deviation, volatility = (float(value) for value in json.loads(text))
        except (ValueError, TypeError):
            continue
        rows.append(
            {
                "player": player,
                **pool,
                "rating": rating,
                "deviation": deviation,
                "volatility": volatility,
                "updated": last.get(player, now),
            }
        )
    return rows


def _results(ladder: str, texts: list[bytes]) -> list[dict[str, Any]]:
    """The rows of the results; one kept without its game's id (by servers before the ids were
    kept) is known by its place in the list, `~000003`."""
    rows = []
    for place, text in enumerate(texts):
        try:
            data = json.loads(text)
            ended = data.get("ended")
            row = {
                "ladder": ladder,
                "game_id": str(data.get("game_id") or f"~{place:06d}"),
                "white": str(data["white"]),
                "black": str(data["black"]),
                "white_won": bool(data["white_won"]),
                "ended": None if ended is None else int(ended),
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        rows.append(row)
    return rows


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
