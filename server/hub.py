"""The pub/sub hub of one server process: a single Redis subscription connection that joins a
channel while some local connection follows it (a game, a user, the lobby) and hands each
message to those connections, which write it out without waiting (see `Follower`).

The subscription is a connection of the hub's own (hiredis reads the messages as they arrive
and the hub hands them on in the same turn of the event loop, about 2 µs a message), or
redis-py's PubSub over TLS. Each message is decoded once, for every follower. A subscription
that breaks is made again, with every channel still followed; the messages published
meanwhile are lost, so every follower is then told to catch up from what Redis stores.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

import hiredis
import msgpack
import redis.asyncio as aioredis
import structlog
from redis.exceptions import ConnectionError, ResponseError

from server.lane import Caller, Endpoint, command

__all__ = ["LOBBY", "NAME", "Follower", "Hub", "user_channel"]

LOBBY = "lobby"
NAME = "arena-hub"  # the subscription's connection name in Redis
RECONNECT_SECONDS = 0.5
# How long a subscription may wait for Redis to confirm it before it fails.
CONFIRM_SECONDS = 10.0
log = structlog.get_logger(__name__)

# What the hub hands on: the channel, the frame as published and its msgpack map decoded.
Dispatch = Callable[[str, bytes], None]


def user_channel(name: str) -> str:
    """The channel of news for one user: challenges, games that start."""
    return f"user:{name.lower()}"


class Follower(Protocol):
    def deliver(self, channel: str, data: bytes, event: dict[str, Any]) -> None:
        """Send on a published frame (`event` is its map, decoded); must not block or raise."""

    def missed(self, channel: str) -> None:
        """Frames of `channel` may have been lost (the subscription broke and is made again):
        catch up from what Redis stores. Must not block or raise."""


class Hub:
    """Routes published frames to the local followers of each channel."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._followers: dict[str, set[Follower]] = {}
        self._lock = asyncio.Lock()
        self.reconnects = 0  # subscriptions made again after they broke
        self._feed: _Feed
        try:
            self._feed = _OwnFeed(Endpoint.of(redis), self._dispatch, self._resubscribed)
        except ValueError:
            self._feed = _RedisPyFeed(redis, self._dispatch, self._resubscribed)

    async def start(self) -> None:
        # The lobby is always followed, so the subscription always exists.
        self._followers.setdefault(LOBBY, set())
        await self._feed.start()
        await self._feed.subscribe(LOBBY)

    async def close(self) -> None:
        await self._feed.close()

    async def follow(self, channel: str, follower: Follower) -> None:
        """Start handing `channel`'s frames to `follower`; when this returns, the subscription
        is active, so a state read after it misses no later event."""
        async with self._lock:
            followers = self._followers.setdefault(channel, set())
            if not followers and channel != LOBBY:
                try:
                    await self._feed.subscribe(channel)
                except BaseException:
                    del self._followers[channel]
                    raise
            followers.add(follower)

    async def unfollow(self, channel: str, follower: Follower) -> None:
        async with self._lock:
            followers = self._followers.get(channel)
            if followers is None or follower not in followers:
                return
            followers.discard(follower)
            if not followers and channel != LOBBY:
                del self._followers[channel]
                await self._feed.unsubscribe(channel)

    def followers(self, channel: str) -> int:
        return len(self._followers.get(channel, ()))

    def _resubscribed(self) -> None:
        self.reconnects += 1
        for channel, followers in tuple(self._followers.items()):
            for follower in tuple(followers):
                follower.missed(channel)

    def _dispatch(self, channel: str, data: bytes) -> None:
        followers = self._followers.get(channel)
        if not followers:
            return  # a message still on its way when the channel was left
        try:
            event = msgpack.unpackb(data)
            if not isinstance(event, dict):
                raise TypeError(f"a {type(event).__name__}, not a map")
        except Exception as error:
            log.error("bad_published_frame", channel=channel, error=str(error))
            return
        for follower in tuple(followers):
            follower.deliver(channel, data, event)


class _Feed(Protocol):
    async def start(self) -> None: ...
    async def subscribe(self, channel: str) -> None: ...
    async def unsubscribe(self, channel: str) -> None: ...
    async def close(self) -> None: ...


class _OwnFeed:
    """The subscription on a connection of the hub's own."""

    def __init__(
        self, endpoint: Endpoint, dispatch: Dispatch, resubscribed: Callable[[], None]
    ) -> None:
        self._endpoint = endpoint
        self._dispatch = dispatch
        self._resubscribed = resubscribed
        self._channels: set[str] = set()
        self._connection: _Subscriber | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> None:
        self._connection = await self._endpoint.connect(self._subscriber, NAME)

    async def subscribe(self, channel: str) -> None:
        connection = self._connection
        if connection is None or not connection.open:
            raise ConnectionError("the pub/sub connection to Redis is down; try again")
        # Counted before the confirmation comes, so a reconnect meanwhile subscribes it too.
        self._channels.add(channel)
        try:
            await connection.subscribe((channel,))
        except BaseException:
            self._channels.discard(channel)
            raise

    async def unsubscribe(self, channel: str) -> None:
        self._channels.discard(channel)
        if self._connection is not None and self._connection.open:
            self._connection.unsubscribe(channel)

    async def close(self) -> None:
        self._closing = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        if self._connection is not None:
            self._connection.close()

    def _subscriber(self) -> _Subscriber:
        return _Subscriber(self._dispatch, self._lost)

    def _lost(self) -> None:
        if self._closing or self._reconnecting is not None:
            return
        log.warning("hub_connection_lost")
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        try:
            while not self._closing:
                await asyncio.sleep(RECONNECT_SECONDS)
                try:
                    connection = await self._endpoint.connect(self._subscriber, NAME)
                    if self._channels:
                        await connection.subscribe(tuple(self._channels))
                except (ConnectionError, ResponseError, OSError):
                    continue
                self._connection = connection
                log.info("hub_reconnected", channels=len(self._channels))
                self._resubscribed()
                return
        finally:
            self._reconnecting = None


class _Subscriber(Caller):
    """A connection that subscribes: replies to its setup commands in order, then
    subscription confirmations and messages, each message handed on as it is read."""

    def __init__(self, dispatch: Dispatch, lost: Callable[[], None]) -> None:
        self._dispatch = dispatch
        self._lost = lost
        self._reader = hiredis.Reader(replyError=ResponseError)
        self._transport: asyncio.Transport | None = None
        self._replies: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._subscribing: dict[bytes, asyncio.Future[None]] = {}
        self.open = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # uvloop's are not Transports
        self.open = True

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            kind = reply[0] if isinstance(reply, list) and reply else None
            if kind == b"message":
                self._dispatch(reply[1].decode(), reply[2])
            elif kind == b"subscribe":
                waiter = self._subscribing.pop(reply[1], None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)
            elif kind == b"unsubscribe":
                pass
            else:
                waiter = self._replies.popleft()
                if isinstance(reply, ResponseError):
                    waiter.set_exception(reply)
                else:
                    waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        failure = ConnectionError(f"lost the pub/sub connection to Redis ({exc})")
        for waiter in (*self._replies, *self._subscribing.values()):
            if not waiter.done():
                waiter.set_exception(failure)
        self._replies.clear()
        self._subscribing.clear()
        self._lost()

    def call(self, command: bytes) -> asyncio.Future[Any]:
        self._write(command)
        waiter = asyncio.get_running_loop().create_future()
        self._replies.append(waiter)
        return waiter

    async def subscribe(self, channels: tuple[str, ...]) -> None:
        """Subscribe and return once Redis confirms every channel."""
        loop = asyncio.get_running_loop()
        waiters = []
        for channel in channels:
            waiter = self._subscribing.get(channel.encode())
            if waiter is None:
                waiter = self._subscribing[channel.encode()] = loop.create_future()
            waiters.append(waiter)
        self._write(command("SUBSCRIBE", *channels))
        await asyncio.gather(*waiters)

    def unsubscribe(self, channel: str) -> None:
        self._write(command("UNSUBSCRIBE", channel))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _write(self, data: bytes) -> None:
        if not self.open or self._transport is None:
            raise ConnectionError("the pub/sub connection to Redis is closed")
        self._transport.write(data)


class _RedisPyFeed:
    """The subscription through redis-py's PubSub (over TLS)."""

    def __init__(
        self, redis: aioredis.Redis, dispatch: Dispatch, resubscribed: Callable[[], None]
    ) -> None:
        self._pubsub = redis.pubsub()
        self._dispatch = dispatch
        self._resubscribed = resubscribed
        self._task: asyncio.Task[None] | None = None
        # The subscriptions sent and not yet confirmed, by channel (`_run` takes each off as
        # its confirmation comes): PubSub's `subscribe` only sends the command, and a frame
        # published before Redis has read it would be missed.
        self._unconfirmed: dict[str, asyncio.Future[None]] = {}

    async def start(self) -> None:
        pass  # the reading starts with the first subscription: PubSub reads nothing before

    async def subscribe(self, channel: str) -> None:
        """Subscribe to `channel`, returning once Redis has confirmed it."""
        confirmed = self._unconfirmed.get(channel)
        if confirmed is None:
            confirmed = asyncio.get_running_loop().create_future()
            self._unconfirmed[channel] = confirmed
        try:
            await self._pubsub.subscribe(channel)
            if self._task is None:
                self._task = asyncio.create_task(self._run(), name="hub")
            async with asyncio.timeout(CONFIRM_SECONDS):
                await asyncio.shield(confirmed)
        except TimeoutError:
            raise ConnectionError(f"Redis did not confirm the subscription to {channel}") from None

    async def unsubscribe(self, channel: str) -> None:
        await self._pubsub.unsubscribe(channel)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._pubsub.aclose()

    async def _run(self) -> None:
        while True:
            try:
                # No timeout: a read that waits without one costs no timer per message.
                message: dict[str, Any] | None = await self._pubsub.get_message(
                    ignore_subscribe_messages=False, timeout=None
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                # Redis went away: redis-py subscribes again when it reconnects. Keep trying.
                log.exception("hub_read_failed")
                await asyncio.sleep(RECONNECT_SECONDS)
                self._resubscribed()
                continue
            if message is None:
                continue
            channel = message["channel"]
            if isinstance(channel, bytes):
                channel = channel.decode()
            if message.get("type") == "subscribe":
                confirmed = self._unconfirmed.pop(channel, None)
                if confirmed is not None and not confirmed.done():
                    confirmed.set_result(None)
            elif message.get("type") == "message":
                self._dispatch(channel, message["data"])
