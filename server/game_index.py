"""The indexes that follow the live games: which games are live, when each must be looked at
(deadlines), how many watch each, which wait for a house bot's move, which ended and wait for
their hand-over to the history store, and each player's live games. None is the truth: each is
derived from the games' documents, so a game's commit touches only the game's own keys (one
cluster slot) and the indexes are written beside it, idempotently:

- what a commit adds goes in *before* the commit (a deadline brought forward, a new game in the
  live set and its players' sets, a house bot's request): an entry that says more than the game
  does is harmless, as whoever reads it reads the game too and drops or corrects it;
- what a commit takes away goes *after* it, the hand-over entry of an ended game first: a game
  that ended stays live in the index until it is on the hand-over set;
- `GameIndex.repair` puts one bucket right from the games it lists (a server runs it over every
  bucket in turn), so a process killed between a commit and its index writes loses nothing.

Each index is split in BUCKETS buckets, each under a hash tag of its own, so that no one key is
every move's key and a Redis Cluster spreads them over its masters; a game's bucket follows from
its slot. A player's live games are a set under the player's tag.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any, Final

import redis.asyncio as aioredis
from redis.crc import key_slot

from server.lane import sharded
from server.protocol import GameStatus
from server.stored_game import COLOURS, StoredGame

__all__ = [
    "BUCKETS",
    "HOUSE_STREAMS",
    "HOUSE_WAKE",
    "GameIndex",
    "bucket_of",
    "deadlines_key",
    "handover_key",
    "house_stream",
    "live_key",
    "spectators_key",
    "user_games_key",
]

BUCKETS: Final = 16
# The keys of an older data folder, one for each index (moved once, `GameIndex.move_older`).
OLD_LIVE: Final = "games:live"
OLD_DEADLINES: Final = "games:deadlines"
OLD_SPECTATORS: Final = "games:spectators"
OLD_HANDOVER: Final = "games:handover"
OLD_HOUSE_STREAM: Final = "ai:requests"


def bucket_of(game_id: str) -> int:
    """The bucket of a game's index entries: from the slot of the game's own keys."""
    slot: int = key_slot(f"{{g:{game_id}}}".encode())
    return slot % BUCKETS


def _bucket_key(bucket: int, name: str) -> str:
    return f"{{ix:{bucket}}}:{name}"


def live_key(bucket: int) -> str:
    """Set: the ids of the bucket's games in play (and of those that ended and are not yet on
    the hand-over set)."""
    return _bucket_key(bucket, "live")


def deadlines_key(bucket: int) -> str:
    """Sorted set: game id -> server ms at which the game must be looked at (a clock run out, a
    first move not made). Never later than the game's own deadline; earlier is looked at and
    put right."""
    return _bucket_key(bucket, "deadlines")


def spectators_key(bucket: int) -> str:
    """Hash: game id -> its spectators connected."""
    return _bucket_key(bucket, "spectators")


def handover_key(bucket: int) -> str:
    """Set: ended games not yet in the history store (server/db/), taken off once their record
    is written (`GameStore.hand_over`)."""
    return _bucket_key(bucket, "handover")


def house_stream(bucket: int) -> str:
    """Stream: house-bot move requests (game_id, ply) of the bucket's games, read by the
    workers (server/worker.py) through a consumer group."""
    return _bucket_key(bucket, "house")


HOUSE_STREAMS: Final = tuple(house_stream(bucket) for bucket in range(BUCKETS))
# List: an entry for each house-bot request, the newest WAKES kept, on a Redis Cluster only:
# its streams lie in different slots, which no one read can block on, so an idle worker blocks
# on this one (BLPOP) and then reads them all.
HOUSE_WAKE: Final = "{house}:wake"
WAKES: Final = 16


def user_games_key(name: str) -> str:
    """Set: a player's live games."""
    return f"{{u:{name.lower()}}}:games"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _by_bucket(game_ids: Iterable[str]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = defaultdict(list)
    for game_id in game_ids:
        found[bucket_of(game_id)].append(game_id)
    return found


def house_ply(game: StoredGame) -> int | None:
    """The ply a house bot is asked to play in `game`, or None when no house bot is to move."""
    if game.status is not GameStatus.PLAYING:
        return None
    return game.ply if game.house[COLOURS.index(game.to_move)] is not None else None


class GameIndex:
    """The game indexes of one Redis."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._wake = sharded(redis)
        # The games `repair` found listed without a document, by bucket: forgotten when the
        # next repair of the bucket finds them so still (a new game is listed just before its
        # first commit stores it).
        self._missing: dict[int, set[str]] = defaultdict(set)

    # Around a commit

    def additions(
        self, game: StoredGame, *, new: bool, before: StoredGame | None
    ) -> list[Awaitable[Any]]:
        """The index writes to send before the commit of `game` (`new`: its first commit) made
        on `before` (None: not known)."""
        game_id = game.game_id
        bucket = bucket_of(game_id)
        writes: list[Awaitable[Any]] = []
        if game.status is GameStatus.PLAYING:
            # Only ever brought forward here: a later deadline is set by whoever looks at the
            # game at the earlier one (`due`), so a commit that loses the race to another
            # never leaves the index later than the game. The entry is no later than the
            # deadline of the game the commit was made on (the commit checks it is the one
            # stored), so a deadline no earlier than that one needs no write: most moves.
            at = game.clock.timeout_at()
            if (
                before is None
                or before.status is not GameStatus.PLAYING
                or at < before.clock.timeout_at()
            ):
                writes.append(self.redis.zadd(deadlines_key(bucket), {game_id: at}, lt=True))
        if new:
            writes.append(self.redis.sadd(live_key(bucket), game_id))
            for player in (game.white, game.black):
                writes.append(self.redis.sadd(user_games_key(player.name), game_id))
        return writes

    async def ask_house(self, game_id: str, ply: int) -> None:
        """Ask the house bot to move in game `game_id` at `ply` (a repeat is harmless: a worker
        plays a ply once)."""
        await self.redis.xadd(house_stream(bucket_of(game_id)), {"game_id": game_id, "ply": ply})
        if self._wake:
            await asyncio.gather(
                self.redis.lpush(HOUSE_WAKE, game_id), self.redis.ltrim(HOUSE_WAKE, 0, WAKES - 1)
            )

    async def ended(self, game: StoredGame) -> None:
        """Once a commit ended `game`: on the hand-over set, then out of the live indexes."""
        game_id = game.game_id
        bucket = bucket_of(game_id)
        await self.redis.sadd(handover_key(bucket), game_id)
        await self.forget(game_id, (game.white.name, game.black.name))

    async def forget(self, game_id: str, players: Sequence[str]) -> None:
        """Take a game that is no longer played off the live indexes."""
        bucket = bucket_of(game_id)
        await asyncio.gather(
            self.redis.srem(live_key(bucket), game_id),
            self.redis.zrem(deadlines_key(bucket), game_id),
            self.redis.hdel(spectators_key(bucket), game_id),
            *(self.redis.srem(user_games_key(name), game_id) for name in players),
        )

    # Readers

    async def live(self, bucket: int | None = None) -> list[str]:
        """The games in the live index: of one bucket, or of all."""
        buckets = range(BUCKETS) if bucket is None else (bucket,)
        found = await asyncio.gather(*(self.redis.smembers(live_key(b)) for b in buckets))
        return sorted(_text(game_id) for members in found for game_id in members)

    async def count_live(self) -> int:
        counts = await asyncio.gather(*(self.redis.scard(live_key(b)) for b in range(BUCKETS)))
        return sum(int(count) for count in counts)

    async def not_live(self, game_ids: Sequence[str]) -> set[str]:
        """Those of `game_ids` that are not in the live index."""
        groups = _by_bucket(game_ids)
        answers = await asyncio.gather(
            *(self.redis.smismember(live_key(b), ids) for b, ids in groups.items())
        )
        return {
            game_id
            for ids, live in zip(groups.values(), answers, strict=True)
            for game_id, member in zip(ids, live, strict=True)
            if not member
        }

    async def due(self, now: int, limit: int) -> list[str]:
        """Games whose deadline in the index has passed, at most `limit` from each bucket."""
        found = await asyncio.gather(
            *(
                self.redis.zrangebyscore(deadlines_key(b), "-inf", now, start=0, num=limit)
                for b in range(BUCKETS)
            )
        )
        return [_text(game_id) for ids in found for game_id in ids]

    async def set_deadline(self, game_id: str, at: int | None) -> None:
        """The deadline of a game looked at: its own (None: it has none, it is not played)."""
        key = deadlines_key(bucket_of(game_id))
        if at is None:
            await self.redis.zrem(key, game_id)
        else:
            await self.redis.zadd(key, {game_id: at})

    async def spectators(self, game_ids: Sequence[str]) -> dict[str, int]:
        groups = _by_bucket(game_ids)
        answers = await asyncio.gather(
            *(self.redis.hmget(spectators_key(b), ids) for b, ids in groups.items())
        )
        return {
            game_id: max(0, int(count or 0))
            for ids, counts in zip(groups.values(), answers, strict=True)
            for game_id, count in zip(ids, counts, strict=True)
        }

    async def games_of(self, name: str) -> list[str]:
        return sorted(_text(game_id) for game_id in await self.redis.smembers(user_games_key(name)))

    async def waiting_handover(self) -> list[str]:
        found = await asyncio.gather(
            *(self.redis.smembers(handover_key(b)) for b in range(BUCKETS))
        )
        return sorted(_text(game_id) for members in found for game_id in members)

    async def handing_over(self, game_id: str) -> bool:
        """Whether the ended game is still to be handed over: on the hand-over set, or still
        live in the index (the writes that follow its end not yet made)."""
        bucket = bucket_of(game_id)
        found = await asyncio.gather(
            self.redis.sismember(handover_key(bucket), game_id),
            self.redis.sismember(live_key(bucket), game_id),
        )
        return any(found)

    async def to_hand_over(self, game_ids: Iterable[str]) -> None:
        """Put ended games on the hand-over set."""
        for bucket, ids in _by_bucket(game_ids).items():
            await self.redis.sadd(handover_key(bucket), *ids)

    async def handed_over(self, game_id: str) -> None:
        await self.redis.srem(handover_key(bucket_of(game_id)), game_id)

    # The sweep

    async def repair(self, bucket: int, games: dict[str, StoredGame | None]) -> int:
        """Put bucket `bucket` right from `games` (each game of its live set as read after the
        set, None for one Redis has not): an ended game onto the hand-over set and off the
        live indexes, a game in play into its players' sets with its deadline no later than
        its own and its house bot asked when none is, a game gone from Redis off the indexes.
        How many entries were wrong."""
        asked = await self._asked(bucket)
        missing = {game_id for game_id, game in games.items() if game is None}
        wrong = 0
        for game_id, game in games.items():
            if game is None:
                if game_id in self._missing[bucket]:
                    await self.forget(game_id, ())
                    wrong += 1
            elif game.status is not GameStatus.PLAYING:
                await self.ended(game)
                wrong += 1
            else:
                at = game.clock.timeout_at()
                writes = await asyncio.gather(
                    self.redis.zadd(deadlines_key(bucket), {game_id: at}, lt=True, ch=True),
                    self.redis.sadd(user_games_key(game.white.name), game_id),
                    self.redis.sadd(user_games_key(game.black.name), game_id),
                )
                if not await self.redis.sismember(live_key(bucket), game_id):
                    # It ended since it was read, and its process took it off the indexes
                    # before the writes above: they must not outlive it.
                    await self.forget(game_id, (game.white.name, game.black.name))
                    continue
                wrong += sum(int(count) for count in writes)
                ply = house_ply(game)
                if ply is not None and (game_id, ply) not in asked:
                    await self.ask_house(game_id, ply)
                    wrong += 1
        self._missing[bucket] = missing
        return wrong

    async def _asked(self, bucket: int) -> set[tuple[str, int]]:
        """The (game, ply) of every request in the bucket's stream: waiting or being played."""
        entries = await self.redis.xrange(house_stream(bucket))
        asked: set[tuple[str, int]] = set()
        for _, fields in entries:
            try:
                asked.add((_text(fields[b"game_id"]), int(fields[b"ply"])))
            except (KeyError, ValueError, UnicodeDecodeError):
                continue  # the worker that reads it drops it
        return asked

    # An older data folder's

    async def move_older(self) -> int:
        """Move the indexes an older data folder keeps under one key each (`games:live`,
        `games:deadlines`, `games:spectators`, `games:handover`, `ai:requests`, and a
        `user-games:NAME` set a player) into their buckets, once: copied first, deleted after,
        so that a process stopped in between moves them again. How many entries moved. A
        player's live games are not copied: `repair` puts each live game back in its players'
        sets."""
        older = (OLD_LIVE, OLD_DEADLINES, OLD_SPECTATORS, OLD_HANDOVER, OLD_HOUSE_STREAM)
        if not any(await asyncio.gather(*(self.redis.exists(key) for key in older))):
            return 0
        moved = 0
        live = [_text(game_id) for game_id in await self.redis.smembers(OLD_LIVE)]
        for bucket, ids in _by_bucket(live).items():
            moved += await self.redis.sadd(live_key(bucket), *ids)
        for game_id, at in await self.redis.zrange(OLD_DEADLINES, 0, -1, withscores=True):
            game_id = _text(game_id)
            await self.redis.zadd(deadlines_key(bucket_of(game_id)), {game_id: at}, lt=True)
            moved += 1
        for game_id, count in (await self.redis.hgetall(OLD_SPECTATORS)).items():
            await self.redis.hset(spectators_key(bucket_of(_text(game_id))), _text(game_id), count)
            moved += 1
        handover = [_text(game_id) for game_id in await self.redis.smembers(OLD_HANDOVER)]
        await self.to_hand_over(handover)
        moved += len(handover)
        for _, fields in await self.redis.xrange(OLD_HOUSE_STREAM):
            # A request a worker had taken is asked again: a worker plays a ply once.
            with contextlib.suppress(KeyError, ValueError, UnicodeDecodeError):
                await self.ask_house(_text(fields[b"game_id"]), int(fields[b"ply"]))
                moved += 1
        # Left only while a game was in play, when `games:live` is there too.
        players = [key async for key in self.redis.scan_iter(match="user-games:*", count=1000)]
        await self.redis.delete(*older, *players)
        return moved
