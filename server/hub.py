"""The pub/sub hub of one server process: a single Redis subscription connection that joins a
channel while some local connection follows it (a game, a user, the lobby) and hands each
message to those connections, which queue it without waiting (see `Follower`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

import redis.asyncio as aioredis
import structlog

__all__ = ["LOBBY", "Follower", "Hub", "user_channel"]

LOBBY = "lobby"
log = structlog.get_logger(__name__)


def user_channel(name: str) -> str:
    """The channel of news for one user: challenges, games that start."""
    return f"user:{name.lower()}"


class Follower(Protocol):
    def deliver(self, channel: str, data: bytes) -> None:
        """Queue a published frame; must not block or raise."""


class Hub:
    """Routes published frames to the local followers of each channel."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._pubsub = redis.pubsub()
        self._followers: dict[str, set[Follower]] = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        # The lobby is always followed, so the subscription connection always exists.
        await self._pubsub.subscribe(LOBBY)
        self._followers.setdefault(LOBBY, set())
        self._task = asyncio.create_task(self._run(), name="hub")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._pubsub.aclose()

    async def follow(self, channel: str, follower: Follower) -> None:
        """Start handing `channel`'s frames to `follower`; when this returns, the subscription
        is active, so a state read after it misses no later event."""
        async with self._lock:
            followers = self._followers.setdefault(channel, set())
            if not followers and channel != LOBBY:
                await self._pubsub.subscribe(channel)
            followers.add(follower)

    async def unfollow(self, channel: str, follower: Follower) -> None:
        async with self._lock:
            followers = self._followers.get(channel)
            if followers is None or follower not in followers:
                return
            followers.discard(follower)
            if not followers and channel != LOBBY:
                del self._followers[channel]
                await self._pubsub.unsubscribe(channel)

    def followers(self, channel: str) -> int:
        return len(self._followers.get(channel, ()))

    async def _run(self) -> None:
        while True:
            try:
                # No timeout: a read that waits without one costs no timer per message.
                message: dict[str, Any] | None = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=None
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                # Redis went away: frames published meanwhile are lost, and clients notice the
                # gap in event versions and resync. Keep trying.
                log.exception("hub_read_failed")
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"]
            if isinstance(channel, bytes):
                channel = channel.decode()
            for follower in tuple(self._followers.get(channel, ())):
                follower.deliver(channel, message["data"])
