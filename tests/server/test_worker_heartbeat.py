"""A house-bot worker's heartbeat goes on after a beat that failed (a Redis restarted, a
failover longer than a command waits): the servers would otherwise count the worker gone for as
long as it runs."""

import asyncio
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError

from server.worker import WORKERS, Worker


@pytest.mark.asyncio
async def test_a_workers_heartbeat_outlives_a_beat_that_failed(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures = [ConnectionError("Redis went away")]
    beat = redis.zadd

    async def flaky(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await beat(*args, **kwargs)

    monkeypatch.setattr(redis, "zadd", flaky)
    worker = Worker(redis, "beats-on", analyse=False)
    worker.ready.set()
    heartbeat = asyncio.create_task(worker._heartbeat())
    try:
        async with asyncio.timeout(10):
            while await redis.zscore(WORKERS, "beats-on") is None:
                await asyncio.sleep(0.05)
    finally:
        heartbeat.cancel()
    assert failures == []
