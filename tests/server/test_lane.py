"""The lane to Redis: replies in order under concurrency and as redis-py gives them, errors as
exceptions, a script Redis forgot, a connection that breaks, blocking commands kept off it, a
password and a database number."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis, RedisCluster, from_url
from redis.exceptions import ConnectionError, ResponseError

from server.games import open_redis
from server.lane import NAME, Lane, LaneRedis, LaneScript, sharded

ECHO = "redis.call('SET', KEYS[1], ARGV[1]); return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1}"


@pytest_asyncio.fixture
async def client(redis_url: str) -> AsyncIterator[Redis]:
    made = open_redis(redis_url)
    assert isinstance(made, LaneRedis)
    yield made
    await made.aclose()


async def _lane_connections(redis: Redis) -> int:
    clients = await redis.client_list(_type="normal")
    return sum(c["name"] == NAME for c in clients)


@pytest.mark.asyncio
async def test_concurrent_calls_each_get_their_own_reply(client: Redis, redis: Redis) -> None:
    echo = client.register_script(ECHO)
    assert isinstance(echo, LaneScript)
    replies = await asyncio.gather(
        *(echo(keys=[f"k{i}"], args=[f"v{i}".encode(), i]) for i in range(300))
    )
    assert replies == [[f"k{i}".encode(), f"v{i}".encode(), i + 1] for i in range(300)]
    assert await redis.get("k299") == b"v299"
    assert await _lane_connections(redis) == 1


@pytest.mark.asyncio
async def test_replies_are_those_redis_py_gives(client: Redis, redis: Redis) -> None:
    await redis.hset("h", mapping={"a": 1, "b": "two"})
    await redis.zadd("z", {"m": 2.5})
    await redis.rpush("l", "x", "y")
    assert await client.hgetall("h") == await redis.hgetall("h") == {b"a": b"1", b"b": b"two"}
    assert await client.zscore("z", "m") == await redis.zscore("z", "m") == 2.5
    assert await client.zscore("z", "none") is None
    assert await client.zrange("z", 0, -1, withscores=True) == [(b"m", 2.5)]
    assert await client.lrange("l", 0, -1) == [b"x", b"y"]
    assert await client.hincrby("h", "a", 2) == 3
    assert await client.hset("h", "c", 3) == 1
    assert await client.hmget("h", ["a", "c", "none"]) == [b"3", b"3", None]
    assert await client.zadd("z", {"m": 1}, xx=True) == 0
    assert await _lane_connections(redis) == 1


@pytest.mark.asyncio
async def test_an_error_reply_raises_and_the_lane_goes_on(client: Redis) -> None:
    failing = client.register_script("return redis.error_reply('no such game')")
    with pytest.raises(ResponseError, match="no such game"):
        await failing()
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        await client.set("s", "v") and await client.hget("s", "f")
    assert await client.get("s") == b"v"


@pytest.mark.asyncio
async def test_a_script_redis_forgot_is_sent_again(client: Redis, redis: Redis) -> None:
    echo = client.register_script(ECHO)
    assert await echo(keys=["a"], args=["1", 1]) == [b"a", b"1", 2]
    await redis.script_flush()
    assert await echo(keys=["b"], args=["2", 2]) == [b"b", b"2", 3]
    assert await echo(keys=["c"], args=["3", 3]) == [b"c", b"3", 4]


@pytest.mark.asyncio
async def test_a_blocking_read_does_not_hold_up_the_lane(client: Redis) -> None:
    waiting = asyncio.ensure_future(client.blpop(["queue"], timeout=5))
    await asyncio.sleep(0.05)
    # The blocked read has a pool connection; the lane's commands go by meanwhile.
    async with asyncio.timeout(1):
        assert await client.hset("h", "a", 1) == 1
        assert await client.hget("h", "a") == b"1"
    await client.rpush("queue", "job")
    assert await waiting == (b"queue", b"job")


@pytest.mark.asyncio
async def test_a_broken_connection_fails_its_calls_and_the_next_call_reconnects(
    client: Redis, redis: Redis
) -> None:
    assert await client.hget("h", "a") is None
    before = await redis.client_list(_type="normal")
    killed = await redis.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
    assert killed == len(before) - 1 >= 1  # the lane's connection
    # A call made before the lane has read the close fails with a connection error; once
    # the lane has seen it, the next call connects again.
    failures = 0
    while True:
        try:
            assert await client.hget("h", "a") is None
            break
        except ConnectionError:
            failures += 1
            assert failures < 3
    assert await client.hget("h", "a") is None
    assert await _lane_connections(redis) == 1


@pytest.mark.asyncio
async def test_a_cancelled_call_leaves_the_replies_in_step(client: Redis) -> None:
    await client.hset("h", mapping={"x": 1, "y": 2})
    first = asyncio.ensure_future(client.hget("h", "x"))
    await asyncio.sleep(0)
    first.cancel()
    assert await client.hget("h", "y") == b"2"


@pytest.mark.asyncio
async def test_a_password_and_a_database_number_from_the_url(redis: Redis, redis_url: str) -> None:
    await redis.config_set("requirepass", "s3cret")
    try:
        url = redis_url.replace("unix://", "unix://:s3cret@") + "?db=3"
        client = open_redis(url)
        assert await client.register_script(ECHO)(keys=["in-3"], args=["v", 0]) == [
            b"in-3",
            b"v",
            1,
        ]
        assert await client.hset("h3", "a", 1) == 1
        await client.aclose()
        check = from_url(url)
        assert await check.get("in-3") == b"v"
        assert await check.hget("h3", "a") == b"1"
        await check.flushdb()
        await check.aclose()
        wrong = open_redis(redis_url.replace("unix://", "unix://:wrong@"))
        with pytest.raises(ResponseError, match=r"WRONGPASS|invalid password"):
            await wrong.hget("h", "a")
        await wrong.aclose()
    finally:
        admin = from_url(redis_url.replace("unix://", "unix://:s3cret@"))
        await admin.config_set("requirepass", "")
        await admin.aclose()


def test_tls_resp3_and_decoded_replies_are_left_to_redis_py() -> None:
    with pytest.raises(ValueError, match="plain TCP or a unix socket"):
        Lane(from_url("rediss://localhost:6380/0", protocol=2))
    with pytest.raises(ValueError, match="must not decode responses"):
        Lane(from_url("redis://localhost:6380/0", protocol=2, decode_responses=True))
    with pytest.raises(ValueError, match="a lane speaks RESP2"):
        Lane(from_url("redis://localhost:6380/0", protocol=3))
    assert LaneRedis.from_url("rediss://localhost:6380/0", protocol=2)._lane is None
    assert LaneRedis.from_url("redis://localhost:6380/0")._lane is None  # RESP3 from redis-py 8


@pytest.mark.asyncio
async def test_no_redis_there_is_a_connection_error_naming_where(tmp_path: Path) -> None:
    client = open_redis(f"unix://{tmp_path}/none.sock")
    with pytest.raises(ConnectionError, match=r"cannot connect to Redis at .*none\.sock"):
        await client.hget("k", "f")
    await client.aclose()


def test_only_a_cluster_client_is_sharded(redis_url: str) -> None:
    assert not sharded(open_redis(redis_url))
    assert not sharded(from_url(redis_url))
    assert sharded(RedisCluster(host="localhost", port=7401))  # made without connecting
