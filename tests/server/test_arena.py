"""A server process's own duties: closing ends every background task, even one whose first
cancellation was swallowed on its way up."""

import asyncio

import pytest
from redis.asyncio import Redis

from server.app import Arena


@pytest.mark.asyncio
async def test_closing_ends_a_task_that_swallowed_its_cancellation(redis: Redis) -> None:
    arena = Arena(redis)
    swallowed = asyncio.Event()

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed.is_set():
                    raise
                swallowed.set()  # as a library that catches it and returns would

    arena.spawn(stubborn())
    await asyncio.sleep(0)  # let it start
    closing = asyncio.create_task(arena.close())
    done, _ = await asyncio.wait([closing], timeout=10)
    if not done:  # leave nothing running behind the failure
        closing.cancel()
    assert done == {closing}
    assert swallowed.is_set()
    assert not arena._tasks
