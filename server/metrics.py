"""Prometheus metrics of a server process (`GET /metrics` on its websocket port) and of a
house-bot worker (`arena worker --metrics-port`); docs/operations.md lists them.

The hot paths only add to plain numbers held by the objects they concern (prometheus-client's
counter takes a lock and about 0.7 µs, its histogram about 2 µs); each process object has a
collector that reads them, with a registry of its own so that several in one process never
share a count. What lives in Redis (live games, the request queue) is read once per scrape.
"""

from __future__ import annotations

import bisect
import collections
import socket
from collections.abc import Iterator
from http import HTTPStatus
from typing import TYPE_CHECKING

import structlog
from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    GCCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString
from redis.exceptions import RedisError
from websockets.asyncio.server import Server, serve
from websockets.asyncio.server import ServerConnection as Socket
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from server.game_index import GameIndex
from server.lane import LaneCluster, LaneRedis
from server.protocol import PlayerKind

if TYPE_CHECKING:
    from server.app import Arena
    from server.worker import Worker

__all__ = [
    "COMMIT_BUCKETS",
    "THINK_BUCKETS",
    "ServerMetrics",
    "Timings",
    "WorkerMetrics",
    "respond",
    "serve_metrics",
]

log = structlog.get_logger(__name__)

# Upper bounds in seconds. A commit takes about 0.2 ms on a quiet server and tens of ms at
# saturation; a house bot thinks from 10 ms (a weak one's first move) to its clock's share.
COMMIT_BUCKETS = (0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
THINK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
SESSION_KINDS = (PlayerKind.GUEST, PlayerKind.HUMAN, PlayerKind.BOT)
WORKER_OUTCOMES = ("played", "skipped", "dropped")


class Timings:
    """Durations counted by bucket: `add` on the hot path (about 0.2 µs), `family` when
    scraped."""

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last counts those above every bound
        self.total = 0.0

    def add(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.total += seconds

    def family(self, name: str, documentation: str) -> HistogramMetricFamily:
        buckets = []
        below = 0
        for bound, count in zip(
            (*map(floatToGoString, self.bounds), "+Inf"), self.counts, strict=True
        ):
            below += count
            buckets.append((bound, float(below)))
        return HistogramMetricFamily(name, documentation, buckets=buckets, sum_value=self.total)


def respond(socket: Socket, exposition: bytes) -> Response:
    """A scrape's HTTP response, in the text format that every Prometheus reads."""
    response = socket.respond(HTTPStatus.OK, exposition.decode())
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = CONTENT_TYPE_PLAIN_0_0_4
    return response


def _registry(collector: Collector) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(collector)
    ProcessCollector(registry=registry)  # CPU seconds, memory, open files
    GCCollector(registry=registry)  # collections and their objects, by generation
    return registry


class ServerMetrics(Collector):
    """What `GET /metrics` on a server process reports. The sessions add to `moves`,
    `commits` and `rate_limited`; the rest is read from the Arena when scraped."""

    def __init__(self, arena: Arena) -> None:
        self._arena = arena
        self.moves = 0
        self.commits = Timings(COMMIT_BUCKETS)
        self.rate_limited = 0
        self._live_games: int | None = None
        self.registry = _registry(self)

    def moved(self, seconds: float) -> None:
        """A move was committed `seconds` after its request was taken up."""
        self.moves += 1
        self.commits.add(seconds)

    async def exposition(self) -> bytes:
        """The metrics as a scrape gets them."""
        try:
            self._live_games = await GameIndex(self._arena.redis).count_live()
        except RedisError as error:
            # The other figures still go out: they may tell why Redis is out of reach.
            log.warning("metrics_redis_unreachable", error=str(error))
            self._live_games = None
        return generate_latest(self.registry)

    def collect(self) -> Iterator[Metric]:
        arena = self._arena
        yield GaugeMetricFamily(
            "arena_connections", "Websocket connections open", value=len(arena.sessions)
        )
        kinds = collections.Counter(
            session.user.kind for session in arena.sessions if session.user is not None
        )
        sessions = GaugeMetricFamily(
            "arena_sessions", "Connections logged in, by kind of user", labels=["kind"]
        )
        for kind in SESSION_KINDS:
            sessions.add_metric([kind.value], kinds[kind])
        yield sessions
        if self._live_games is not None:
            yield GaugeMetricFamily(
                "arena_live_games",
                "Games in play on the whole server, from Redis (every process reports the same)",
                value=self._live_games,
            )
        yield CounterMetricFamily(
            "arena_moves", "Moves played through this process's connections", value=self.moves
        )
        yield self.commits.family(
            "arena_move_commit_seconds",
            "From a play_move request taken up to its move committed in Redis",
        )
        yield CounterMetricFamily(
            "arena_rate_limited",
            "Requests refused rate_limited",
            value=self.rate_limited,
        )
        yield CounterMetricFamily(
            "arena_pubsub_reconnects",
            "Times the pub/sub subscription broke and was made again",
            value=arena.hub.reconnects,
        )
        endings = arena.store.storage.endings
        if endings:
            ended = CounterMetricFamily(
                "arena_game_end_commits",
                "Commits that ended a game on a Redis Cluster, by whether a replica acknowledged "
                "them before they were answered (none: the shard had no replica online)",
                labels=["replica"],
            )
            for outcome in ("acknowledged", "unacknowledged"):
                ended.add_metric([outcome], endings[outcome])
            yield ended
        redis = arena.redis
        if isinstance(redis, LaneRedis | LaneCluster):
            trips = redis.round_trips
            commands = CounterMetricFamily(
                "arena_redis_commands", "Commands sent to Redis", labels=["via"]
            )
            commands.add_metric(["lane"], trips.lane_commands)
            commands.add_metric(["pool"], trips.pool_commands)
            yield commands
            round_trips = CounterMetricFamily(
                "arena_redis_round_trips",
                "Writes to Redis waited on: one per turn of the event loop on the lane, "
                "one per command or pipeline through the pool",
                labels=["via"],
            )
            round_trips.add_metric(["lane"], trips.lane_writes)
            round_trips.add_metric(["pool"], trips.pool_round_trips)
            yield round_trips


class WorkerMetrics(Collector):
    """What `GET /metrics` on a worker's metrics port reports. The worker adds to `requests`,
    `reclaimed` and `thinking`; the queue is read from Redis when scraped."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker
        self.requests: collections.Counter[str] = collections.Counter()  # by outcome
        self.reclaimed = 0
        self.thinking = Timings(THINK_BUCKETS)
        self._queue: tuple[int, int] | None = None
        self._finished: collections.Counter[str] = collections.Counter()
        self.registry = _registry(self)

    async def exposition(self) -> bytes:
        """The metrics as a scrape gets them."""
        # The finished requests are counted before the queue is read: a request is taken off
        # the queue before it is counted, so a scrape never shows one both finished and queued.
        self._finished = self.requests.copy()
        try:
            self._queue = await self._worker.queue()
        except RedisError as error:
            log.warning("metrics_redis_unreachable", error=str(error))
            self._queue = None
        return generate_latest(self.registry)

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            "arena_worker_requests",
            "Move requests this worker finished: a move played, nothing to do (the move was "
            "played or the game ended meanwhile), or dropped after failing every try",
            labels=["outcome"],
        )
        for outcome in WORKER_OUTCOMES:
            requests.add_metric([outcome], self._finished[outcome])
        yield requests
        yield CounterMetricFamily(
            "arena_worker_reclaimed",
            "Requests this worker took over from a worker that stopped touching them",
            value=self.reclaimed,
        )
        yield self.thinking.family(
            "arena_worker_think_seconds", "Time a house bot of this worker thought on a move"
        )
        analysts = self._worker.analysts
        yield CounterMetricFamily(
            "arena_worker_analyses",
            "Positions this worker judged for analysis (not those it found judged already)",
            value=0 if analysts is None else analysts.computed,
        )
        if self._queue is not None:
            length, pending = self._queue
            yield GaugeMetricFamily(
                "arena_worker_queue_length",
                "Move requests in the stream, waiting or being thought about (every worker "
                "reports the same)",
                value=length,
            )
            yield GaugeMetricFamily(
                "arena_worker_queue_pending",
                "Move requests a worker has taken and not yet finished",
                value=pending,
            )


async def serve_metrics(metrics: WorkerMetrics, listener: socket.socket) -> Server:
    """Answer `GET /metrics` on `listener` (a bound socket) and 404 to anything else."""

    async def answer(connection: Socket, request: HttpRequest) -> Response:
        if request.path == "/metrics":
            return respond(connection, await metrics.exposition())
        return connection.respond(HTTPStatus.NOT_FOUND, "only GET /metrics is answered here\n")

    async def never_opened(connection: Socket) -> None:
        """Every request is answered over plain HTTP, so no websocket opens."""

    return await serve(never_opened, sock=listener, process_request=answer)
