"""Slows password guessing: failed logins are counted in Redis, so every server process sees
them, per account and client address, per client address, and per account. Each count lapses
a fixed window after its first failure. The per-account count, the only one a stranger can run
up for somebody else, does not hold back an address the account has logged in from before, so
guessing at an account never locks its owner out at home, and elsewhere for one window at most.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

__all__ = ["LoginLimits", "LoginThrottle"]

# Count a failure: the first one of a window starts the window.
_FAIL = """
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[i]) end
end
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
        await self._fail(
            keys=[_pair_key(account, address), _address_key(address), _account_key(account)],
            args=[limits.pair_ms, limits.address_ms, limits.account_ms],
        )

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
