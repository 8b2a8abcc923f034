"""Prometheus metrics scraped over HTTP from a real server on real Redis, after clients speaking
the wire protocol played, were refused or lost the server's subscription."""

from __future__ import annotations

import asyncio
import socket
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis
from websockets.asyncio.server import serve

from clients import ArenaClient, ArenaError
from engine.amazons import Position
from engine.game import get_game
from server.analysis_queue import AnalysisQueue, Analysts
from server.app import Arena
from server.db import Database
from server.game_index import HOUSE_STREAMS, bucket_of, house_stream
from server.games import open_redis
from server.identity import create_account, create_bot_token
from server.metrics import serve_metrics
from server.protocol import (
    AcceptSeek,
    Challenge,
    Colour,
    ErrorCode,
    GameStarted,
    ListGames,
    PlayMove,
    Resign,
    Seek,
    TimeControl,
    Watch,
)
from server.storage import game_key
from server.worker import GROUP, Worker
from tests.server.endpoint import Counted, guest, random_game

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest_asyncio.fixture
async def served(
    redis: Redis, redis_url: str, database: Database
) -> AsyncIterator[tuple[Arena, int]]:
    """A server process's Arena on a free port, as `arena serve` has it: (arena, port)."""
    client = open_redis(redis_url)
    arena = Arena(client, database=database)
    await arena.start()
    try:
        async with serve(arena.handle, "127.0.0.1", 0, process_request=arena.health) as server:
            yield arena, next(iter(server.sockets)).getsockname()[1]
    finally:
        await arena.close()
        await client.aclose()


def _get(port: int, path: str) -> tuple[str, str]:
    """The content type and body of a plain-HTTP GET."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as reply:
        return reply.headers["Content-Type"], reply.read().decode()


def parse(text: str) -> Samples:
    """Every sample of a scrape, by name and labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def scrape(port: int) -> Samples:
    content_type, text = await asyncio.to_thread(_get, port, "/metrics")
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    return parse(text)


@pytest.mark.asyncio
async def test_a_scrape_counts_connections_sessions_games_moves_and_redis_round_trips(
    served: tuple[Arena, int], redis: Redis, database: Database
) -> None:
    _, port = served
    url = f"ws://127.0.0.1:{port}"
    assert await asyncio.to_thread(_get, port, "/healthz") == (
        "text/plain; charset=utf-8",
        "ok\n",
    )
    before = await scrape(port)
    assert before[("arena_connections", ())] == 0
    assert before[("arena_live_games", ())] == 0
    assert before[("arena_moves_total", ())] == 0

    await create_account(database, "ann", "secret-pass")
    human = await ArenaClient.connect(url)
    await human.login("ann", "secret-pass")
    bot = await ArenaClient.connect(url)
    await bot.bot_login(await create_bot_token(database, "robot"))
    anonymous = await ArenaClient.connect(url)  # connected, not logged in
    a, b, spectator = await guest(url), await guest(url), await guest(url)
    added = await a.request(Seek(TimeControl(300, 0), setup="6x6"))
    started: GameStarted = await b.request(AcceptSeek(added.seek.seek_id), GameStarted)
    game_id = started.game_id
    await spectator.request(Watch(game_id))
    white = a if started.white.name == a.user.name else b
    black = b if white is a else a

    playing = await scrape(port)
    assert playing[("arena_connections", ())] == 6
    assert playing[("arena_sessions", (("kind", "guest"),))] == 3
    assert playing[("arena_sessions", (("kind", "human"),))] == 1
    assert playing[("arena_sessions", (("kind", "bot"),))] == 1
    assert playing[("arena_live_games", ())] == 1

    moves = random_game("6x6", seed=5)[:6]
    for ply, move in enumerate(moves):
        await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
    await (white if len(moves) % 2 == 0 else black).request(Resign(game_id))

    after = await scrape(port)
    assert after[("arena_moves_total", ())] == 6
    assert after[("arena_move_commit_seconds_count", ())] == 6
    assert 0 < after[("arena_move_commit_seconds_sum", ())] < 6 * 5
    assert after[("arena_move_commit_seconds_bucket", (("le", "+Inf"),))] == 6
    assert after[("arena_move_commit_seconds_bucket", (("le", "0.00025"),))] <= 6
    assert after[("arena_live_games", ())] == 0
    # Each move's commit is one command on the lane, as are the resignation's and more.
    lane = (("via", "lane"),)
    assert (
        after[("arena_redis_commands_total", lane)] - playing[("arena_redis_commands_total", lane)]
        >= 7
    )
    assert after[("arena_redis_round_trips_total", lane)] > 0
    assert (
        after[("arena_redis_round_trips_total", lane)]
        <= after[("arena_redis_commands_total", lane)]
    )
    pool = (("via", "pool"),)  # the live-game count each scrape reads, at least
    assert (
        after[("arena_redis_round_trips_total", pool)]
        > playing[("arena_redis_round_trips_total", pool)]
    )
    assert after[("arena_rate_limited_total", ())] == 0
    assert after[("arena_pubsub_reconnects_total", ())] == 0

    for client in (human, bot, anonymous, a, b, spectator):
        await client.close()
    async with asyncio.timeout(5):
        while (await scrape(port))[("arena_connections", ())]:
            await asyncio.sleep(0.01)


@pytest.mark.asyncio
async def test_requests_refused_for_their_rate_are_counted(served: tuple[Arena, int]) -> None:
    _, port = served
    client = await guest(f"ws://127.0.0.1:{port}")
    replies = await asyncio.gather(
        *(client.request(ListGames()) for _ in range(100)), return_exceptions=True
    )
    refused = sum(
        isinstance(reply, ArenaError) and reply.code is ErrorCode.RATE_LIMITED for reply in replies
    )
    assert refused > 0
    assert (await scrape(port))[("arena_rate_limited_total", ())] == refused
    await client.close()


@pytest.mark.asyncio
async def test_a_broken_subscription_counts_one_pubsub_reconnect(
    served: tuple[Arena, int], redis: Redis
) -> None:
    _, port = served
    await redis.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
    async with asyncio.timeout(5):
        while (await scrape(port))[("arena_pubsub_reconnects_total", ())] == 0:
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.1)
    assert (await scrape(port))[("arena_pubsub_reconnects_total", ())] == 1


@pytest.mark.asyncio
async def test_a_scrape_while_redis_is_unreachable_leaves_out_only_the_live_games(
    tmp_path: Path,
) -> None:
    client = open_redis(f"unix://{tmp_path}/no-redis.sock")
    arena = Arena(client)
    try:
        samples = parse((await arena.metrics.exposition()).decode())
    finally:
        await client.aclose()
    assert samples[("arena_connections", ())] == 0
    assert samples[("arena_moves_total", ())] == 0
    assert not any(name == "arena_live_games" for name, _ in samples)


@pytest.mark.asyncio
async def test_other_plain_paths_are_the_web_clients(served: tuple[Arena, int]) -> None:
    _, port = served
    with pytest.raises(urllib.error.HTTPError) as refused:
        await asyncio.to_thread(_get, port, "/other")
    refused.value.close()
    assert refused.value.code == 404  # a plain GET is for the web client (tests/server/test_web.py)


@pytest_asyncio.fixture
async def worker(redis_url: str) -> AsyncIterator[tuple[Worker, int]]:
    """A worker (not yet running) whose metrics are served on a free port: (worker, port)."""
    client = open_redis(redis_url)
    house = Worker(client, "metrics-worker")
    listener = socket.create_server(("127.0.0.1", 0))
    server = await serve_metrics(house.metrics, listener)
    try:
        yield house, listener.getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()
        await client.aclose()


async def _scrape_until(
    port: int, name: str, labels: tuple[tuple[str, str], ...], value: float
) -> Samples:
    async with asyncio.timeout(10):
        while (samples := await scrape(port)).get((name, labels)) != value:
            await asyncio.sleep(0.02)
    return samples


async def _work_until(house: Worker, port: int, outcome: str, count: int) -> Samples:
    """Run the worker until it has finished `count` requests with `outcome`; the scrape."""
    stop = asyncio.Event()
    running = asyncio.create_task(house.run(stop, prepare=False))
    try:
        return await _scrape_until(
            port, "arena_worker_requests_total", (("outcome", outcome),), count
        )
    finally:
        stop.set()
        await asyncio.wait_for(running, 5)


@pytest.mark.asyncio
async def test_a_worker_reports_its_queue_and_the_request_it_reclaimed(
    worker: tuple[Worker, int], redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    import server.worker

    monkeypatch.setattr(server.worker, "RECLAIM_MS", 50)
    house, port = worker
    empty = await scrape(port)
    assert empty[("arena_worker_queue_length", ())] == 0
    assert empty[("arena_worker_queue_pending", ())] == 0
    await house.ensure_group()
    for ply in range(3):  # requests for a game that is not there: nothing to play
        await redis.xadd(house_stream(bucket_of("gone")), {"game_id": "gone", "ply": ply})
    # A worker that takes one and dies.
    await redis.xreadgroup(GROUP, "dead-worker", {house_stream(bucket_of("gone")): ">"}, count=1)
    queued = await scrape(port)
    assert queued[("arena_worker_queue_length", ())] == 3
    assert queued[("arena_worker_queue_pending", ())] == 1
    assert queued[("arena_worker_requests_total", (("outcome", "skipped"),))] == 0

    done = await _work_until(house, port, "skipped", 3)
    assert done[("arena_worker_reclaimed_total", ())] == 1
    assert done[("arena_worker_requests_total", (("outcome", "played"),))] == 0
    assert done[("arena_worker_think_seconds_count", ())] == 0
    assert done[("arena_worker_queue_length", ())] == 0
    assert done[("arena_worker_queue_pending", ())] == 0


@pytest.mark.asyncio
async def test_a_request_that_fails_every_try_is_counted_dropped(
    worker: tuple[Worker, int], redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    import server.worker

    monkeypatch.setattr(server.worker, "MAX_DELIVERIES", 1)
    house, port = worker
    await redis.hset(game_key("broken"), "doc", b"not a game")  # loading it fails
    await house.ensure_group()
    await redis.xadd(house_stream(bucket_of("broken")), {"game_id": "broken", "ply": 0})
    done = await _work_until(house, port, "dropped", 1)
    assert done[("arena_worker_requests_total", (("outcome", "skipped"),))] == 0
    assert done[("arena_worker_queue_length", ())] == 0


@pytest.mark.asyncio
async def test_a_worker_counts_the_moves_it_played_and_their_think_time(
    served: tuple[Arena, int], worker: tuple[Worker, int]
) -> None:
    _, server_port = served
    house, port = worker
    stop = asyncio.Event()
    running = asyncio.create_task(house.run(stop))
    try:
        await asyncio.wait_for(house.ready.wait(), 300)
        human = await guest(f"ws://127.0.0.1:{server_port}")
        started: GameStarted = await human.request(
            Challenge("greedy", TimeControl(60, 1), setup="6x6", colour="white"), GameStarted
        )
        game_id = started.game_id
        for ply in (0, 2, 4):
            view = human.games[game_id]
            assert view.to_move is Colour.WHITE
            position = Position.setup("6x6")
            for text in view.moves:
                position.apply(position.parse_move(text))
            move = position.random_move(ply)
            assert move is not None
            await human.request(PlayMove(game_id, ply, str(move)))
            await human.wait_for(lambda c, ply=ply: c.games[game_id].ply == ply + 2, timeout=30)
        done = await _scrape_until(port, "arena_worker_requests_total", (("outcome", "played"),), 3)
    finally:
        stop.set()
        await asyncio.wait_for(running, 5)
    assert done[("arena_worker_think_seconds_count", ())] == 3
    assert 0 < done[("arena_worker_think_seconds_sum", ())] < 60
    assert done[("arena_worker_requests_total", (("outcome", "skipped"),))] == 0
    assert done[("arena_worker_reclaimed_total", ())] == 0
    await human.close()


@pytest.mark.asyncio
async def test_a_worker_metrics_port_answers_only_metrics(worker: tuple[Worker, int]) -> None:
    _, port = worker
    with pytest.raises(urllib.error.HTTPError) as refused:
        await asyncio.to_thread(_get, port, "/")
    refused.value.close()
    assert refused.value.code == 404


@pytest.mark.asyncio
@pytest.mark.parametrize("fields", [{"game_id": "g1"}, {"game_id": "g1", "ply": "two"}, {"ply": 0}])
async def test_an_unreadable_request_is_dropped_at_once(
    worker: tuple[Worker, int], redis: Redis, fields: dict[str, str | int]
) -> None:
    house, port = worker
    await house.ensure_group()
    await redis.xadd(HOUSE_STREAMS[0], fields)
    done = await _work_until(house, port, "dropped", 1)
    assert done[("arena_worker_queue_length", ())] == 0
    assert done[("arena_worker_queue_pending", ())] == 0
    assert done[("arena_worker_reclaimed_total", ())] == 0


@pytest.mark.asyncio
async def test_a_worker_counts_the_positions_it_judges(
    worker: tuple[Worker, int], redis: Redis
) -> None:
    house, port = worker
    house.analysts = Analysts(house.redis, house.name, compute=Counted())
    bao = get_game("bao").new_state().text()
    stop = asyncio.Event()
    running = asyncio.create_task(house.run(stop, prepare=False))
    try:
        await _scrape_until(port, "arena_worker_analyses_total", (), 0)
        queue = AnalysisQueue(redis)
        for _ in range(2):  # the second time from the cache: not counted
            await asyncio.wait_for(queue.judgement("bao", bao), 30)
        await _scrape_until(port, "arena_worker_analyses_total", (), 1)
    finally:
        stop.set()
        await asyncio.wait_for(running, 30)
