"""A client for the tests that speaks the wire protocol as an outside client would: msgpack maps
in binary frames, written from docs/protocol.md, with none of `clients/`' bookkeeping. It keeps
every frame it receives, so a test can count duplicates, gaps and replies."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

__all__ = ["Wire"]

REPLY_SECONDS = 30.0  # generous: a loaded machine may load the engine's compiled code slowly

Frame = dict[str, Any]


class Wire:
    """One websocket; `frames` holds every map received, in order."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.frames: list[Frame] = []
        self._ids = itertools.count(1)
        self._arrived = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str, **options: Any) -> Wire:
        return cls(await connect(url, **options))

    @classmethod
    async def guest(cls, url: str) -> Wire:
        wire = await cls.connect(url)
        await wire.call("hello", version=1)
        await wire.call("guest")
        return wire

    async def close(self) -> None:
        await self.socket.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    @property
    def user(self) -> str:
        welcome = next(f for f in self.frames if f["t"] == "welcome")
        return str(welcome["user"]["name"])

    def send(self, tag: str, **fields: Any) -> int:
        """Send a request without waiting; returns its id."""
        request_id = next(self._ids)
        self.send_raw(msgpack.packb({"t": tag, "id": request_id, **fields}))
        return request_id

    def send_raw(self, frame: bytes) -> None:
        asyncio.get_running_loop().create_task(self.socket.send(frame))

    async def call(self, tag: str, **fields: Any) -> Frame:
        """Send a request and return its reply (which may be an `error`)."""
        request_id = self.send(tag, **fields)
        return await self.wait_for(lambda f: f.get("id") == request_id)

    async def wait_for(
        self, match: Callable[[Frame], bool], timeout: float = REPLY_SECONDS
    ) -> Frame:
        """The first frame received, before or after now, that matches; ConnectionClosed
        once the connection closes without one."""
        async with asyncio.timeout(timeout):
            async with self._arrived:
                while True:
                    for frame in self.frames:
                        if match(frame):
                            return frame
                    if self._reader.done():
                        raise ConnectionClosed(
                            self.socket.protocol.close_rcvd, self.socket.protocol.close_sent
                        )
                    await self._arrived.wait()

    async def wait_closed(self, timeout: float = REPLY_SECONDS) -> None:
        async with asyncio.timeout(timeout):
            await self.socket.wait_closed()

    def game_frames(self, game_id: str) -> list[Frame]:
        """The frames of one game that carry a version, in the order received."""
        return [f for f in self.frames if f.get("game_id") == game_id and "version" in f]

    async def _read(self) -> None:
        try:
            async for data in self.socket:
                assert isinstance(data, bytes), "the server sent a text frame"
                frame = msgpack.unpackb(data)
                async with self._arrived:
                    self.frames.append(frame)
                    self._arrived.notify_all()
        except ConnectionClosed:
            pass
        finally:
            async with self._arrived:
                self._arrived.notify_all()
