"""The hub on a Redis Cluster (3 masters, 3 replicas, started for each test): a game's channel is
a shard channel, subscribed on its slot's master and reached by SPUBLISH; the lobby stays
classic; a master killed is followed to its promoted replica, and only the followers of its
channels are told to catch up; a slot that moves takes its subscription along."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.crc import key_slot

from server.games import open_redis
from server.hub import LOBBY, Hub
from server.lane import LaneCluster
from tests.redis_cluster import LocalCluster
from tests.server.test_hub import Recorder, _frame


@pytest_asyncio.fixture
async def hub(redis_cluster: LocalCluster) -> AsyncIterator[Hub]:
    client = open_redis(redis_cluster.url)
    assert isinstance(client, LaneCluster)
    made = Hub(client)
    await made.start()
    yield made
    await made.close()
    await client.aclose()


def _channel(game: str) -> str:
    return f"{{g:{game}}}:channel"


def _slot(channel: str) -> int:
    slot: int = key_slot(channel.encode())
    return slot


def _games_on_two_masters(cluster: LocalCluster) -> tuple[str, str]:
    """Two games whose channels are on different masters."""
    first = "g0"
    for n in range(1, 100):
        if cluster.master_of(_slot(_channel(f"g{n}"))) != cluster.master_of(_slot(_channel(first))):
            return first, f"g{n}"
    raise AssertionError("every game on one master")


def _spublish(cluster: LocalCluster, channel: str, frame: bytes) -> int:
    """SPUBLISH on the master of the channel's slot: how many subscribers it reached."""
    with cluster.node(cluster.master_of(_slot(channel))) as master:
        reached: int = master.execute_command("SPUBLISH", channel, frame)
    return reached


async def _next_gap(follower: Recorder) -> None:
    async with asyncio.timeout(15):
        while not follower.gaps:
            await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_game_is_followed_by_a_sharded_subscription(
    hub: Hub, redis_cluster: LocalCluster
) -> None:
    first, second = _games_on_two_masters(redis_cluster)
    ann, bob, lobby = Recorder(), Recorder(), Recorder()
    await hub.follow(_channel(first), ann)
    await hub.follow(_channel(second), bob)
    await hub.follow(LOBBY, lobby)
    frame = _frame(t="move_played", game_id=first, version=2)
    assert _spublish(redis_cluster, _channel(first), frame) == 1  # a shard subscriber
    assert await ann.next() == (
        _channel(first),
        frame,
        {"t": "move_played", "game_id": first, "version": 2},
    )
    assert _spublish(redis_cluster, _channel(second), _frame(version=1)) == 1
    assert (await bob.next())[2] == {"version": 1}
    # The lobby is classic: a PUBLISH on any node reaches it.
    with redis_cluster.node(redis_cluster.ports[-1]) as anywhere:
        anywhere.publish(LOBBY, _frame(t="seek_removed"))
    assert (await lobby.next())[2] == {"t": "seek_removed"}
    assert ann.got == bob.got == []
    assert ann.gaps == bob.gaps == []
    await hub.unfollow(_channel(first), ann)
    await asyncio.sleep(0.1)
    assert _spublish(redis_cluster, _channel(first), frame) == 0


@pytest.mark.asyncio
async def test_a_killed_master_s_games_are_followed_again_and_caught_up(
    hub: Hub, redis_cluster: LocalCluster
) -> None:
    first, second = _games_on_two_masters(redis_cluster)
    ann, bob = Recorder(), Recorder()
    await hub.follow(_channel(first), ann)
    await hub.follow(_channel(second), bob)
    slot = _slot(_channel(first))
    dead = redis_cluster.master_of(slot)
    redis_cluster.kill(dead)
    promoted = await asyncio.to_thread(redis_cluster.wait_served, slot)
    await _next_gap(ann)  # subscribed again, and told to catch up from the game's log
    assert ann.gaps == [_channel(first)]
    assert _spublish(redis_cluster, _channel(first), _frame(version=3)) == 1
    assert redis_cluster.master_of(slot) == promoted
    assert (await ann.next())[2] == {"version": 3}
    # The other master's game went on without a gap.
    assert bob.gaps == []
    assert _spublish(redis_cluster, _channel(second), _frame(version=4)) == 1
    assert (await bob.next())[2] == {"version": 4}


@pytest.mark.asyncio
async def test_a_moved_slot_takes_its_game_s_subscription_along(
    hub: Hub, redis_cluster: LocalCluster
) -> None:
    game, _ = _games_on_two_masters(redis_cluster)
    ann = Recorder()
    await hub.follow(_channel(game), ann)
    slot = _slot(_channel(game))
    source = redis_cluster.master_of(slot)
    target = next(port for port in redis_cluster.masters() if port != source)
    with redis_cluster.node(target) as new:
        target_id = new.execute_command("CLUSTER", "MYID").decode()
    for port in (source, target):  # the slot has no keys: it moves at once
        with redis_cluster.node(port) as node:
            node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
    # The old master drops the subscription; the hub makes it on the new one.
    await _next_gap(ann)
    assert ann.gaps == [_channel(game)]
    assert _spublish(redis_cluster, _channel(game), _frame(version=5)) == 1
    assert (await ann.next())[2] == {"version": 5}


@pytest.mark.asyncio
async def test_a_game_followed_while_its_master_is_down_is_caught_up_after(
    hub: Hub, redis_cluster: LocalCluster
) -> None:
    first, second = _games_on_two_masters(redis_cluster)
    slot = _slot(_channel(first))
    redis_cluster.kill(redis_cluster.master_of(slot))
    ann, bob = Recorder(), Recorder()
    # The request that follows it does not fail for the failover.
    async with asyncio.timeout(2):
        await hub.follow(_channel(first), ann)
        await hub.follow(_channel(second), bob)
    await asyncio.to_thread(redis_cluster.wait_served, slot)
    await _next_gap(ann)
    assert ann.gaps == [_channel(first)]
    assert _spublish(redis_cluster, _channel(first), _frame(version=2)) == 1
    assert (await ann.next())[2] == {"version": 2}
    assert bob.gaps == []


@pytest.mark.asyncio
async def test_a_handed_over_master_s_games_are_followed_on_its_replica(
    hub: Hub, redis_cluster: LocalCluster
) -> None:
    game, _ = _games_on_two_masters(redis_cluster)
    ann = Recorder()
    await hub.follow(_channel(game), ann)
    slot = _slot(_channel(game))
    master = redis_cluster.master_of(slot)
    with redis_cluster.node(master) as node:
        replica = int(node.info("replication")["slave0"]["port"])
    with redis_cluster.node(replica) as node:
        node.execute_command("CLUSTER", "FAILOVER")  # the master hands over, alive
    await _next_gap(ann)
    assert redis_cluster.master_of(slot) == replica
    assert _spublish(redis_cluster, _channel(game), _frame(version=6)) == 1
    assert (await ann.next())[2] == {"version": 6}
