"""An older data folder's keys moved to the names a Redis Cluster needs: the keys one script or
transaction touches together share a hash tag, so they share a slot (the lobby's `{lobby}`, each
quick-pairing pool's own, an account's `{u:NAME}`, a client address's sign-up counts). Servers
before kept them untagged; the first server process to start on such a folder renames them once,
and notes in `KEY_NAMES` that it did. A cluster never held the old names (no server before
these ran on one), so there is nothing to move there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final, NamedTuple

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from server import identity, lobby
from server.lane import sharded
from server.throttle import signup_keys

__all__ = ["KEY_NAMES", "KEY_NAMES_REVISION", "MovedKeys", "move_keys"]

KEY_NAMES: Final = "key-names"  # string: the revision of the key names the data is under
KEY_NAMES_REVISION: Final = 1  # tagged for a cluster
SCAN_BATCH: Final = 500

OLD_SEEKS: Final = "lobby:seeks"
OLD_SEEK_EXPIRY: Final = "lobby:seek-expiry"
OLD_CHALLENGES: Final = "lobby:challenges"
OLD_POOLS: Final = "lobby:pools"
OLD_TAKEN: Final = "lobby:seek-taken:"
OLD_SIGNUPS: Final = ("signup:hour:", "signup:day:")  # each, then the client's address


class MovedKeys(NamedTuple):
    """How many keys were renamed: the lobby's (seeks, challenges, pools and who took a seek),
    guests' and session lists', and sign-up counts."""

    lobby: int
    accounts: int
    signups: int

    def __str__(self) -> str:
        return (
            f"{self.lobby} lobby, {self.accounts} account and {self.signups} sign-up key"
            f"{'' if sum(self) == 1 else 's'} renamed for a cluster"
        )


async def move_keys(redis: aioredis.Redis) -> MovedKeys | None:
    """Rename the keys an older data folder kept under the names of servers before hash tags;
    None when its keys are under today's already (moved before, or a new folder)."""
    found = await redis.get(KEY_NAMES)
    if found is not None and int(found) >= KEY_NAMES_REVISION:
        return None
    moved = MovedKeys(0, 0, 0) if sharded(redis) else await _move(redis)
    await redis.set(KEY_NAMES, KEY_NAMES_REVISION)
    return moved


async def _move(redis: aioredis.Redis) -> MovedKeys:
    lobby_keys = 0
    for old, new in (
        (OLD_SEEKS, lobby.SEEKS),
        (OLD_SEEK_EXPIRY, lobby.SEEK_EXPIRY),
        (OLD_CHALLENGES, lobby.CHALLENGES),
    ):
        lobby_keys += await _rename(redis, old, new)
    async for key in _scan(redis, OLD_TAKEN + "*"):
        lobby_keys += await _rename(redis, key, lobby.TAKEN_KEY.format(key[len(OLD_TAKEN) :]))
    for pool in [_text(name) for name in await redis.smembers(OLD_POOLS)]:
        new = lobby.pool_name(*lobby.pool_terms(pool))
        for suffix in ("", ":since", ":who"):
            lobby_keys += await _rename(redis, pool + suffix, new + suffix)
        await redis.sadd(lobby.POOLS, new)
    lobby_keys += await redis.delete(OLD_POOLS)

    accounts = 0
    guests = identity.OLD_USER_KEY.format(identity.GUEST_PREFIX)
    async for key in _scan(redis, guests + "*", "hash"):
        accounts += await _rename(redis, key, identity.user_key(key.partition(":")[2]))
    async for key in _scan(redis, identity.OLD_SESSIONS_KEY.format("*"), "hash"):
        holder = key.partition(":")[2]
        accounts += await _rename(redis, key, identity.sessions_key(holder))

    signups = 0
    for prefix, window in zip(OLD_SIGNUPS, (0, 1), strict=True):
        async for key in _scan(redis, prefix + "*"):
            signups += await _rename(redis, key, signup_keys(key[len(prefix) :])[window])
    return MovedKeys(lobby_keys, accounts, signups)


async def _rename(redis: aioredis.Redis, old: str, new: str) -> int:
    """Rename `old` to `new` (its time to live with it), unless a server already wrote `new`:
    then what `old` holds that `new` does not is added to it. 1 if `old` was there."""
    try:
        if await redis.renamenx(old, new):
            return 1
    except ResponseError:  # no such key: none, or another process starting moved it first
        return 0
    kind = _text(await redis.type(old))
    if kind == "hash":
        for field, value in (await redis.hgetall(old)).items():
            await redis.hsetnx(new, field, value)
    elif kind == "zset":
        await redis.zadd(new, dict(await redis.zrange(old, 0, -1, withscores=True)), nx=True)
    elif kind == "set":
        await redis.sadd(new, *await redis.smembers(old))
    # A string (who took a seek, a count) that a server wrote since is the newer one.
    await redis.delete(old)
    return 1


async def _scan(redis: aioredis.Redis, match: str, kind: str | None = None) -> AsyncIterator[str]:
    # Listed before any is renamed: a scan need not see a key renamed under it twice.
    keys = [_text(key) async for key in redis.scan_iter(match=match, count=SCAN_BATCH, _type=kind)]
    for key in keys:
        yield key


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
