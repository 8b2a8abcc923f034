"""Slows password guessing: failed logins are counted in Redis, so every server process sees
them, per account and client address, per client address, and per account. Each count lapses
a fixed window after its first failure. The per-account count, the only one a stranger can run
up for somebody else, does not hold back an address the account has logged in from before, so
guessing at an account never locks its owner out at home, and elsewhere for one window at most.
Sign-ups are counted the same way, per client address, so that one client cannot make accounts
by the thousand.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import redis.asyncio as aioredis

__all__ = ["LoginLimits", "LoginThrottle", "SignupLimits", "SignupThrottle", "signup_keys"]

# Count a failure: the first one of a window starts the window. One key a call: the three
# counts of a failure may lie on three nodes of a cluster.
_FAIL = """
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
"""

KNOWN_MS = 30 * 24 * 3600 * 1000  # an address stays known for an account this long after a login


@dataclass(frozen=True)
class LoginLimits:
    """Failed logins allowed in each window (ms) before the next attempt is refused."""

    pair: int = 5  # one account from one address
    pair_ms: int = 5 * 60 * 1000
    address: int = 30  # any accounts from one address
    address_ms: int = 15 * 60 * 1000
    account: int = 20  # one account from addresses it has not logged in from
    account_ms: int = 15 * 60 * 1000


class LoginThrottle:
    def __init__(self, redis: aioredis.Redis, limits: LoginLimits | None = None) -> None:
        self.redis = redis
        self.limits = limits or LoginLimits()
        self._fail = redis.register_script(_FAIL)

    async def wait(self, name: str, address: str) -> int:
        """Seconds before `address` may try a password for `name` again; 0: now."""
        limits, account = self.limits, name.lower()
        keys = (_pair_key(account, address), _address_key(address), _account_key(account))
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.get(key)
                pipe.pttl(key)
            pipe.sismember(_known_key(account), address)
            pair, pair_ttl, anyone, anyone_ttl, total, total_ttl, known = await pipe.execute()
        counts = [(pair, pair_ttl, limits.pair), (anyone, anyone_ttl, limits.address)]
        if not known:
            counts.append((total, total_ttl, limits.account))
        return max(
            (-(-int(ttl) // 1000) for n, ttl, limit in counts if int(n or 0) >= limit and ttl > 0),
            default=0,
        )

    async def failed(self, name: str, address: str) -> None:
        limits, account = self.limits, name.lower()
        windows = (
            (_pair_key(account, address), limits.pair_ms),
            (_address_key(address), limits.address_ms),
            (_account_key(account), limits.account_ms),
        )
        # At once: through the lane, the three go out together.
        await asyncio.gather(*(self._fail(keys=[key], args=[ms]) for key, ms in windows))

    async def succeeded(self, name: str, address: str) -> None:
        account = name.lower()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(_pair_key(account, address))
            pipe.sadd(_known_key(account), address)
            pipe.pexpire(_known_key(account), KNOWN_MS)
            await pipe.execute()


def _pair_key(account: str, address: str) -> str:
    return f"login:fail:{account}:{address}"


def _address_key(address: str) -> str:
    return f"login:fail-from:{address}"


def _account_key(account: str) -> str:
    return f"login:fail-of:{account}"


def _known_key(account: str) -> str:
    return f"login:known:{account}"


# Take a sign-up slot in each window unless one is full: 0 if taken, else the ms until the
# fullest window's end. One step, so that sign-ups sent at once from one address cannot all
# pass a check made before any of them is counted.
_TAKE = """
local wait = 0
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[2 * i - 1]) then
    wait = math.max(wait, redis.call('PTTL', key))
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[2 * i]) end
end
return 0
"""

# Give a slot back (the sign-up it was taken for was refused), in the windows still open.
_GIVE_BACK = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('DECR', key) end
end
"""


@dataclass(frozen=True)
class SignupLimits:
    """Accounts one client address may make in each window (ms)."""

    hour: int = 5
    hour_ms: int = 3600 * 1000
    day: int = 20
    day_ms: int = 24 * 3600 * 1000


class SignupThrottle:
    """Counts the accounts made from each client address in Redis, so every server process
    counts them; each count lapses a fixed window after its first sign-up."""

    def __init__(self, redis: aioredis.Redis, limits: SignupLimits | None = None) -> None:
        self.limits = limits or SignupLimits()
        self._take = redis.register_script(_TAKE)
        self._give_back = redis.register_script(_GIVE_BACK)

    async def take(self, address: str) -> int:
        """Count a sign-up from `address`: 0 if it may go ahead, else the seconds until it may
        (and nothing is counted)."""
        limits = self.limits
        wait = await self._take(
            keys=signup_keys(address),
            args=[limits.hour, limits.hour_ms, limits.day, limits.day_ms],
        )
        return -(-int(wait) // 1000)

    async def give_back(self, address: str) -> None:
        """Uncount a sign-up `take` counted that made no account."""
        await self._give_back(keys=signup_keys(address))


def signup_keys(address: str) -> list[str]:
    """The hour's and the day's sign-up counts of a client address: tagged by the address, so
    that the one script that takes both touches one cluster slot."""
    return [f"signup:{{{address}}}:hour", f"signup:{{{address}}}:day"]
