"""A lane to Redis for the one command on every move's path, the commit script.

redis-py's client takes about 130 µs of CPU for each script call here (a connection from the
pool, locks, timeouts, packing), most of a move's Redis cost. A lane keeps one connection of
its own: a call queues its command and waits for its reply, the commands of one turn of the
event loop go out in one write, replies come back in the order the commands went out (Redis
answers a connection in order), and hiredis packs the commands and parses the replies. Calls
from many sessions share the connection without waiting for each other, so under load the
commands travel pipelined. About 10 µs a call.

A connection that breaks fails the calls waiting on it (`ConnectionError`: the caller cannot
know whether Redis ran the command, as with any client) and the next call connects again. A
script Redis does not know (after a restart or SCRIPT FLUSH) is sent whole once and then by
its SHA1 again.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
from collections.abc import Sequence
from typing import Any, cast

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError, NoScriptError, ResponseError

__all__ = ["ScriptLane"]

Arg = bytes | str | int | float


class ScriptLane:
    """Calls one Lua script like redis-py's `register_script`: `await lane(keys=, args=)`."""

    def __init__(self, redis: aioredis.Redis, script: str) -> None:
        kwargs = redis.connection_pool.connection_kwargs
        if redis.connection_pool.connection_class not in (
            aioredis.Connection,
            aioredis.UnixDomainSocketConnection,
        ):
            raise ValueError("a script lane speaks plain TCP or a unix socket only")
        self._path: str | None = kwargs.get("path")
        self._host: str = kwargs.get("host", "localhost")
        self._port: int = int(kwargs.get("port", 6379))
        self._setup = [
            *(
                [_command("AUTH", kwargs["username"], kwargs["password"])]
                if kwargs.get("username")
                else [_command("AUTH", kwargs["password"])]
                if kwargs.get("password")
                else []
            ),
            *([_command("SELECT", int(kwargs["db"]))] if int(kwargs.get("db") or 0) else []),
        ]
        self._script = script
        self._sha = hashlib.sha1(script.encode()).hexdigest()
        self._wire: _Wire | None = None
        self._connecting = asyncio.Lock()  # bound to a loop only when first waited on

    async def __call__(self, keys: Sequence[Arg] = (), args: Sequence[Arg] = ()) -> Any:
        wire = await self._connected()
        try:
            return await wire.call(_command("EVALSHA", self._sha, len(keys), *keys, *args))
        except NoScriptError:
            return await wire.call(_command("EVAL", self._script, len(keys), *keys, *args))

    async def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None

    async def _connected(self) -> _Wire:
        wire = self._wire
        if wire is not None and wire.open:
            return wire
        async with self._connecting:
            if self._wire is not None and self._wire.open:
                return self._wire
            loop = asyncio.get_running_loop()
            try:
                if self._path is not None:
                    _, wire = await loop.create_unix_connection(_Wire, self._path)
                else:
                    _, wire = await loop.create_connection(_Wire, self._host, self._port)
            except OSError as error:
                where = self._path or f"{self._host}:{self._port}"
                raise ConnectionError(f"cannot connect to Redis at {where}: {error}") from error
            try:
                for command in self._setup:
                    await wire.call(command)
            except BaseException:
                wire.close()
                raise
            self._wire = wire
            return wire


class _Wire(asyncio.Protocol):
    """One connection: commands out in order, replies matched to them in order."""

    def __init__(self) -> None:
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
        self._unsent = []

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def _error(reply: ResponseError) -> ResponseError:
    text = str(reply)
    return NoScriptError(text) if text.startswith("NOSCRIPT") else reply


def _command(*args: Arg) -> bytes:
    """A command in RESP, packed by hiredis."""
    packed: bytes = hiredis.pack_command(args)  # type: ignore[arg-type]  # stub: a 1-tuple
    return packed
