"""An older data folder's ratings moved into the history store: the Glicko-2 ratings servers kept
in Redis, in the hash of each account (`user:NAME`) and of each house bot at one strength
(`house:SPEC`), one `rating:GAME`, `deviation:GAME`, `volatility:GAME` triple a game (and the
unsuffixed triple of servers before ratings were per game, for Amazons), and their histories
(lists `user:NAME:history:GAME` of JSON points). They are copied once, in one transaction, into
a database that has no rating yet, before it rates its first game; then Redis forgets them,
and the hash of each account the database has too (moved by `identity.move_to_database`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final

import redis.asyncio as aioredis
from sqlalchemy import select

from server.clock import now_ms
from server.db import accounts
from server.db.database import Database
from server.db.pools import insert
from server.db.schema import GAME_POOL, RATING_HISTORY, RATINGS
from server.glicko import Rating
from server.protocol import PlayerKind
from server.ratings import bump_versions

__all__ = ["UNRATED", "MovedRatings", "history_rows", "move_ratings"]

HOLDERS: Final = ("user", "house")  # the hashes of accounts and of house bots' strengths
HISTORY: Final = ":history:"
LEGACY_GAME: Final = "amazons"  # the game of the unsuffixed fields
BATCH: Final = 500  # keys read from Redis in one round trip
# Set: an older folder's ended rated games its servers had not rated yet (they rated in Redis);
# they are handed over, which rates them, rather than copied (`GameStore._move_ratings`).
UNRATED: Final = "games:unrated"
ACCOUNT_KINDS: Final = (PlayerKind.HUMAN.value, PlayerKind.BOT.value)  # guests stay


@dataclass(frozen=True)
class MovedRatings:
    """What was moved: ratings (a player in a game) and history points; and how many of the
    Redis keys that held them (and accounts moved before) were deleted after."""

    ratings: int
    points: int
    deleted: int


@dataclass
class _Found:
    """What Redis holds: the rows of its ratings and history points, the keys that hold only
    them, and the hashes of accounts (which hold their ratings too) with the accounts' ids."""

    ratings: list[dict[str, Any]] = field(default_factory=list)
    points: list[dict[str, Any]] = field(default_factory=list)
    only_ratings: list[str] = field(default_factory=list)
    accounts: dict[str, str] = field(default_factory=dict)


async def move_ratings(db: Database, redis: aioredis.Redis) -> MovedRatings | None:
    """Copy the ratings and rating histories Redis holds into `db` when it has no rating in any
    game's pool yet; None when it has (moved already, or rated games of its own). Two processes
    moving at once write each row once. A player's hash and histories are read in one round
    trip but not in one transaction (on a cluster, `user:NAME` and its histories lie in
    different slots): no server writes them any more, since ratings are the database's, so a
    point and its rating read apart are still read as they were written (a game whose point
    moved is not rated again when it is handed over: `record_finished_game`).

    Then each moved player's version is counted (`server.ratings`: a process that read the
    player as unrated before reads it again), and Redis forgets what moved: the hashes and
    histories of ratings, and an account's hash once the database has the account too (its
    ratings were all it kept that was read); a guest's stays. A process stopped between the
    move and that leaves them, read no more."""
    if await _has_ratings(db):
        return None
    found = await _read(redis)
    ratings, points = found.ratings, found.points
    last: dict[tuple[str, str], int] = {}
    for point in points:
        pool = (point["player"], point["game"])
        last[pool] = max(last.get(pool, 0), point["at"])
    now = now_ms()
    for row in ratings:
        row["updated"] = last.get((row["player"], row["game"]), now)
    async with db.writing() as connection:
        # Checked again in the writing transaction: another process may have moved them.
        there = await connection.execute(
            select(RATINGS.c.player).where(RATINGS.c.ladder == GAME_POOL).limit(1)
        )
        if there.first() is not None:
            return None
        if ratings:
            await connection.execute(insert(connection, RATINGS).on_conflict_do_nothing(), ratings)
        if points:
            await connection.execute(
                insert(connection, RATING_HISTORY).on_conflict_do_nothing(), points
            )
    await bump_versions(redis, sorted({row["player"] for row in ratings}))
    return MovedRatings(len(ratings), len(points), await _forget(db, redis, found))


async def _forget(db: Database, redis: aioredis.Redis, found: _Found) -> int:
    """Delete the keys whose ratings moved, and the accounts' hashes whose accounts did too:
    how many."""
    moved = await accounts.known_ids(db, found.accounts.values())
    keys = [*found.only_ratings, *(key for key, id in found.accounts.items() if id in moved)]
    deleted = 0
    for first in range(0, len(keys), BATCH):
        # One key a command: the keys lie in many slots of a cluster.
        async with redis.pipeline(transaction=False) as pipe:
            for key in keys[first : first + BATCH]:
                pipe.unlink(key)
            deleted += sum(await pipe.execute())
    return deleted


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


async def _read(redis: aioredis.Redis) -> _Found:
    """The ratings and history points Redis holds, and where."""
    histories: dict[str, list[str]] = {}
    for key in await _keys(redis, "list"):
        holder, history, _ = key.partition(HISTORY)
        if history:
            histories.setdefault(holder, []).append(key)
    holders = sorted(set(await _keys(redis, "hash")) | set(histories))
    found = _Found()
    for first in range(0, len(holders), BATCH):
        batch = holders[first : first + BATCH]
        async with redis.pipeline(transaction=False) as pipe:
            for holder in batch:
                pipe.hgetall(holder)
                for key in histories.get(holder, []):
                    pipe.lrange(key, 0, -1)
            replies = iter(await pipe.execute())
        for holder in batch:
            player = holder.partition(":")[2]
            fields = {_text(name): _text(value) for name, value in next(replies).items()}
            found.ratings.extend(_ratings(player, fields))
            for key in histories.get(holder, []):
                game = key.partition(HISTORY)[2]
                found.points.extend(
                    history_rows(player, {"game": game, "ladder": GAME_POOL}, next(replies))
                )
            found.only_ratings.extend(histories.get(holder, []))
            kind = fields.get("kind")
            if kind in ACCOUNT_KINDS and "id" in fields:
                found.accounts[holder] = fields["id"]
            elif kind is None and fields:  # a house bot's, or another's with only ratings
                found.only_ratings.append(holder)
    return found


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


def history_rows(player: str, pool: dict[str, str], texts: list[bytes]) -> list[dict[str, Any]]:
    """The rows in `pool` (its `game` and `ladder` columns) of `player`'s history points as an
    older data folder kept them; one that does not read as a point is left out."""
    rows = []
    for text in texts:
        try:
            point = json.loads(text)
            row = {
                "player": player,
                **pool,
                "game_id": str(point["game_id"]),
                "at": int(point["at"]),
                "rating": float(point["rating"]),
                "deviation": float(point["deviation"]),
                "setup": point.get("setup"),
            }
        except (ValueError, KeyError, TypeError):
            continue
        rows.append(row)
    return rows


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
