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

On a Redis Cluster, `LaneCluster` is redis-py's cluster client with the same commands through a
`ClusterLane`, a lane to each master that sends each command to the master of its key's slot;
`sharded` tells a cluster's client from a single Redis's, and `clustered` a cluster's URL.

A connection that breaks fails the commands waiting on it (`ConnectionError`: the caller
cannot know whether Redis ran the command, as with any client) and the next command connects
again. `Endpoint` (where the client's Redis is and how a connection of our own starts) serves
the hub's subscription too. `RoundTrips` counts what a client sends, for the server's metrics.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import hashlib
import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast
from urllib.parse import urlsplit

import hiredis
import redis.asyncio as aioredis
from redis import Redis as SyncRedis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.client import EMPTY_RESPONSE, NEVER_DECODE
from redis.crc import REDIS_CLUSTER_HASH_SLOTS as SLOTS
from redis.crc import key_slot
from redis.exceptions import ConnectionError, NoScriptError, RedisError, ResponseError

__all__ = [
    "LANE_COMMANDS",
    "NAME",
    "Caller",
    "ClusterLane",
    "Endpoint",
    "Lane",
    "LaneCluster",
    "LaneRedis",
    "LaneScript",
    "RoundTrips",
    "UnreachableError",
    "clustered",
    "command",
    "sharded",
]

NAME: Final = "arena-lane"  # the lane's connection name in Redis
# How many times a command follows MOVED and ASK before it fails (a slot moves once at a time).
REDIRECTIONS: Final = 5
# How often a cluster lane reads the slot map again at most while commands keep failing.
REREAD_SECONDS: Final = 0.25
# How long a command on a cluster waits for its slot's master to be reachable again: a replica
# takes over a master after the cluster's node timeout (15 s by default) and an election.
FAILOVER_SECONDS: Final = 20.0
# How long one WAIT for a replica's acknowledgement lasts before the map is read again to see
# whether the shard still has a replica (not failed) to wait for.
REPLICA_WAIT_MS: Final = 1000
SCRIPTS: Final = frozenset({"EVALSHA", "EVAL"})
PROBE_SECONDS: Final = 5.0  # how long `clustered` waits for Redis to say what it is
ASKING: Final = hiredis.pack_command(("ASKING",))

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


class UnreachableError(ConnectionError):  # type: ignore[misc]  # redis-py is read untyped
    """No connection could be made: no command was sent."""


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
        select = [command("SELECT", int(kwargs["db"]))] if int(kwargs.get("db") or 0) else []
        return cls(
            kwargs.get("path"),
            kwargs.get("host", "localhost"),
            int(kwargs.get("port", 6379)),
            (*_auth(kwargs), *select),
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
            raise UnreachableError(f"cannot connect to Redis at {where}: {error}") from error
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

    def __init__(self, redis: aioredis.Redis | Endpoint, trips: RoundTrips | None = None) -> None:
        if isinstance(redis, Endpoint):
            self._endpoint = redis
        else:
            _check_replies(redis.connection_pool.connection_kwargs)
            self._endpoint = Endpoint.of(redis)
        self.trips = RoundTrips() if trips is None else trips
        self._wire: _Wire | None = None
        self._connecting = asyncio.Lock()  # bound to a loop only when first waited on

    async def execute(self, *args: Arg) -> Any:
        wire = await self._connected()
        reply = wire.call(command(*args))
        self.trips.lane_commands += 1
        return await reply

    async def execute_asking(self, *args: Arg) -> Any:
        """The command right after an ASKING, as a cluster node asks of a slot it is taking
        over (the two go out together, so no other command comes between them)."""
        wire = await self._connected()
        self.trips.lane_commands += 2
        _, reply = await asyncio.gather(wire.call(ASKING), wire.call(command(*args)))
        return reply

    async def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None

    def close_idle(self) -> None:
        """Close the connection once every command sent on it has its reply (the next
        command after that connects again)."""
        if self._wire is not None:
            self._wire.close_idle()

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


class _Laned:
    """redis-py's `execute_command` with the commands of `LANE_COMMANDS` through `_lane` when
    there is one, read back through redis-py's reply callbacks; a mixin before a client."""

    _lane: Lane | ClusterLane | None
    round_trips: RoundTrips
    response_callbacks: dict[str, Any]

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        name = args[0]
        if self._lane is None or name not in LANE_COMMANDS:
            self.round_trips.pool_commands += 1
            self.round_trips.pool_round_trips += 1
            return await super().execute_command(*args, **options)  # type: ignore[misc]
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

    def register_script(self, script: str) -> Any:
        """A Lua script to call as `await script(keys=..., args=...)`, as redis-py's: through
        the lane, by its SHA1 and whole once when Redis does not know it (after a restart or
        SCRIPT FLUSH). Its replies are raw, as redis-py's are."""
        if self._lane is None:
            return super().register_script(script)  # type: ignore[misc]
        return LaneScript(self._lane, script)


class LaneRedis(_Laned, aioredis.Redis):  # type: ignore[misc]  # redis-py is read untyped
    """redis-py's asyncio client, with the commands of `LANE_COMMANDS` through a `Lane` where
    the connection allows one (plain TCP or a unix socket, replies as bytes)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.round_trips = RoundTrips()
        try:
            self._lane = Lane(self, self.round_trips)
        except ValueError:
            self._lane = None

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        return _CountedPipeline(
            self.round_trips, self.connection_pool, self.response_callbacks, transaction, shard_hint
        )

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        if self._lane is not None:
            await self._lane.close()
        await super().aclose(close_connection_pool)


class LaneCluster(_Laned, RedisCluster):  # type: ignore[misc]  # redis-py is read untyped
    """redis-py's asyncio cluster client, with the commands of `LANE_COMMANDS` through a
    `ClusterLane` (a lane to each master). Pipelines, blocking reads and the rest go through
    redis-py, which routes them by their keys."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _check_replies(self.connection_kwargs)
        if self.connection_kwargs.get("connection_class", aioredis.Connection) is not (
            aioredis.Connection
        ):
            raise ValueError("the server speaks to a Redis Cluster over plain TCP only")
        self.round_trips = RoundTrips()
        seeds = [
            Endpoint(None, node.host, int(node.port), _auth(self.connection_kwargs))
            for node in self.startup_nodes
        ]
        self._lane = self.lane = ClusterLane(seeds, self.round_trips)

    async def aclose(self) -> None:
        await self.lane.close()
        await super().aclose()


class ClusterLane:
    """A lane to each master of a Redis Cluster: each command goes to the master of its key's
    slot (a script's, of its first key), by a slot map read with CLUSTER SHARDS. A MOVED reply
    (the slot has another master: after a failover or a slot's migration) sends the command on
    to the master it names and reads the map again; an ASK (a slot half migrated) sends it
    there once, after ASKING. A broken connection fails its commands, as on a single Redis,
    and reads the map again; a master that cannot be reached holds the commands on its slots
    (up to FAILOVER_SECONDS) until the map names the replica promoted in its place."""

    def __init__(self, seeds: Sequence[Endpoint], trips: RoundTrips | None = None) -> None:
        if not seeds:
            raise ValueError("a cluster lane needs a node to start from")
        self.trips = RoundTrips() if trips is None else trips
        self._seeds = tuple(seeds)
        self._setup = seeds[0].setup
        self._lanes: dict[tuple[str, int], Lane] = {}
        self._masters: list[Endpoint] = []  # by slot; empty until the map is read
        self._replicated: set[Endpoint] = set()  # masters with a replica not failed, by the map
        self._waiting: dict[tuple[str, int], Lane] = {}  # a lane per master for WAIT
        self._reading: asyncio.Task[None] | None = None
        self._mapping = asyncio.Lock()  # the first commands wait for one reading of the map
        self.maps_read = 0
        # Told (from, to: wall-clock ms) of a command that had to wait for a failover, once a
        # failover: not of those whose wait began before the last one told of ended.
        self.stalls: Callable[[int, int], None] | None = None
        self._stalled_to = 0

    async def execute(self, *args: Arg) -> Any:
        slot = _slot(args)
        masters = self._masters or await self._mapped()
        lane = self._lane(masters[slot])
        asked = False
        redirected = 0
        unreachable_since: float | None = None
        while True:
            try:
                reply = await (lane.execute_asking(*args) if asked else lane.execute(*args))
                if unreachable_since is not None:
                    self._stalled(unreachable_since)
                return reply
            except ResponseError as error:
                moved = _redirection(error)
                if moved is None and not str(error).startswith("CLUSTERDOWN"):
                    raise
                if moved is None:
                    # The cluster refuses every command while a slot has no master (until a
                    # replica takes over a dead one): nothing was run, so wait as below.
                    self._read_soon()
                    unreachable_since = await _failover_wait(unreachable_since, error)
                    lane = self._lane((self._masters or await self._mapped())[slot])
                    asked = False
                    continue
                redirected += 1
                if redirected > REDIRECTIONS:
                    raise ConnectionError(
                        f"{args[0]!s} redirected {REDIRECTIONS} times: the cluster is moving"
                    ) from error
                kind, host, port = moved
                where = Endpoint(None, host, port, self._setup)
                asked = kind == "ASK"
                if not asked:
                    self._masters[slot] = where
                    self._read_soon()
                lane = self._lane(where)
            except UnreachableError as error:
                # Nothing was sent: the slot's master is down. Wait, with every command on
                # its slots, for a replica to take over (the map, read again meanwhile, names
                # it then), as long as a failover may take.
                self._read_soon()
                unreachable_since = await _failover_wait(unreachable_since, error)
                lane = self._lane((self._masters or await self._mapped())[slot])
                asked = False
            except ConnectionError:
                self._read_soon()
                raise

    async def execute_replicated(self, *args: Arg) -> tuple[Any, bool]:
        """Run a write on its slot's master and wait until a replica has it (WAIT), on a lane
        of its own for such writes, since a WAIT holds up every later command on its
        connection. The reply, and whether a replica acknowledged it: it waits as long as the
        map says the shard has a replica not failed, and not at all when it has none (nothing
        could be waited for)."""
        slot = _slot(args)
        masters = self._masters or await self._mapped()
        master = masters[slot]
        if master not in self._replicated:
            return await self.execute(*args), False
        lane = self._waiting.get((master.host, master.port))
        if lane is None:
            lane = self._waiting[(master.host, master.port)] = Lane(master, self.trips)
        try:
            reply, acked = await asyncio.gather(
                lane.execute(*args), lane.execute("WAIT", 1, REPLICA_WAIT_MS)
            )
        except UnreachableError:
            return await self.execute(*args), False  # nothing was sent: the usual path waits
        except ResponseError as error:
            if _redirection(error) is None and not str(error).startswith("CLUSTERDOWN"):
                raise
            self._read_soon()  # nothing was run: the usual path follows the slot
            return await self.execute(*args), False
        while not acked:
            with contextlib.suppress(ConnectionError):
                await self._read()
            if self._masters[slot] != master or master not in self._replicated:
                return reply, False
            # The write is in the connection's past, so a WAIT alone waits for it.
            acked = await lane.execute("WAIT", 1, REPLICA_WAIT_MS)
        return reply, True

    def _stalled(self, since: float) -> None:
        end = time.time()
        start = round(1000 * (end - (time.monotonic() - since)))
        if self.stalls is not None and start > self._stalled_to:
            self._stalled_to = round(1000 * end)
            self.stalls(start, self._stalled_to)

    async def master(self, key: str) -> Endpoint:
        """The master of `key`'s slot, as the map last read says."""
        masters = self._masters or await self._mapped()
        return masters[_key_slot(key.encode())]

    async def refresh(self) -> None:
        """Read the slot map again now (after a failover), whatever was read lately."""
        await self._read()

    def nodes(self) -> list[Endpoint]:
        """The masters of the map last read, each once, then the nodes given at the start."""
        return list(dict.fromkeys((*self._masters, *self._seeds)))

    async def close(self) -> None:
        """Close each lane once the commands on it have their replies. redis-py's cluster
        client closes itself to read the cluster's layout again (on CLUSTERDOWN during a
        failover, or after many MOVED), so the commands on their way through the lanes go on:
        closing the lanes at once would fail every one, on every master."""
        reading = self._reading
        if reading is not None:
            reading.cancel()
            await asyncio.wait({reading})
        for lane in (*self._lanes.values(), *self._waiting.values()):
            lane.close_idle()

    def _lane(self, endpoint: Endpoint) -> Lane:
        key = (endpoint.host, endpoint.port)
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = Lane(endpoint, self.trips)
        return lane

    async def _mapped(self) -> list[Endpoint]:
        async with self._mapping:
            return self._masters or await self._read()

    async def _read(self) -> list[Endpoint]:
        """Read the map from the first node that answers: the masters known, then the seeds."""
        failures = []
        for node in self.nodes():
            try:
                shards = await self._lane(node).execute("CLUSTER", "SHARDS")
                masters, self._replicated = _slot_map(shards, node.host, self._setup)
            except (ConnectionError, ResponseError, ValueError) as error:
                failures.append(f"{node.host}:{node.port}: {error}")
                continue
            self._masters = masters
            self.maps_read += 1
            return masters
        raise ConnectionError(
            f"no node of the Redis Cluster gives its slots ({'; '.join(failures)})"
        )

    def _read_soon(self) -> None:
        """Read the map in the background, at most once a REREAD_SECONDS: while a master is
        down every command on its slots fails, and each would read it again."""
        if self._reading is None:
            self._reading = asyncio.get_running_loop().create_task(self._read_then_rest())

    async def _read_then_rest(self) -> None:
        try:
            with contextlib.suppress(ConnectionError):
                await self._read()
            await asyncio.sleep(REREAD_SECONDS)
        finally:
            self._reading = None


class LaneScript:
    """A Lua script called through a lane (see `LaneRedis.register_script`)."""

    def __init__(self, lane: Lane | ClusterLane, script: str) -> None:
        self._lane = lane
        self.script = script
        self.sha = hashlib.sha1(script.encode()).hexdigest()

    async def __call__(self, keys: Sequence[Arg] = (), args: Sequence[Arg] = ()) -> Any:
        try:
            return await self._lane.execute("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self._lane.execute("EVAL", self.script, len(keys), *keys, *args)

    async def replicated(self, keys: Sequence[Arg], args: Sequence[Arg]) -> tuple[Any, bool]:
        """The script run as `ClusterLane.execute_replicated` runs a write: its reply, and
        whether a replica acknowledged it (never, on a single Redis: it has none here)."""
        lane = self._lane
        if not isinstance(lane, ClusterLane):
            return await self(keys, args), False
        try:
            return await lane.execute_replicated("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await lane.execute_replicated("EVAL", self.script, len(keys), *keys, *args)


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
        self._closing = False  # closed once the last reply waited on comes
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
        if self._closing and not self._waiting:
            self.close()

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

    def close_idle(self) -> None:
        self._closing = True
        if not self._waiting:
            self.close()


async def _failover_wait(since: float | None, error: Exception) -> float:
    """Wait a moment for a failover to end, or raise `error` when the command has waited for
    it FAILOVER_SECONDS since `since`; returns when the command first met it."""
    now = time.monotonic()
    if since is not None and now - since > FAILOVER_SECONDS:
        raise error
    await asyncio.sleep(REREAD_SECONDS)
    return now if since is None else since


def _check_replies(kwargs: dict[str, Any]) -> None:
    if kwargs.get("decode_responses"):
        raise ValueError("a lane returns bytes: the client must not decode responses")
    if kwargs.get("protocol") not in (2, "2"):
        # redis-py reads replies by the protocol its connections speak (RESP3 by default
        # from redis-py 8); a lane speaks RESP2, so the client must too.
        raise ValueError("a lane speaks RESP2: open the client with protocol=2")


def _auth(kwargs: dict[str, Any]) -> tuple[bytes, ...]:
    if kwargs.get("username"):
        return (command("AUTH", kwargs["username"], kwargs["password"]),)
    if kwargs.get("password"):
        return (command("AUTH", kwargs["password"]),)
    return ()


def _slot(args: Sequence[Arg]) -> int:
    """The slot of a command's key: its first argument's, or a script's first key's (slot 0
    for a script without keys, which any master runs)."""
    if args[0] in SCRIPTS:
        if not int(args[2]):
            return 0
        key = args[3]
    else:
        key = args[1]
    return _key_slot(key if isinstance(key, bytes) else str(key).encode())


def _redirection(error: ResponseError) -> tuple[str, str, int] | None:
    """("MOVED" or "ASK", host, port) of a redirection, or None for any other error."""
    kind, _, rest = str(error).partition(" ")
    if kind not in ("MOVED", "ASK"):
        return None
    host, _, port = rest.partition(" ")[2].rpartition(":")
    return kind, host, int(port)


def _slot_map(
    shards: list[Any], asked: str, setup: tuple[bytes, ...]
) -> tuple[list[Endpoint], set[Endpoint]]:
    """The master of each slot from CLUSTER SHARDS (as RESP2 gives it: flat lists of names and
    values), and the masters with a replica not failed; a node that names no address of its own
    is at the host that was asked."""
    masters: list[Endpoint | None] = [None] * SLOTS
    replicated = set()
    for shard in shards:
        fields = _fields(shard)
        nodes = [_fields(node) for node in fields[b"nodes"]]
        live = [n for n in nodes if n[b"role"] == b"master" and n[b"health"] == b"online"]
        if not live:
            continue  # a shard without a master (it is being elected): its slots stay unset
        node = live[0]
        host = node.get(b"endpoint") or node.get(b"ip") or b"?"
        at = Endpoint(None, asked if host == b"?" else host.decode(), int(node[b"port"]), setup)
        # A replica counts unless failed: Redis 7.0 says "loading" of one whose replication
        # offset is still 0 (no write yet), which a WAIT is answered by all the same.
        if any(n[b"role"] == b"replica" and n[b"health"] != b"fail" for n in nodes):
            replicated.add(at)
        ranges = fields[b"slots"]
        for start, end in zip(ranges[::2], ranges[1::2], strict=True):
            masters[int(start) : int(end) + 1] = [at] * (int(end) - int(start) + 1)
    missing = masters.count(None)
    if missing:
        raise ValueError(f"{missing} slots have no master")
    return cast(list[Endpoint], masters), replicated


def _key_slot(key: bytes) -> int:
    slot: int = key_slot(key)  # redis-py is read untyped
    return slot


def _fields(flat: list[Any]) -> dict[bytes, Any]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _error(reply: ResponseError) -> ResponseError:
    # redis-py's script objects load a script again on NoScriptError.
    text = str(reply)
    return NoScriptError(text) if text.startswith("NOSCRIPT") else reply


def clustered(url: str) -> bool:
    """Whether the Redis at `url` is a node of a Redis Cluster (INFO's cluster_enabled), asked
    once when a client is opened. A unix socket (the embedded Redis) is never one, and a Redis
    that does not answer is taken as a single one, whose first command then says what is
    wrong."""
    if urlsplit(url).scheme not in ("redis", "rediss"):
        return False
    try:
        with SyncRedis.from_url(
            url, socket_timeout=PROBE_SECONDS, socket_connect_timeout=PROBE_SECONDS
        ) as probe:
            return bool(probe.info("cluster").get("cluster_enabled") == 1)
    except RedisError:
        return False


def sharded(redis: Any) -> bool:
    """Whether `redis` talks to a Redis Cluster: a game's events then go out by SPUBLISH to the
    shard of the game's slot, rather than by PUBLISH to every node."""
    return isinstance(redis, RedisCluster)


def command(*args: Arg) -> bytes:
    """A command in RESP, packed by hiredis."""
    packed: bytes = hiredis.pack_command(args)  # type: ignore[arg-type]  # stub: a 1-tuple
    return packed
