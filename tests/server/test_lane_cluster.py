"""The lane on a Redis Cluster (3 masters, 3 replicas, started for each test): each command and
script goes to the master of its key's slot, a slot's migration is followed (ASK while it
moves, MOVED after), and a master killed is followed to the replica promoted in its place."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
import pytest_asyncio
from redis.crc import key_slot
from redis.exceptions import ConnectionError

from server.app import Arena
from server.games import open_redis
from server.lane import NAME, LaneCluster, LaneRedis, clustered, sharded
from server.metrics import ServerMetrics
from tests.redis_cluster import LocalCluster

KEYS = [f"key-{i}" for i in range(60)]


@pytest_asyncio.fixture
async def client(redis_cluster: LocalCluster) -> AsyncIterator[LaneCluster]:
    made = open_redis(redis_cluster.url)
    assert isinstance(made, LaneCluster)
    yield made
    await made.aclose()


def _redirections(cluster: LocalCluster, kind: str) -> int:
    """How many MOVED (or ASK) replies the live nodes have given."""
    total = 0
    for port in cluster.alive():
        with cluster.node(port) as node:
            total += node.info("errorstats").get(f"errorstat_{kind}", {}).get("count", 0)
    return total


def test_a_cluster_is_told_from_a_single_redis(redis_cluster: LocalCluster, redis_url: str) -> None:
    assert clustered(redis_cluster.url)
    assert not clustered(redis_url)  # the embedded Redis, on a unix socket
    assert not clustered(f"redis://127.0.0.1:{redis_cluster.ports[0] + 1}")  # nothing there
    assert isinstance(open_redis(redis_url), LaneRedis)
    assert not sharded(open_redis(redis_url))
    assert sharded(open_redis(redis_cluster.url))


@pytest.mark.asyncio
async def test_each_command_goes_to_the_master_of_its_slot(
    client: LaneCluster, redis_cluster: LocalCluster
) -> None:
    script = client.register_script("return redis.call('SET', KEYS[1], ARGV[1])")
    await asyncio.gather(*(client.hset(key, "f", key) for key in KEYS[:30]))
    await asyncio.gather(*(script(keys=[key], args=[key]) for key in KEYS[30:]))
    for key in KEYS:
        with redis_cluster.node(redis_cluster.master_of(key_slot(key.encode()))) as master:
            stored = master.hget(key, "f") if key in KEYS[:30] else master.get(key)
            assert stored == key.encode()
    assert await client.hget(KEYS[0], "f") == KEYS[0].encode()
    assert _redirections(redis_cluster, "MOVED") == 0  # none went to a wrong node first
    assert client.lane.maps_read == 1
    # A lane on each master, and only there (the map is read from the first).
    for port in redis_cluster.masters():
        with redis_cluster.node(port) as node:
            names = [c["name"] for c in node.client_list(_type="normal")]
        assert names.count(NAME) == 1
    # The rest goes through redis-py's cluster client, which routes it by its keys.
    pipeline = client.pipeline(transaction=False)
    for key in KEYS[30:40]:
        pipeline.get(key)
    assert await pipeline.execute() == [key.encode() for key in KEYS[30:40]]


@pytest.mark.asyncio
async def test_a_migrating_slot_is_followed(
    client: LaneCluster, redis_cluster: LocalCluster
) -> None:
    key = "moving"
    slot = key_slot(key.encode())
    await client.set(key, "v")
    source = redis_cluster.master_of(slot)
    target = next(port for port in redis_cluster.masters() if port != source)
    with redis_cluster.node(source) as old, redis_cluster.node(target) as new:
        target_id = new.execute_command("CLUSTER", "MYID").decode()
        source_id = old.execute_command("CLUSTER", "MYID").decode()
        new.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        old.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        old.execute_command("MIGRATE", "127.0.0.1", target, "", 0, 5000, "KEYS", key)
        # Half moved: the source asks the client to ask the target.
        assert await client.get(key) == b"v"
        assert _redirections(redis_cluster, "ASK") == 1
        for port in redis_cluster.masters():
            with redis_cluster.node(port) as node:
                node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
    # Moved: the source says where the slot is now, and the lane goes there after.
    assert await client.get(key) == b"v"
    assert await client.set(key, "w")
    assert await client.get(key) == b"w"
    assert _redirections(redis_cluster, "MOVED") == 1
    with redis_cluster.node(target) as new:
        assert new.get(key) == b"w"


@pytest.mark.asyncio
async def test_a_killed_master_s_commands_wait_for_its_promoted_replica(
    client: LaneCluster, redis_cluster: LocalCluster
) -> None:
    key = "survivor"
    slot = key_slot(key.encode())
    await client.set(key, "v")
    dead = redis_cluster.master_of(slot)
    with redis_cluster.node(dead) as master:
        assert master.execute_command("WAIT", 1, 5000) == 1  # the replica has it
    others = [k for k in KEYS if redis_cluster.master_of(key_slot(k.encode())) != dead][:5]
    stalls: list[tuple[int, int]] = []
    client.lane.stalls = lambda start, end: stalls.append((start, end))
    killed = time.time()
    redis_cluster.kill(dead)
    # The other masters' slots go on while this one's has no master.
    async with asyncio.timeout(1):
        for other in others:
            await client.set(other, "meanwhile")
    # A command sent on the connection as it broke fails (Redis may have run it or not, as
    # on a single Redis); the next wait until a replica has taken over, and go there.
    failures = 0
    while True:
        waiting = asyncio.ensure_future(client.get(key))
        await asyncio.sleep(0.3)
        # redis-py's cluster client closes itself on CLUSTERDOWN, as the cluster is while
        # no master serves the slot, to read its layout again: the lanes' commands go on.
        in_flight = asyncio.ensure_future(client.get(others[0]))
        await asyncio.sleep(0)
        await client.aclose()
        assert await in_flight == b"meanwhile"
        try:
            assert await waiting == b"v"
            break
        except ConnectionError:
            failures += 1
            assert failures == 1
    promoted = redis_cluster.master_of(slot)
    assert promoted != dead
    # A command that waited for the replica says from when to when (the clocks' outage), once.
    assert len(stalls) == 1
    assert all(1000 * killed <= start < end <= 1000 * time.time() for start, end in stalls)
    assert await client.set(key, "w")
    with redis_cluster.node(promoted) as master:
        assert master.get(key) == b"w"


@pytest.mark.asyncio
async def test_the_metrics_count_a_cluster_lane_s_commands(client: LaneCluster) -> None:
    await asyncio.gather(*(client.set(key, 1) for key in KEYS[:10]))
    await client.blpop(["nothing"], timeout=0.01)  # through redis-py
    store = SimpleNamespace(storage=SimpleNamespace(endings=Counter(acknowledged=2)))
    arena = SimpleNamespace(
        sessions=[], hub=SimpleNamespace(reconnects=0), redis=client, store=store
    )
    metrics = ServerMetrics(cast(Arena, arena))
    figures = {
        (family.name, sample.labels.get("via")): sample.value
        for family in metrics.collect()
        for sample in family.samples
    }
    assert figures[("arena_redis_commands", "lane")] >= 10
    assert figures[("arena_redis_commands", "pool")] == 1
    ended = {
        sample.labels["replica"]: sample.value
        for family in metrics.collect()
        if family.name == "arena_game_end_commits"
        for sample in family.samples
    }
    assert ended == {"acknowledged": 2, "unacknowledged": 0}
    assert (
        1
        <= figures[("arena_redis_round_trips", "lane")]
        <= figures[("arena_redis_commands", "lane")]
    )


@pytest.mark.asyncio
async def test_the_other_masters_commands_wait_out_a_cluster_down(
    client: LaneCluster, redis_cluster: LocalCluster
) -> None:
    dead = redis_cluster.master_of(0)
    elsewhere = next(k for k in KEYS if redis_cluster.master_of(key_slot(k.encode())) != dead)
    await client.set(elsewhere, "v")
    redis_cluster.kill(dead)
    live = redis_cluster.master_of(key_slot(elsewhere.encode()))
    # Once the cluster sees the master failed, and until a replica takes over, every node
    # refuses every command (CLUSTERDOWN): the lane's wait and then go through.
    with redis_cluster.node(live) as node:
        async with asyncio.timeout(10):
            while b"cluster_state:fail" not in node.execute_command("CLUSTER", "INFO"):
                await asyncio.sleep(0.02)
    assert await client.get(elsewhere) == b"v"


@pytest.mark.asyncio
async def test_a_replicated_write_is_answered_once_its_replica_has_it(tmp_path: Path) -> None:
    # A node timeout far longer than the pause, so that the cluster never counts the frozen
    # replica failed, however slow this machine is meanwhile.
    with LocalCluster(tmp_path / "cluster", node_timeout_ms=15_000) as cluster:
        client = open_redis(cluster.url)
        assert isinstance(client, LaneCluster)
        try:
            assert await client.lane.execute_replicated("SET", "ended", "1") == (b"OK", True)
            replica = cluster.replica_of(cluster.master_of(key_slot(b"ended")))
            cluster.pause(replica)
            write = asyncio.ensure_future(client.lane.execute_replicated("SET", "ended", "2"))
            await asyncio.sleep(1.5)  # past one WAIT: it is asked again
            assert not write.done()
            # Other commands on the same master are not held up by the WAIT.
            assert await client.get("ended") == b"2"
            cluster.resume(replica)
            assert await write == (b"OK", True)
            with cluster.node(replica) as node:
                node.execute_command("READONLY")
                assert node.get("ended") == b"2"
        finally:
            await client.aclose()


@pytest.mark.asyncio
async def test_a_replicated_write_waits_for_no_replica_the_cluster_counts_failed(
    client: LaneCluster, redis_cluster: LocalCluster
) -> None:
    replica = redis_cluster.replica_of(redis_cluster.master_of(key_slot(b"ended")))
    redis_cluster.pause(replica)
    redis_cluster.wait_failed(replica)
    await client.lane.refresh()
    async with asyncio.timeout(5):  # not the WAIT's second each round
        assert await client.lane.execute_replicated("SET", "ended", "1") == (b"OK", False)
    assert await client.get("ended") == b"1"
