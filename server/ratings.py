"""Players' ratings in the games' pools as the server shows them (a seek's, a challenge's, a
quick pairing's, a game's players'): read from the history store, which rates each game in the
transaction that records it (`record_finished_game`), and kept by each process while the
player's version in Redis stays as it was. Each hand-over adds one to both its players'
versions after its transaction (`bump_versions`), so every process reads a changed rating at
its next use, and a read costs one round trip to Redis while nothing changed.
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import redis.asyncio as aioredis

from server.glicko import Rating
from server.protocol.values import Player, PlayerKind

if TYPE_CHECKING:
    from server.db import Database

__all__ = [
    "VERSION_KEY",
    "RatingCache",
    "bump_versions",
    "holder",
    "player_in",
    "rating_in",
    "ratings_cache",
]

# String per player (`holder`): how many times a transaction changed its ratings, as counted
# after each. Only its changes matter: a cached rating is kept while it reads the same.
VERSION_KEY = "rating-version:{}"
CACHE_ENTRIES = 50_000  # ratings (a player in a game) a process keeps, the least used dropped
# A cached rating is read again this long after it was, whatever its version: versions lost
# with Redis count again from nothing, and could come back to a count an entry was read at.
CACHE_SECONDS = 600.0


def holder(name: str, house: str | None = None) -> str:
    """Whose rating: the account `name`'s (names are case-insensitive), or the house bot's at
    the strength of its spec `house` (`invader@5`), a player of its own."""
    return (name if house is None else house).lower()


async def bump_versions(redis: aioredis.Redis, holders: Iterable[str | None]) -> None:
    """Count a change to these players' ratings (None: a player without one, left out), once
    the transaction that made it has committed: every process reads them again."""
    keys = [VERSION_KEY.format(name) for name in holders if name is not None]
    if not keys:
        return
    async with redis.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.incr(key)
        await pipe.execute()


@dataclass(frozen=True)
class _Entry:
    version: bytes | str | None  # the player's version when it was read (None: never changed)
    rating: Rating | None
    read: float  # when, in time.monotonic() seconds


class RatingCache:
    """The ratings one process has read from `db`, each kept while its player's version stays
    the one it was read at (and for at most CACHE_SECONDS)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()

    async def ratings(
        self, redis: aioredis.Redis, holders: Sequence[str], game: str
    ) -> list[Rating | None]:
        """The ratings in `game` of `holders` (see `holder`), None for one who has none: one
        round trip for their versions, and one query for those whose cached rating is out of
        date."""
        # One GET a player rather than an MGET: on a cluster, their keys lie in many slots.
        async with redis.pipeline(transaction=False) as pipe:
            for name in holders:
                pipe.get(VERSION_KEY.format(name))
            versions = await pipe.execute()
        now = time.monotonic()
        found: dict[str, Rating | None] = {}
        stale: dict[str, bytes | str | None] = {}
        for name, version in zip(holders, versions, strict=True):
            entry = self._entries.get((name, game))
            if entry is not None and entry.version == version and now - entry.read < CACHE_SECONDS:
                self._entries.move_to_end((name, game))
                found[name] = entry.rating
            else:
                stale[name] = version
        if stale:
            from server.db.ratings import ratings

            # Read after the versions: a change committed since is read now, or counted in a
            # version that differs from the one kept with it.
            read = await ratings(self.db, list(stale), game)
            for name, version in stale.items():
                found[name] = read.get(name)
                self._entries[(name, game)] = _Entry(version, found[name], now)
                self._entries.move_to_end((name, game))
            while len(self._entries) > CACHE_ENTRIES:
                self._entries.popitem(last=False)
        return [found[name] for name in holders]


# A process's cache of each database it opened: every reader there (logins aside, which read
# the rating with the account) shares it.
_CACHES: weakref.WeakKeyDictionary[Database, RatingCache] = weakref.WeakKeyDictionary()


def ratings_cache(db: Database) -> RatingCache:
    """This process's cache of the ratings in `db`."""
    cache = _CACHES.get(db)
    if cache is None:
        cache = _CACHES[db] = RatingCache(db)
    return cache


async def rating_in(
    redis: aioredis.Redis, db: Database | None, name: str, game: str, house: str | None = None
) -> int | None:
    """The rating in `game` in whole points of the account `name` (or of the house bot at the
    strength of its spec `house`, when given); None when it has none, or there is no
    database."""
    if db is None:
        return None
    (rating,) = await ratings_cache(db).ratings(redis, [holder(name, house)], game)
    return None if rating is None else round(rating.rating)


async def player_in(
    redis: aioredis.Redis,
    db: Database | None,
    player: Player,
    game: str,
    house: str | None = None,
) -> Player:
    """`player` as others see them in `game`: an account, or a house bot at the strength of its
    spec `house`, with its rating there as it is now (it changes after each rated game);
    guests as they are."""
    if player.kind is PlayerKind.HOUSE and house is not None:
        return replace(player, rating=await rating_in(redis, db, player.name, game, house))
    if player.kind not in (PlayerKind.HUMAN, PlayerKind.BOT):
        return player
    return replace(player, rating=await rating_in(redis, db, player.name, game))
