"""A lane to Redis for the short commands on the server's hot paths (the commit script of every
move; game loads, event logs, attendance and seeks for every game).

redis-py's client takes about 45 µs of CPU for each command here (a connection from the pool,
retries, timeouts, metrics, packing in Python), most of what the server spends on Redis. A lane
keeps one connection of its own: a command is queued and waits for its reply, the commands of
one turn of the event loop go out in one write, replies come back in the order the commands
went out (Redis answers a connection in order), and hiredis packs the commands and parses the
replies. Commands from many sessions share the connection without waiting for each other, so
under load they travel pipelined. About 4 µs a command.

`LaneRedis` is redis-py's asyncio client with the commands of `LANE_COMMANDS` sent through a
lane and read back through redis-py's own reply callbacks, so callers see the replies
redis-py would give, and its Lua scripts called through the lane too. Everything else
(blocking reads, pipelines, pub/sub, connection state) goes through redis-py as usual, as
does everything over TLS.

A connection that breaks fails the commands waiting on it (`ConnectionError`: the caller
cannot know whether Redis ran the command, as with any client) and the next command connects
again. `Endpoint` (where the client's Redis is and how a connection of our own starts) serves
the hub's subscription too. `RoundTrips` counts what a client sends, for the server's metrics.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import hashlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.client import EMPTY_RESPONSE, NEVER_DECODE
from redis.exceptions import ConnectionError, NoScriptError, ResponseError

__all__ = [
    "LANE_COMMANDS",
    "NAME",
    "Caller",
    "Endpoint",
    "Lane",
    "LaneRedis",
    "LaneScript",
    "RoundTrips",
    "command",
    "sharded",
]

NAME: Final = "arena-lane"  # the lane's connection name in Redis

Arg = bytes | str | int | float

# Commands that answer at once and leave the connection as it was: never a blocking read
# (BLPOP, XREAD BLOCK) that would hold up every command behind it, nor one that changes the
# connection's state (SELECT, WATCH, MULTI, SUBSCRIBE).
LANE_COMMANDS: Final = frozenset(
    {
        "EVALSHA",
        "GET",
        "SET",
        "DEL",
        "EXISTS",
        "HGET",
        "HSET",
        "HDEL",
        "HGETALL",
        "HMGET",
        "HINCRBY",
        "LRANGE",
        "SADD",
        "SREM",
        "SMEMBERS",
        "ZADD",
        "ZREM",
        "ZSCORE",
        "ZCOUNT",
        "ZRANGE",
        "ZRANGEBYSCORE",
        "PUBLISH",
    }
)


@dataclass
class RoundTrips:
    """What a client has sent to Redis and waited on: on the lane, the commands and the writes
    that carried them (one a turn of the event loop); through redis-py's pool, the commands
    and the round trips (one a command, or one a pipeline of any number). Plain numbers, so
    that counting costs nothing a Prometheus counter would (a lock, about 0.7 µs)."""

    lane_commands: int = 0
    lane_writes: int = 0
    pool_commands: int = 0
    pool_round_trips: int = 0


class Caller(asyncio.Protocol):
    """A connection's protocol that sends a command and gives its reply (see `Endpoint`)."""

    def call(self, command: bytes) -> asyncio.Future[Any]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


C = TypeVar("C", bound=Caller)


@dataclass(frozen=True)
class Endpoint:
    """Where the Redis of a redis-py client is, and the commands a new connection to it sends
    first (AUTH, SELECT): what a connection of our own needs, outside redis-py's pool."""

    path: str | None
    host: str
    port: int
    setup: tuple[bytes, ...]

    @classmethod
    def of(cls, redis: aioredis.Redis) -> Endpoint:
        """The client's endpoint; ValueError over TLS, which only redis-py's pool speaks."""
        pool = redis.connection_pool
        kwargs = pool.connection_kwargs
        if pool.connection_class not in (
            aioredis.Connection,
            aioredis.UnixDomainSocketConnection,
        ):
            raise ValueError("a connection of our own speaks plain TCP or a unix socket only")
        auth = (
            [command("AUTH", kwargs["username"], kwargs["password"])]
            if kwargs.get("username")
            else [command("AUTH", kwargs["password"])]
            if kwargs.get("password")
            else []
        )
        select = [command("SELECT", int(kwargs["db"]))] if int(kwargs.get("db") or 0) else []
        return cls(
            kwargs.get("path"),
            kwargs.get("host", "localhost"),
            int(kwargs.get("port", 6379)),
            (*auth, *select),
        )

    async def connect(self, protocol: Callable[[], C], name: str) -> C:
        """A new connection with `protocol`, set up and named `name` (so that CLIENT LIST
        tells it from redis-py's pooled connections)."""
        loop = asyncio.get_running_loop()
        try:
            if self.path is not None:
                _, made = await loop.create_unix_connection(protocol, self.path)
            else:
                _, made = await loop.create_connection(protocol, self.host, self.port)
        except OSError as error:
            where = self.path or f"{self.host}:{self.port}"
            raise ConnectionError(f"cannot connect to Redis at {where}: {error}") from error
        try:
            for first in (*self.setup, command("CLIENT", "SETNAME", name)):
                await made.call(first)
        except BaseException:
            made.close()
            raise
        return made


class Lane:
    """One connection to Redis shared by any number of callers: `await lane.execute(*args)`
    returns the raw reply (bytes, ints, lists) or raises the error Redis answered."""

    def __init__(self, redis: aioredis.Redis, trips: RoundTrips | None = None) -> None:
        kwargs = redis.connection_pool.connection_kwargs
        self._endpoint = Endpoint.of(redis)
        if kwargs.get("decode_responses"):
            raise ValueError("a lane returns bytes: the client must not decode responses")
        if kwargs.get("protocol") not in (2, "2"):
            # redis-py reads replies by the protocol its connections speak (RESP3 by default
            # from redis-py 8); a lane speaks RESP2, so the client must too.
            raise ValueError("a lane speaks RESP2: open the client with protocol=2")
        self.trips = RoundTrips() if trips is None else trips
        self._wire: _Wire | None = None
        self._connecting = asyncio.Lock()  # bound to a loop only when first waited on

    async def execute(self, *args: Arg) -> Any:
        wire = await self._connected()
        reply = wire.call(command(*args))
        self.trips.lane_commands += 1
        return await reply

    async def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None

    async def _connected(self) -> _Wire:
        wire = self._wire
        if wire is not None and wire.open:
            return wire
        async with self._connecting:
            if self._wire is None or not self._wire.open:
                self._wire = await self._endpoint.connect(
                    functools.partial(_Wire, self.trips), NAME
                )
            return self._wire


class LaneRedis(aioredis.Redis):  # type: ignore[misc]  # redis-py is read untyped (pyproject)
    """redis-py's asyncio client, with the commands of `LANE_COMMANDS` through a `Lane` where
    the connection allows one (plain TCP or a unix socket, replies as bytes)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.round_trips = RoundTrips()
        try:
            self._lane: Lane | None = Lane(self, self.round_trips)
        except ValueError:
            self._lane = None

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        name = args[0]
        if self._lane is None or name not in LANE_COMMANDS:
            self.round_trips.pool_commands += 1
            self.round_trips.pool_round_trips += 1
            return await super().execute_command(*args, **options)
        # As redis-py's parse_response: its options, then its callback for the command.
        try:
            reply = await self._lane.execute(*args)
        except ResponseError:
            if EMPTY_RESPONSE in options:
                return options[EMPTY_RESPONSE]
            raise
        for option in (EMPTY_RESPONSE, NEVER_DECODE, "keys"):
            options.pop(option, None)
        callback = self.response_callbacks.get(name)
        if callback is None:
            return reply
        result = callback(reply, **options)
        return await result if inspect.isawaitable(result) else result

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        return _CountedPipeline(
            self.round_trips, self.connection_pool, self.response_callbacks, transaction, shard_hint
        )

    def register_script(self, script: str) -> Any:
        """A Lua script to call as `await script(keys=..., args=...)`, as redis-py's: through
        the lane, by its SHA1 and whole once when Redis does not know it (after a restart or
        SCRIPT FLUSH). Its replies are raw, as redis-py's are."""
        if self._lane is None:
            return super().register_script(script)
        return LaneScript(self._lane, script)

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        if self._lane is not None:
            await self._lane.close()
        await super().aclose(close_connection_pool)


class LaneScript:
    """A Lua script called through a lane (see `LaneRedis.register_script`)."""

    def __init__(self, lane: Lane, script: str) -> None:
        self._lane = lane
        self.script = script
        self.sha = hashlib.sha1(script.encode()).hexdigest()

    async def __call__(self, keys: Sequence[Arg] = (), args: Sequence[Arg] = ()) -> Any:
        try:
            return await self._lane.execute("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self._lane.execute("EVAL", self.script, len(keys), *keys, *args)


class _CountedPipeline(Pipeline):  # type: ignore[misc]  # redis-py is read untyped (pyproject)
    """redis-py's pipeline, counted in its client's `RoundTrips` when it goes out."""

    def __init__(self, trips: RoundTrips, *args: Any) -> None:
        super().__init__(*args)
        self._trips = trips

    async def execute(self, raise_on_error: bool = True) -> Any:
        if self.command_stack:
            self._trips.pool_commands += len(self.command_stack)
            self._trips.pool_round_trips += 1
        return await super().execute(raise_on_error)


class _Wire(Caller):
    """One connection: commands out in order, replies matched to them in order."""

    def __init__(self, trips: RoundTrips) -> None:
        self._trips = trips
        self._reader = hiredis.Reader(replyError=ResponseError)
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._transport: asyncio.WriteTransport | None = None
        # Commands of this turn of the event loop, written together at its end: one system
        # call (and one wake-up of Redis) for all the moves committed meanwhile.
        self._unsent: list[bytes] = []
        self.open = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but write the same way.
        self._transport = cast(asyncio.WriteTransport, transport)
        self.open = True

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            waiter = self._waiting.popleft()
            if waiter.done():
                continue  # its caller was cancelled; the reply is dropped in order
            if isinstance(reply, ResponseError):
                waiter.set_exception(_error(reply))
            else:
                waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(ConnectionError(f"lost the connection to Redis ({exc})"))

    def call(self, command: bytes) -> asyncio.Future[Any]:
        if not self.open or self._transport is None:
            raise ConnectionError("the connection to Redis is closed")
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._waiting.append(waiter)
        if not self._unsent:
            loop.call_soon(self._flush)
        self._unsent.append(command)
        return waiter

    def _flush(self) -> None:
        if self.open and self._transport is not None:
            self._transport.writelines(self._unsent)
            self._trips.lane_writes += 1
        self._unsent = []

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def _error(reply: ResponseError) -> ResponseError:
    # redis-py's script objects load a script again on NoScriptError.
    text = str(reply)
    return NoScriptError(text) if text.startswith("NOSCRIPT") else reply


def sharded(redis: Any) -> bool:
    """Whether `redis` talks to a Redis Cluster: a game's events then go out by SPUBLISH to the
    shard of the game's slot, rather than by PUBLISH to every node."""
    return isinstance(redis, RedisCluster)


def command(*args: Arg) -> bytes:
    """A command in RESP, packed by hiredis."""
    packed: bytes = hiredis.pack_command(args)  # type: ignore[arg-type]  # stub: a 1-tuple
    return packed
