"""The commit's lane to Redis: replies in order under concurrency, errors as exceptions, a
script Redis forgot, a connection that breaks, a password and a database number."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis, from_url
from redis.exceptions import ConnectionError, ResponseError

from server.lane import ScriptLane

ECHO = "redis.call('SET', KEYS[1], ARGV[1]); return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1}"


@pytest_asyncio.fixture
async def lane(redis: Redis) -> AsyncIterator[ScriptLane]:
    made = ScriptLane(redis, ECHO)
    yield made
    await made.close()


@pytest.mark.asyncio
async def test_concurrent_calls_each_get_their_own_reply(lane: ScriptLane, redis: Redis) -> None:
    replies = await asyncio.gather(
        *(lane(keys=[f"k{i}"], args=[f"v{i}".encode(), i]) for i in range(300))
    )
    assert replies == [[f"k{i}".encode(), f"v{i}".encode(), i + 1] for i in range(300)]
    assert await redis.get("k299") == b"v299"


@pytest.mark.asyncio
async def test_an_error_reply_raises_and_the_lane_goes_on(redis: Redis) -> None:
    failing = ScriptLane(redis, "return redis.error_reply('no such game')")
    with pytest.raises(ResponseError, match="no such game"):
        await failing()
    with pytest.raises(ResponseError, match="no such game"):
        await failing()
    await failing.close()


@pytest.mark.asyncio
async def test_a_script_redis_forgot_is_sent_again(lane: ScriptLane, redis: Redis) -> None:
    assert await lane(keys=["a"], args=["1", 1]) == [b"a", b"1", 2]
    await redis.script_flush()
    assert await lane(keys=["b"], args=["2", 2]) == [b"b", b"2", 3]
    assert await lane(keys=["c"], args=["3", 3]) == [b"c", b"3", 4]


@pytest.mark.asyncio
async def test_a_broken_connection_fails_its_calls_and_the_next_call_reconnects(
    redis: Redis,
) -> None:
    slow = ScriptLane(redis, "local t = redis.call('TIME'); return 1")
    assert await slow() == 1
    before = await redis.client_list(_type="normal")
    killed = await redis.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
    assert killed == len(before) - 1 >= 1  # the lane's connection
    # A call made before the lane has read the close fails with a connection error; once
    # the lane has seen it, the next call connects again.
    failures = 0
    while True:
        try:
            assert await slow() == 1
            break
        except ConnectionError:
            failures += 1
            assert failures < 3
    assert await slow() == 1
    after = await redis.client_list(_type="normal")
    assert len(after) == 2  # this client and the lane's new connection
    await slow.close()


@pytest.mark.asyncio
async def test_a_cancelled_call_leaves_the_replies_in_step(lane: ScriptLane) -> None:
    first = asyncio.ensure_future(lane(keys=["x"], args=["1", 1]))
    await asyncio.sleep(0)
    first.cancel()
    assert await lane(keys=["y"], args=["2", 2]) == [b"y", b"2", 3]


@pytest.mark.asyncio
async def test_a_password_and_a_database_number_from_the_url(redis: Redis, redis_url: str) -> None:
    await redis.config_set("requirepass", "s3cret")
    try:
        url = redis_url.replace("unix://", "unix://:s3cret@") + "?db=3"
        client = from_url(url)
        lane = ScriptLane(client, ECHO)
        assert await lane(keys=["in-3"], args=["v", 0]) == [b"in-3", b"v", 1]
        assert await client.get("in-3") == b"v"
        await lane.close()
        wrong = ScriptLane(from_url(redis_url.replace("unix://", "unix://:wrong@")), ECHO)
        with pytest.raises(ResponseError, match=r"WRONGPASS|invalid password"):
            await wrong(keys=["k"], args=["v", 0])
        await client.flushdb()
        await client.aclose()
    finally:
        admin = from_url(redis_url.replace("unix://", "unix://:s3cret@"))
        await admin.config_set("requirepass", "")
        await admin.aclose()


def test_a_tls_connection_is_left_to_redis_py() -> None:
    with pytest.raises(ValueError, match="plain TCP or a unix socket"):
        ScriptLane(from_url("rediss://localhost:6380/0"), ECHO)


@pytest.mark.asyncio
async def test_no_redis_there_is_a_connection_error_naming_where(tmp_path: Path) -> None:
    lane = ScriptLane(from_url(f"unix://{tmp_path}/none.sock"), ECHO)
    with pytest.raises(ConnectionError, match=r"cannot connect to Redis at .*none\.sock"):
        await lane(keys=["k"], args=["v", 0])
