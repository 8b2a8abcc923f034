"""The lobby in Redis: open seeks, direct challenges and the quick-pairing pools. Taking a seek,
a challenge or a pair of waiting players is atomic (the first taker wins); seeks and pool
entries expire unless their owner's server keeps refreshing them, so a crashed server leaves
nothing behind for long.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from server.hub import LOBBY, user_channel
from server.protocol import (
    DEFAULT_GAME,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    ColourPreference,
    ErrorCode,
    Player,
    ProtocolError,
    SeekAdded,
    SeekInfo,
    SeekRemoved,
    TimeControl,
)
from server.ratings import player_in
from server.stored import pack, unpack

if TYPE_CHECKING:
    from server.db import Database

__all__ = ["SEEK_TTL_MS", "Lobby", "Pairing", "pool_name", "pool_terms"]

# The lobby's keys share one hash tag, so taking a seek touches one cluster slot.
SEEKS = "{lobby}:seeks"  # hash: seek id -> SeekInfo (a msgpack map, server/stored.py)
SEEK_EXPIRY = "{lobby}:seek-expiry"  # sorted set: seek id -> ms when it lapses
CHALLENGES = "{lobby}:challenges"  # hash: challenge id -> ChallengeInfo (the same)
POOLS = "{lobby}:pools"  # set of pool names with someone waiting
# A pool (named by `pool_name`) is a sorted set of the names waiting, by rating, with hashes
# `<pool>:since` (name -> ms when they joined) and `<pool>:who` (name -> Player); each pool
# has a hash tag of its own, so pools spread over a cluster's nodes.
POOL_PREFIX = "lobby:pool:"
SEEK_TTL_MS = 60_000  # a seek lapses this long after its owner's server last refreshed it
TAKEN_KEY = "{{lobby}}:seek-taken:{}"  # who accepted a seek, kept a while for a late taker
TAKEN_MS = 3_600_000
MAX_SEEKS = 3  # open seeks one connection may have

# Quick pairing pairs two waiting players whose ratings differ by at most a window that starts
# narrow and widens with the time the earlier of them has waited.
WINDOW_START = 100
WINDOW_GROWTH_PER_SECOND = 25
UNRATED = 1500

# Take a seek: the first caller gets it, later ones get nothing. An accepted seek leaves a note
# of its taker (KEYS[3], for ARGV[3] ms).
TAKE = """
local data = redis.call('HGET', KEYS[1], ARGV[1])
if not data then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[1]) end
if ARGV[2] and ARGV[2] ~= '' then redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3]) end
return data
"""

# Take two players out of a pool together, or neither.
TAKE_PAIR = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1], ARGV[2])
  redis.call('HDEL', KEYS[2], ARGV[1], ARGV[2])
  return 1
end
return 0
"""


def _seek(data: bytes) -> SeekInfo:
    return unpack(SeekInfo, data, "seek", _positional_seek)


def _challenge(data: bytes) -> ChallengeInfo:
    return unpack(ChallengeInfo, data, "challenge", _positional_challenge)


def _player(data: bytes) -> Player:
    return unpack(Player, data, "player", _positional_player)


# Servers before records had named fields stored seeks, challenges and waiting players as lists.


def _positional_player(items: list[Any]) -> dict[str, object]:
    name, kind, rating = items
    return {"name": name, "kind": kind, "rating": rating}


def _positional_time(items: list[Any]) -> dict[str, object]:
    base, increment = items
    return {"base": base, "increment": increment}


def _positional_seek(items: list[Any]) -> dict[str, object]:
    seek_id, player, setup, time, rated, colour = items
    return {
        "seek_id": seek_id,
        "player": _positional_player(player),
        "setup": setup,
        "time": _positional_time(time),
        "rated": rated,
        "colour": colour,
    }


def _positional_challenge(items: list[Any]) -> dict[str, object]:
    challenge_id, challenger, opponent, setup, time, rated, colour = items
    return {
        "challenge_id": challenge_id,
        "challenger": _positional_player(challenger),
        "opponent": _positional_player(opponent),
        "setup": setup,
        "time": _positional_time(time),
        "rated": rated,
        "colour": colour,
    }


@dataclass(frozen=True)
class Pairing:
    """Two players quick pairing matched, in the pool they waited in."""

    first: Player
    second: Player
    game: str
    setup: str
    time: TimeControl
    rated: bool


def pool_name(game: str, setup: str, time: TimeControl, rated: bool) -> str:
    terms = f"{setup}:{time.base}+{time.increment}:{'rated' if rated else 'casual'}"
    return f"{POOL_PREFIX}{{{game}:{terms}}}"


def pool_terms(name: str) -> tuple[str, str, TimeControl, bool]:
    """The game, setup, time control and rating of a pool, by its name. Pools named before
    there were several games (`lobby:pool:<setup>:...`) are the default game's."""
    parts = name.removeprefix(POOL_PREFIX).strip("{}").split(":")
    if len(parts) == 3:
        parts.insert(0, DEFAULT_GAME)
    game, setup, time, rated = parts
    base, increment = time.split("+")
    return game, setup, TimeControl(int(base), int(increment)), rated == "rated"


class Lobby:
    def __init__(self, redis: aioredis.Redis, database: Database | None = None) -> None:
        """The lobby of `redis`, showing players with their ratings in `database` (none
        without one)."""
        self.redis = redis
        self.database = database
        self._take = redis.register_script(TAKE)
        self._take_pair = redis.register_script(TAKE_PAIR)

    # Seeks

    async def seeks(self, now: int) -> list[SeekInfo]:
        live = await self.redis.zrangebyscore(SEEK_EXPIRY, now, "+inf")
        if not live:
            return []
        found = await self.redis.hmget(SEEKS, live)
        return [_seek(data) for data in found if data is not None]

    async def add_seek(
        self,
        player: Player,
        *,
        game: str,
        setup: str,
        time: TimeControl,
        rated: bool,
        colour: ColourPreference,
        now: int,
    ) -> SeekInfo:
        """Open a seek; the lobby shows `player` with their rating in `game`."""
        player = await player_in(self.redis, self.database, player, game)
        seek = SeekInfo(secrets.token_urlsafe(6), player, setup, time, rated, colour, game)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(SEEKS, seek.seek_id, pack(seek))
            pipe.zadd(SEEK_EXPIRY, {seek.seek_id: now + SEEK_TTL_MS})
            await pipe.execute()
        # After EXEC: a cluster takes no PUBLISH in a transaction.
        await self.redis.publish(LOBBY, SeekAdded(seek).to_wire())
        return seek

    async def open_seeks(self, seek_ids: Collection[str]) -> set[str]:
        """Those of `seek_ids` that are still open (not taken, cancelled or expired)."""
        if not seek_ids:
            return set()
        ids = list(seek_ids)
        found = await self.redis.hmget(SEEKS, ids)
        return {seek_id for seek_id, data in zip(ids, found, strict=True) if data is not None}

    async def refresh_seeks(self, seek_ids: list[str], now: int) -> None:
        if seek_ids:
            await self.redis.zadd(SEEK_EXPIRY, dict.fromkeys(seek_ids, now + SEEK_TTL_MS), xx=True)

    async def take_seek(self, seek_id: str, *, taker: str = "") -> SeekInfo | None:
        """Remove the seek and return it, unless someone else took it first; `taker` names
        who accepted it (none when it is cancelled or lapses)."""
        data = await self._take(
            keys=[SEEKS, SEEK_EXPIRY, TAKEN_KEY.format(seek_id)], args=[seek_id, taker, TAKEN_MS]
        )
        if data is None:
            return None
        await self.redis.publish(LOBBY, SeekRemoved(seek_id).to_wire())
        return _seek(data)

    async def peek_seek(self, seek_id: str, now: int) -> SeekInfo | None:
        expiry = await self.redis.zscore(SEEK_EXPIRY, seek_id)
        data = await self.redis.hget(SEEKS, seek_id)
        if data is None or expiry is None or expiry < now:
            return None
        return _seek(data)

    async def taker(self, seek_id: str) -> str | None:
        """Who accepted the seek, if it was accepted in the last hour."""
        name = await self.redis.get(TAKEN_KEY.format(seek_id))
        return name.decode() if isinstance(name, bytes) else name

    async def sweep_seeks(self, now: int) -> None:
        """Drop seeks whose owner's server stopped refreshing them."""
        for seek_id in await self.redis.zrangebyscore(SEEK_EXPIRY, "-inf", now - 1):
            await self.take_seek(seek_id.decode() if isinstance(seek_id, bytes) else seek_id)

    # Challenges

    async def add_challenge(self, challenge: ChallengeInfo) -> ChallengeInfo:
        """Open a challenge, its players shown with their ratings in its game; the challenge
        as opened."""
        game = challenge.game
        challenge = replace(
            challenge,
            challenger=await player_in(self.redis, self.database, challenge.challenger, game),
            opponent=await player_in(self.redis, self.database, challenge.opponent, game),
        )
        await self.redis.hset(CHALLENGES, challenge.challenge_id, pack(challenge))
        await self.redis.publish(
            user_channel(challenge.opponent.name), ChallengeAdded(challenge).to_wire()
        )
        return challenge

    async def challenges_for(self, name: str) -> list[ChallengeInfo]:
        """The open challenges addressed to `name`."""
        found = [_challenge(data) for data in (await self.redis.hgetall(CHALLENGES)).values()]
        return [c for c in found if c.opponent.name.lower() == name.lower()]

    async def challenge(self, challenge_id: str) -> ChallengeInfo:
        data = await self.redis.hget(CHALLENGES, challenge_id)
        if data is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no open challenge {challenge_id}")
        return _challenge(data)

    async def close_challenge(
        self, challenge_id: str, outcome: ChallengeOutcome, *, by: str, reason: str | None = None
    ) -> ChallengeInfo | None:
        """Remove the challenge and tell the side that did not close it (`by` gets the reply),
        with `reason` when one was given; None when it was already closed."""
        data = await self._take(keys=[CHALLENGES], args=[challenge_id])
        if data is None:
            return None
        challenge = _challenge(data)
        other = challenge.opponent if challenge.challenger.name == by else challenge.challenger
        await self.redis.publish(
            user_channel(other.name), ChallengeRemoved(challenge_id, outcome, reason).to_wire()
        )
        return challenge

    async def close_challenges_of(self, name: str, reason: str) -> int:
        """Close every open challenge `name` sent (cancelled) or was sent (declined), telling
        the other side `reason`: for an account that can play no more. How many were open."""
        found = [_challenge(data) for data in (await self.redis.hgetall(CHALLENGES)).values()]
        key = name.lower()
        closed = 0
        for challenge in found:
            if challenge.challenger.name.lower() == key:
                outcome, by = ChallengeOutcome.CANCELLED, challenge.challenger.name
            elif challenge.opponent.name.lower() == key:
                outcome, by = ChallengeOutcome.DECLINED, challenge.opponent.name
            else:
                continue
            if await self.close_challenge(challenge.challenge_id, outcome, by=by, reason=reason):
                closed += 1
        return closed

    # Quick pairing

    async def join_pool(
        self, player: Player, game: str, setup: str, time: TimeControl, rated: bool, now: int
    ) -> None:
        """Wait in the pool of these terms, paired by the rating in `game`."""
        player = await player_in(self.redis, self.database, player, game)
        pool = pool_name(game, setup, time, rated)
        for other in await self.redis.smembers(POOLS):
            name = other.decode()
            if name != pool and await self.redis.zscore(name, player.name) is not None:
                raise ProtocolError(ErrorCode.CONFLICT, "already waiting for quick pairing")
        added = await self.redis.zadd(pool, {player.name: player.rating or UNRATED}, nx=True)
        if not added:
            raise ProtocolError(ErrorCode.CONFLICT, "already waiting for quick pairing")
        await self.redis.hset(pool + ":since", player.name, now)
        await self.redis.hset(pool + ":who", player.name, pack(player))
        await self.redis.sadd(POOLS, pool)

    async def leave_pools(self, name: str) -> bool:
        """Take `name` out of every pool; whether it was in one."""
        left = False
        for pool in await self.redis.smembers(POOLS):
            key = pool.decode()
            if await self.redis.zrem(key, name):
                await self.redis.hdel(key + ":since", name)
                await self.redis.hdel(key + ":who", name)
                left = True
        return left

    async def pair(self, now: int) -> list[Pairing]:
        """Match waiting players whose ratings are within the window of the one who has
        waited longer; each player is taken by one pairing only, whichever process runs it."""
        pairings = []
        for pool in await self.redis.smembers(POOLS):
            key = pool.decode()
            waiting = await self.redis.zrange(key, 0, -1, withscores=True)
            if not waiting:
                await self.redis.srem(POOLS, key)
                continue
            since = {
                k.decode(): int(v) for k, v in (await self.redis.hgetall(key + ":since")).items()
            }
            names = [(name.decode(), score) for name, score in waiting]
            i = 0
            while i + 1 < len(names):
                (a, ra), (b, rb) = names[i], names[i + 1]
                waited = (now - min(since.get(a, now), since.get(b, now))) / 1000
                window = WINDOW_START + WINDOW_GROWTH_PER_SECOND * max(0.0, waited)
                if abs(ra - rb) <= window or math.isinf(window):
                    who = await self.redis.hmget(key + ":who", [a, b])
                    if None not in who and await self._take_pair(
                        keys=[key, key + ":since"], args=[a, b]
                    ):
                        await self.redis.hdel(key + ":who", a, b)
                        game, setup, time, rated = pool_terms(key)
                        pairings.append(
                            Pairing(
                                _player(who[0]),
                                _player(who[1]),
                                game,
                                setup,
                                time,
                                rated,
                            )
                        )
                    i += 2
                else:
                    i += 1
        return pairings
