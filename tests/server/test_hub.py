"""The pub/sub hub: frames reach the followers of their channel, decoded once, from the moment
`follow` returns; a subscription that breaks is made again with every channel; redis-py's
PubSub (the way over TLS) does the same job."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.games import open_redis
from server.hub import LOBBY, NAME, Hub, _RedisPyFeed


class Recorder:
    def __init__(self) -> None:
        self.got: list[tuple[str, bytes, dict[str, Any]]] = []
        self.arrived = asyncio.Event()
        self.gaps: list[str] = []

    def deliver(self, channel: str, data: bytes, event: dict[str, Any]) -> None:
        self.got.append((channel, data, event))
        self.arrived.set()

    def missed(self, channel: str) -> None:
        self.gaps.append(channel)

    async def next(self) -> tuple[str, bytes, dict[str, Any]]:
        async with asyncio.timeout(2):
            while not self.got:
                self.arrived.clear()
                await self.arrived.wait()
        return self.got.pop(0)


def _frame(**fields: Any) -> bytes:
    data: bytes = msgpack.packb(fields)
    return data


@pytest_asyncio.fixture(params=["own", "redis-py"])
async def hub(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Hub]:
    client = open_redis(redis_url)
    made = Hub(client)
    if request.param == "redis-py":
        made._feed = _RedisPyFeed(client, made._dispatch, made._resubscribed)
    await made.start()
    yield made
    await made.close()
    await client.aclose()


@pytest.mark.asyncio
async def test_a_frame_reaches_every_follower_of_its_channel_once_followed(
    hub: Hub, redis: Redis
) -> None:
    ann, bob, other = Recorder(), Recorder(), Recorder()
    await hub.follow("game:g1", ann)
    await hub.follow("game:g1", bob)
    await hub.follow("game:g2", other)
    # follow has returned: the subscription is active, so this frame cannot be missed.
    frame = _frame(t="move_played", game_id="g1", version=2)
    assert await redis.publish("game:g1", frame) == 1  # one subscription for two followers
    for follower in (ann, bob):
        assert await follower.next() == (
            "game:g1",
            frame,
            {"t": "move_played", "game_id": "g1", "version": 2},
        )
    await redis.publish(LOBBY, _frame(t="seek_removed", seek_id="s"))
    await asyncio.sleep(0.05)
    assert other.got == []
    assert hub.followers("game:g1") == 2


@pytest.mark.asyncio
async def test_the_last_follower_leaving_ends_the_subscription(hub: Hub, redis: Redis) -> None:
    ann = Recorder()
    await hub.follow("game:g1", ann)
    await hub.unfollow("game:g1", ann)
    async with asyncio.timeout(2):
        while (await redis.pubsub_numsub("game:g1"))[0][1]:
            await asyncio.sleep(0.01)
    await redis.publish("game:g1", _frame(t="move_played", game_id="g1", version=3))
    await asyncio.sleep(0.05)
    assert ann.got == []
    assert hub.followers("game:g1") == 0


@pytest.mark.asyncio
async def test_a_frame_that_is_not_a_map_is_skipped(hub: Hub, redis: Redis) -> None:
    ann = Recorder()
    await hub.follow("game:g1", ann)
    await redis.publish("game:g1", b"\xc1 not msgpack")
    await redis.publish("game:g1", msgpack.packb([1, 2]))
    frame = _frame(t="move_played", game_id="g1", version=4)
    await redis.publish("game:g1", frame)
    assert (await ann.next())[1] == frame
    assert ann.got == []


@pytest.mark.asyncio
async def test_a_broken_subscription_is_made_again_with_every_channel(redis_url: str) -> None:
    client = open_redis(redis_url)
    hub = Hub(client)
    await hub.start()
    ann, bob = Recorder(), Recorder()
    await hub.follow("game:g1", ann)
    await hub.follow("user:bob", bob)
    admin = open_redis(redis_url)
    assert await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub") >= 1
    async with asyncio.timeout(5):
        while (await admin.pubsub_numsub("user:bob"))[0][1] == 0:
            await asyncio.sleep(0.05)
    names = [c["name"] for c in await admin.client_list(_type="pubsub")]
    assert names == [NAME]
    # What was published meanwhile is lost: every follower is told to catch up.
    assert ann.gaps == ["game:g1"]
    assert bob.gaps == ["user:bob"]
    await admin.publish("game:g1", _frame(t="move_played", game_id="g1", version=5))
    await admin.publish("user:bob", _frame(t="challenge_added"))
    assert (await ann.next())[2]["version"] == 5
    assert (await bob.next())[2]["t"] == "challenge_added"
    # Followed again after the break: a new channel subscribes on the new connection.
    carl = Recorder()
    await hub.follow("game:g2", carl)
    await admin.publish("game:g2", _frame(t="move_played", game_id="g2", version=1))
    assert (await carl.next())[0] == "game:g2"
    await hub.close()
    await client.aclose()
    await admin.aclose()


class _SlowPubSub:
    """A PubSub whose Redis confirms a subscription only when the test says: `subscribe`
    sends the command and returns, as redis-py's does."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def subscribe(self, channel: str) -> None:
        self.sent.append(channel)

    async def get_message(
        self, ignore_subscribe_messages: bool, timeout: float | None
    ) -> dict[str, Any] | None:
        reply = await self.replies.get()
        if ignore_subscribe_messages and reply["type"] == "subscribe":
            return None
        return reply

    async def aclose(self) -> None:
        pass


class _SlowRedis:
    def __init__(self) -> None:
        self.pubsub_made = _SlowPubSub()

    def pubsub(self) -> _SlowPubSub:
        return self.pubsub_made


@pytest.mark.asyncio
async def test_a_redis_py_subscription_returns_once_redis_has_confirmed_it() -> None:
    redis = _SlowRedis()
    got: list[tuple[str, bytes]] = []

    def dispatch(channel: str, data: bytes) -> None:
        got.append((channel, data))

    feed = _RedisPyFeed(cast(Redis, redis), dispatch, lambda channels: None)
    subscribing = asyncio.create_task(feed.subscribe("game:g1"))
    await asyncio.sleep(0.05)
    # Sent, not yet confirmed: a frame published now could be missed, so it waits.
    assert redis.pubsub_made.sent == ["game:g1"]
    assert not subscribing.done()
    await redis.pubsub_made.replies.put({"type": "subscribe", "channel": b"game:g1", "data": 1})
    async with asyncio.timeout(2):
        await subscribing
    await redis.pubsub_made.replies.put({"type": "message", "channel": b"game:g1", "data": b"x"})
    async with asyncio.timeout(2):
        while not got:
            await asyncio.sleep(0.01)
    assert got == [("game:g1", b"x")]
    await feed.close()
