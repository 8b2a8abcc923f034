"""An older data folder's ratings moved into the history store: the Glicko-2 ratings servers kept
in Redis, in the hash of each account (`user:NAME`) and of each house bot at one strength
(`house:SPEC`), one `rating:GAME`, `deviation:GAME`, `volatility:GAME` triple a game (and the
unsuffixed triple of servers before ratings were per game, for Amazons), and their histories
(lists `user:NAME:history:GAME` of JSON points). They are copied once, in one transaction, into
a database that has no rating yet, before it rates its first game; Redis keeps its copy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis
from sqlalchemy import select

from server.clock import now_ms
from server.db.database import Database
from server.db.finished_games import _insert
from server.db.schema import GAME_POOL, RATING_HISTORY, RATINGS
from server.glicko import Rating

__all__ = ["MovedRatings", "move_ratings"]

HOLDERS: Final = ("user", "house")  # the hashes of accounts and of house bots' strengths
HISTORY: Final = ":history:"
LEGACY_GAME: Final = "amazons"  # the game of the unsuffixed fields
BATCH: Final = 500  # keys read from Redis in one round trip


@dataclass(frozen=True)
class MovedRatings:
    """What was moved: ratings (a player in a game) and history points."""

    ratings: int
    points: int


async def move_ratings(db: Database, redis: aioredis.Redis) -> MovedRatings | None:
    """Copy the ratings and rating histories Redis holds into `db` when it has no rating in any
    game's pool yet; None when it has (moved already, or rated games of its own). Two processes
    moving at once write each row once. A player's hash and histories are read in one Redis
    transaction, so a game rated in Redis meanwhile is in both or in neither (a game whose
    point moved is not rated again when it is handed over: `record_finished_game`)."""
    if await _has_ratings(db):
        return None
    ratings, points = await _read(redis)
    last: dict[tuple[str, str], int] = {}
    for point in points:
        pool = (point["player"], point["game"])
        last[pool] = max(last.get(pool, 0), point["at"])
    now = now_ms()
    for row in ratings:
        row["updated"] = last.get((row["player"], row["game"]), now)
    async with db.writing() as connection:
        # Checked again in the writing transaction: another process may have moved them.
        found = await connection.execute(
            select(RATINGS.c.player).where(RATINGS.c.ladder == GAME_POOL).limit(1)
        )
        if found.first() is not None:
            return None
        if ratings:
            await connection.execute(_insert(connection, RATINGS).on_conflict_do_nothing(), ratings)
        if points:
            await connection.execute(
                _insert(connection, RATING_HISTORY).on_conflict_do_nothing(), points
            )
    return MovedRatings(len(ratings), len(points))


async def _has_ratings(db: Database) -> bool:
    async with db.reading() as connection:
        found = await connection.execute(
            select(RATINGS.c.player).where(RATINGS.c.ladder == GAME_POOL).limit(1)
        )
        return found.first() is not None


async def _keys(redis: aioredis.Redis, kind: str) -> list[str]:
    """The keys of one kind (`hash` or `list`) under the holders' prefixes."""
    return [
        _text(key)
        for holder in HOLDERS
        async for key in redis.scan_iter(match=f"{holder}:*", count=BATCH, _type=kind)
    ]


async def _read(redis: aioredis.Redis) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows of the ratings and of the history points Redis holds."""
    histories: dict[str, list[str]] = {}
    for key in await _keys(redis, "list"):
        holder, found, _ = key.partition(HISTORY)
        if found:
            histories.setdefault(holder, []).append(key)
    holders = sorted(set(await _keys(redis, "hash")) | set(histories))
    ratings: list[dict[str, Any]] = []
    points: list[dict[str, Any]] = []
    for first in range(0, len(holders), BATCH):
        batch = holders[first : first + BATCH]
        async with redis.pipeline(transaction=True) as pipe:
            for holder in batch:
                pipe.hgetall(holder)
                for key in histories.get(holder, []):
                    pipe.lrange(key, 0, -1)
            replies = iter(await pipe.execute())
        for holder in batch:
            player = holder.partition(":")[2]
            fields = {_text(name): _text(value) for name, value in next(replies).items()}
            ratings.extend(_ratings(player, fields))
            for key in histories.get(holder, []):
                game = key.partition(HISTORY)[2]
                points.extend(_points(player, game, next(replies)))
    return ratings, points


def _ratings(player: str, fields: dict[str, str]) -> list[dict[str, Any]]:
    """The rows of a hash's ratings; one that is not a number (edited by hand) is left out, as
    servers read it as none."""
    default = Rating()
    rows = []
    for game, (rating, deviation, volatility) in _games(fields).items():
        try:
            row = {
                "player": player,
                "game": game,
                "ladder": GAME_POOL,
                "rating": float(rating),
                "deviation": default.deviation if deviation is None else float(deviation),
                "volatility": default.volatility if volatility is None else float(volatility),
            }
        except ValueError:
            continue
        rows.append(row)
    return rows


def _games(fields: dict[str, str]) -> dict[str, tuple[str, str | None, str | None]]:
    """A hash's ratings by game: each game's own fields, and the unsuffixed ones for Amazons
    when it has none of its own (as servers read them)."""
    found: dict[str, tuple[str, str | None, str | None]] = {}
    for name, value in fields.items():
        field, _, game = name.partition(":")
        if field == "rating" and game:
            found[game] = (value, fields.get(f"deviation:{game}"), fields.get(f"volatility:{game}"))
    if LEGACY_GAME not in found and "rating" in fields:
        found[LEGACY_GAME] = (fields["rating"], fields.get("deviation"), fields.get("volatility"))
    return found


def _points(player: str, game: str, texts: list[bytes]) -> list[dict[str, Any]]:
    """The rows of a history's points; one that does not read as a point is left out."""
    points = []
    for text in texts:
        try:
            point = json.loads(text)
            row = {
                "player": player,
                "game": game,
                "ladder": GAME_POOL,
                "game_id": str(point["game_id"]),
                "at": int(point["at"]),
                "rating": float(point["rating"]),
                "deviation": float(point["deviation"]),
                "setup": point.get("setup"),
            }
        except (ValueError, KeyError, TypeError):
            continue
        points.append(row)
    return points


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
