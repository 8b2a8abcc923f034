"""The pub/sub hub of one server process: a single Redis subscription connection that joins a
channel while some local connection follows it (a game, a user, the lobby) and hands each
message to those connections, which write it out without waiting (see `Follower`).

The subscription is a connection of the hub's own (hiredis reads the messages as they arrive
and the hub hands them on in the same turn of the event loop, about 2 µs a message), or
redis-py's PubSub over TLS. Each message is decoded once, for every follower. A subscription
that breaks is made again, with every channel still followed; the messages published
meanwhile are lost, so every follower is then told to catch up from what Redis stores.

On a Redis Cluster (`_ClusterFeed`) each channel is subscribed on the master of its slot: a
shard channel (a name that starts with a hash tag, as a game's `{g:ID}:channel`) with SSUBSCRIBE,
which only its shard's nodes carry, the others (lobby, users) classically. A master that dies
takes its subscriptions with it: they are made again on the replica promoted in its place, and
the followers of those channels alone are told to catch up.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable, Collection
from typing import Any, Protocol

import hiredis
import msgpack
import redis.asyncio as aioredis
import structlog
from redis.exceptions import ConnectionError, ResponseError

from server.lane import Caller, ClusterLane, Endpoint, command, sharded

__all__ = ["LOBBY", "NAME", "Follower", "Hub", "user_channel"]

LOBBY = "lobby"
NAME = "arena-hub"  # the subscription's connection name in Redis
RECONNECT_SECONDS = 0.5
# How long a subscription may wait for Redis to confirm it before it fails.
CONFIRM_SECONDS = 10.0
log = structlog.get_logger(__name__)

# What the hub hands on: the channel, the frame as published and its msgpack map decoded.
Dispatch = Callable[[str, bytes], None]
# The channels whose frames may have been lost (None: all of them).
Resubscribed = Callable[[Collection[str] | None], None]


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
        if sharded(redis):
            self._feed = _ClusterFeed(redis.lane, self._dispatch, self._resubscribed)
            return
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
        is active, so a state read after it misses no later event (on a cluster whose master
        of the channel is down, once a replica takes over; the follower is told it `missed`
        frames then)."""
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

    def _resubscribed(self, channels: Collection[str] | None = None) -> None:
        self.reconnects += 1
        for channel, followers in tuple(self._followers.items()):
            if channels is None or channel in channels:
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

    def __init__(self, endpoint: Endpoint, dispatch: Dispatch, resubscribed: Resubscribed) -> None:
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
                self._resubscribed(None)
                return
        finally:
            self._reconnecting = None


class _Subscriber(Caller):
    """A connection that subscribes: replies to its setup commands in order, then
    subscription confirmations and messages, each message handed on as it is read. On a
    cluster node its shard channels too; one the node drops by itself (its slot has moved) is
    handed to `dropped`."""

    def __init__(
        self,
        dispatch: Dispatch,
        lost: Callable[[], None],
        dropped: Callable[[str], None] | None = None,
    ) -> None:
        self._dispatch = dispatch
        self._lost = lost
        self._dropped = dropped
        self._leaving: set[bytes] = set()  # shard channels unsubscribed, not yet confirmed
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
            if kind in (b"message", b"smessage"):
                self._dispatch(reply[1].decode(), reply[2])
            elif kind in (b"subscribe", b"ssubscribe"):
                waiter = self._subscribing.pop(reply[1], None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)
            elif kind == b"unsubscribe":
                pass
            elif kind == b"sunsubscribe":
                if reply[1] in self._leaving:
                    self._leaving.discard(reply[1])
                elif self._dropped is not None:
                    self._dropped(reply[1].decode())
            elif not self._replies:
                # A subscription refused (a cluster node's MOVED): Redis answers in order, so
                # it is the oldest one waiting.
                channel = next(iter(self._subscribing), None)
                if channel is not None:
                    failed = self._subscribing.pop(channel)
                    if not failed.done():
                        failed.set_exception(_refused(reply))
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

    async def subscribe(self, channels: tuple[str, ...], verb: str = "SUBSCRIBE") -> None:
        """Subscribe (by `verb`: SSUBSCRIBE for a shard channel) and return once Redis confirms
        every channel."""
        loop = asyncio.get_running_loop()
        waiters = []
        for channel in channels:
            waiter = self._subscribing.get(channel.encode())
            if waiter is None:
                waiter = self._subscribing[channel.encode()] = loop.create_future()
            waiters.append(waiter)
        self._write(command(verb, *channels))
        await asyncio.gather(*waiters)

    def unsubscribe(self, channel: str, verb: str = "UNSUBSCRIBE") -> None:
        if verb == "SUNSUBSCRIBE":
            self._leaving.add(channel.encode())
        self._write(command(verb, channel))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _write(self, data: bytes) -> None:
        if not self.open or self._transport is None:
            raise ConnectionError("the pub/sub connection to Redis is closed")
        self._transport.write(data)


class _ClusterFeed:
    """The subscriptions on a Redis Cluster: each channel on the master of its slot (by the
    lane's slot map), a connection to each master with channels there. A connection lost (its
    master died) or a shard channel its node drops (the slot moved) leaves channels to
    subscribe again: every RECONNECT_SECONDS the map is read again and each is subscribed on its
    slot's master as the map says, until all are; then their followers are told to catch up."""

    def __init__(self, lane: ClusterLane, dispatch: Dispatch, resubscribed: Resubscribed) -> None:
        self._lane = lane
        self._dispatch = dispatch
        self._resubscribed = resubscribed
        self._connections: dict[Endpoint, _Subscriber] = {}
        self._where: dict[str, Endpoint] = {}  # each channel subscribed, and where
        self._lost: set[str] = set()  # channels to subscribe again
        self._opening = asyncio.Lock()
        self._repairing: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> None:
        pass  # a connection is opened with the first channel on its master

    async def subscribe(self, channel: str) -> None:
        """Subscribe to `channel`; while its slot's master is down (or the slot is moving), it
        is left to be subscribed again with the others, and its followers then told to catch
        up, rather than fail the request that follows it."""
        try:
            await self._subscribe(channel)
        except ConnectionError as error:
            log.warning("hub_subscribe_deferred", channel=channel, error=str(error))
            self._again([channel])

    async def _subscribe(self, channel: str) -> None:
        master = await self._lane.master(channel)
        connection = await self._connection(master)
        self._where[channel] = master
        try:
            await connection.subscribe((channel,), "SSUBSCRIBE" if _shard(channel) else "SUBSCRIBE")
        except BaseException:
            if self._where.get(channel) == master:
                del self._where[channel]
            raise
        self._lost.discard(channel)

    async def unsubscribe(self, channel: str) -> None:
        self._lost.discard(channel)
        master = self._where.pop(channel, None)
        connection = self._connections.get(master) if master is not None else None
        if connection is not None and connection.open:
            connection.unsubscribe(channel, "SUNSUBSCRIBE" if _shard(channel) else "UNSUBSCRIBE")

    async def close(self) -> None:
        self._closing = True
        if self._repairing is not None:
            self._repairing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._repairing
        for connection in self._connections.values():
            connection.close()

    async def _connection(self, master: Endpoint) -> _Subscriber:
        async with self._opening:
            connection = self._connections.get(master)
            if connection is None or not connection.open:
                connection = await master.connect(
                    lambda: _Subscriber(self._dispatch, lambda: self._lost_at(master), self._moved),
                    NAME,
                )
                self._connections[master] = connection
            return connection

    def _lost_at(self, master: Endpoint) -> None:
        connection = self._connections.get(master)
        if self._closing or connection is None or connection.open:
            return  # closing, or a connection replaced already
        del self._connections[master]
        gone = [channel for channel, where in self._where.items() if where == master]
        log.warning("hub_connection_lost", node=f"{master.host}:{master.port}", channels=len(gone))
        for channel in gone:
            del self._where[channel]
        self._again(gone)

    def _moved(self, channel: str) -> None:
        if self._where.pop(channel, None) is not None:
            self._again([channel])

    def _again(self, channels: list[str]) -> None:
        self._lost.update(channels)
        if self._repairing is None and not self._closing:
            self._repairing = asyncio.get_running_loop().create_task(self._repair())

    async def _repair(self) -> None:
        try:
            while self._lost and not self._closing:
                await asyncio.sleep(RECONNECT_SECONDS)
                with contextlib.suppress(ConnectionError):
                    await self._lane.refresh()
                again = []
                for channel in tuple(self._lost):
                    try:
                        async with asyncio.timeout(CONFIRM_SECONDS):
                            await self._subscribe(channel)
                    except (ConnectionError, ResponseError, OSError, TimeoutError):
                        continue
                    again.append(channel)
                if again:
                    log.info("hub_resubscribed", channels=len(again), left=len(self._lost))
                    self._resubscribed(again)
        finally:
            self._repairing = None


def _shard(channel: str) -> bool:
    """A shard channel: one whose name starts with a hash tag (a game's `{g:ID}:channel`)."""
    return channel.startswith("{")


def _refused(reply: Any) -> Exception:
    # As a connection's failure: the caller may try again once the slot map is read again.
    refused: Exception = ConnectionError(f"Redis refused a subscription: {reply}")
    return refused


class _RedisPyFeed:
    """The subscription through redis-py's PubSub (over TLS)."""

    def __init__(
        self, redis: aioredis.Redis, dispatch: Dispatch, resubscribed: Resubscribed
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
                self._resubscribed(None)
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
