"""A server endpoint inside the test process, as `arena serve` runs one, for tests that talk to
it over real websockets."""

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.server import serve

from server.app import Arena
from server.games import open_redis


@contextlib.asynccontextmanager
async def serving(redis_url: str, **options: Any) -> AsyncIterator[str]:
    """A server process's endpoint, in this process on a free port, with its own Redis client
    as `arena serve` has it; `options` go to the Arena. Yields the websocket URL."""
    client = open_redis(redis_url)
    arena = Arena(client, **options)
    await arena.start()
    try:
        async with serve(arena.handle, "127.0.0.1", 0, process_request=arena.health) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            yield f"ws://127.0.0.1:{port}"
    finally:
        await arena.close()
        await client.aclose()
