"""A game's commit and its indexes on a real Redis Cluster (3 masters): the events go out by
SPUBLISH on the game's shard channel, the indexes spread over their buckets' slots, and a
worker reads a house bot's request from its bucket's stream."""

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio.cluster import RedisCluster

from server.game_index import bucket_of, house_stream
from server.games import GameStore, open_redis
from server.protocol import Player, PlayerKind, TimeControl, decode_event
from server.storage import channel
from server.worker import Worker
from tests.redis_cluster import LocalCluster

T0 = 1_790_000_000_000
ANN, BOB = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)


@pytest_asyncio.fixture
async def store(redis_cluster: LocalCluster) -> AsyncIterator[GameStore]:
    redis = open_redis(redis_cluster.url)
    try:
        yield GameStore(redis)
    finally:
        await redis.aclose()


@pytest.mark.asyncio
async def test_a_game_is_committed_published_and_indexed_on_a_cluster(
    store: GameStore, redis_cluster: LocalCluster
) -> None:
    listener = RedisCluster.from_url(redis_cluster.url)
    await listener.initialize()
    started = await store.create(
        ANN, BOB, time=TimeControl(60, 0), rated=False, now=T0, setup="10x10"
    )
    game_id = started.game_id
    watching = listener.pubsub()
    await watching.ssubscribe(channel(game_id))
    try:
        await store.play(game_id, "ann", 0, "d1-d7/g7", T0 + 1_000)
        heard = None
        while heard is None or heard["type"] != "smessage":
            heard = await watching.get_sharded_message(timeout=5)
            assert heard is not None, "nothing published on the game's shard channel"
        event = decode_event(heard["data"])
        assert (event.game_id, event.version) == (game_id, 2)
    finally:
        await watching.aclose()
        await listener.aclose()
    assert [game.game_id for game in await store.live_games(T0 + 2_000)] == [game_id]
    assert await store.games_of("bob") == [game_id]
    await store.count_spectator(game_id, +1)
    assert await store.index.spectators([game_id]) == {game_id: 1}
    assert await store.due(T0 + 10**9) == [game_id]

    await store.resign(game_id, "bob", T0 + 3_000)
    assert await store.index.waiting_handover() == [game_id]
    assert await store.index.live() == []
    assert await store.games_of("ann") == []
    assert await store.repair_index(bucket_of(game_id)) == 0


@pytest.mark.asyncio
async def test_a_worker_reads_a_house_bots_request_from_its_buckets_stream_on_a_cluster(
    store: GameStore,
) -> None:
    house = Player("greedy", PlayerKind.HOUSE)
    started = await store.create(
        ANN,
        house,
        time=TimeControl(60, 0),
        rated=False,
        now=T0,
        setup="10x10",
        house=(None, "greedy@5"),
    )
    worker = Worker(store.redis, name="w1")
    await worker.ensure_group()
    await store.play(started.game_id, "ann", 0, "d1-d7/g7", T0 + 1_000)
    assert await worker.queue() == (1, 0)
    request = await worker._next()
    assert request is not None
    stream, _, fields = request
    assert stream == house_stream(bucket_of(started.game_id))
    assert fields == {b"game_id": started.game_id.encode(), b"ply": b"1"}
    assert await worker.queue() == (1, 1)
