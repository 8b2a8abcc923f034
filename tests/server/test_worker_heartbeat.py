"""A worker's heartbeats, its house bots' and its analysts', go on after a beat that failed (a
Redis restarted, a failover longer than a command waits): the servers would otherwise count the
worker gone for as long as it runs."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError

from server.analysis_queue import ANALYSTS, Analysts
from server.worker import WORKERS, Worker


def _analysts_beat(redis: Redis) -> Awaitable[None]:
    return Analysts(redis, "beats-on")._heartbeat()


def _workers_beat(redis: Redis) -> Awaitable[None]:
    worker = Worker(redis, "beats-on", analyse=False)
    worker.ready.set()
    return worker._heartbeat()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("beating", "where"), [(_workers_beat, WORKERS), (_analysts_beat, ANALYSTS)]
)
async def test_a_heartbeat_outlives_a_beat_that_failed(
    redis: Redis,
    monkeypatch: pytest.MonkeyPatch,
    beating: Callable[[Redis], Awaitable[None]],
    where: str,
) -> None:
    failures = [ConnectionError("Redis went away")]
    beat = redis.zadd

    async def flaky(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await beat(*args, **kwargs)

    monkeypatch.setattr(redis, "zadd", flaky)
    heartbeat = asyncio.ensure_future(beating(redis))
    try:
        async with asyncio.timeout(10):
            while await redis.zscore(where, "beats-on") is None:
                await asyncio.sleep(0.05)
    finally:
        heartbeat.cancel()
    assert failures == []
