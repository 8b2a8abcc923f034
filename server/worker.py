"""`arena worker`: house-bot moves. Reads move requests from the Redis Streams of the game
index's buckets (`server.game_index.house_stream`) through a consumer group, thinks with the
engine's bot within the game's clock, and plays the move through the game store like any player.
A request whose worker died is reclaimed by another worker; the move's `(game_id, ply)` makes a
repeated request harmless. Beside them it judges the positions asked for analysis
(`server.analysis_queue.Analysts`, in a child process)."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import socket
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError, ResponseError

from engine.search.budget import HOUSE_BOT, Turn
from engine.search.registry import bot_names, make_bot
from server.analysis_queue import Analysts
from server.clock import now_ms
from server.game_index import HOUSE_STREAMS, HOUSE_WAKE
from server.games import GameStore, StoredGame, open_redis
from server.house_queue import take_turn
from server.lane import sharded
from server.metrics import WorkerMetrics, serve_metrics
from server.protocol import Colour, GameStatus, ProtocolError
from server.readiness import (
    BOTS,
    WorkerBots,
    asked_for,
    children_leave_interrupts,
    in_daemon_thread,
    prepare_order,
)
from server.slots import SLOTS, WORKER_SLOTS

__all__ = [
    "GROUP",
    "HOUSE_BOTS",
    "RECLAIM_MS",
    "WORKERS",
    "Worker",
    "workers_ready",
]

log = structlog.get_logger(__name__)

# House bots are the engine's own bots but OpenSpiel's (a benchmark partner, not a product).
HOUSE_BOTS = tuple(name for name in bot_names() if not name.startswith("openspiel"))
GROUP = "workers"
WORKERS = "workers:ready"  # sorted set: worker name -> server ms until which it counts as ready
HEARTBEAT_MS = 10_000
# A request nobody has touched for this long belongs to a dead worker. A thinking worker
# touches its request every TOUCH_SECONDS, so a long think is never taken for a death.
RECLAIM_MS = 3_000
TOUCH_SECONDS = 1.0
# A house bot that took longer than this to prepare was compiled, not loaded from numba's cache
# (`random`: about 2.5 s compiled, under 1 s loaded, on a busy two-core machine): the others are
# then compiled by COMPILE_JOBS child processes at once, which two cores run in parallel.
COLD_SECONDS = 1.5
COMPILE_JOBS = 2
# Their priority below the servers' and the worker's own: people's games wait on the server's
# rules, which a server compiles as the workers compile their bots.
COMPILE_NICENESS = 10
# A request that failed this often is dropped (logged) rather than retried forever.
MAX_DELIVERIES = 5
# How long a read waits for a request: blocked on every stream at once on a single Redis; on a
# Redis Cluster, whose streams lie in different slots, read all at once without blocking, then
# blocked as long on the wake-up list a request adds to (`HOUSE_WAKE`) when none was found.
READ_BLOCK_MS = 1000
# A request is asked before the commit that makes the move its turn: a worker that reads it
# first waits this long for the commit, looking again every COMMIT_LOOK_SECONDS.
COMMIT_WAIT_SECONDS = 1.0
COMMIT_LOOK_SECONDS = 0.01

# A request: its stream, its entry id, its fields.
Request = tuple[str, str, dict[bytes, bytes]]


def prepare_house_bots() -> None:
    """Compile every house bot's kernels, so that no bot's clock pays for it: seconds from
    numba's on-disk cache, a minute or two on a fresh install."""
    for name in HOUSE_BOTS:
        _prepare_bot(name)


def _prepare_bot(name: str) -> None:
    make_bot(name).prepare()


def _settle(loop: asyncio.AbstractEventLoop, done: asyncio.Future[object], outcome: object) -> None:
    """From a pool's result thread: settle `done` with a compile's outcome (the bot's name,
    or the exception it failed with), unless the worker has stopped meanwhile."""

    def settle() -> None:
        if not done.done():
            done.set_result(outcome)

    with contextlib.suppress(RuntimeError):  # the event loop is closed
        loop.call_soon_threadsafe(settle)


def _compile_bot(name: str) -> str:
    """In a compiling child process: compile house bot `name` into numba's cache."""
    _prepare_bot(name)
    return name


class Worker:
    """One consumer of the request stream; `run` until `stop` is set."""

    def __init__(
        self,
        redis: aioredis.Redis,
        name: str | None = None,
        on_ready: Callable[[], None] | None = None,
        analyse: bool = True,
    ) -> None:
        self.redis = redis
        self.store = GameStore(redis)
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.log = log.bind(worker=self.name)
        self.ready = asyncio.Event()  # set once every house bot is prepared
        self.prepared: list[str] = []  # the house bots ready to play, in the order they were
        # Called once every house bot is prepared (`arena worker` settles its collector then).
        self.on_ready = on_ready
        self.metrics = WorkerMetrics(self)
        # The positions asked for analysis, judged beside the house bots' moves.
        self.analysts: Analysts | None = Analysts(redis, self.name) if analyse else None

    async def ensure_group(self) -> None:
        for stream in HOUSE_STREAMS:
            try:
                await self.redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
            except ResponseError as error:
                if not str(error).startswith("BUSYGROUP"):  # it exists already
                    raise

    async def run(self, stop: asyncio.Event, prepare: bool = True) -> None:
        """Take requests until `stop` is set, from the start: the house bots are prepared one
        by one meanwhile, quickest first, each offered as soon as it is ready (`prepare`
        false: the caller has prepared them all, see `prepare_house_bots`). The worker counts
        as ready (WORKERS, for the ladders' anchors) once all are."""
        await self.ensure_group()
        if not prepare:
            self.prepared = list(prepare_order(HOUSE_BOTS))
        tasks = [asyncio.create_task(self._heartbeat()), asyncio.create_task(self._prepare())]
        if self.analysts is not None:
            tasks.append(asyncio.create_task(self.analysts.run(stop)))
        try:
            await self._serve_requests(stop)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self.redis.zrem(WORKERS, self.name)
            await self.redis.hdel(SLOTS, self.name)
            await self.redis.hdel(BOTS, self.name)
            self.log.info("worker_stopped", compiling=not self.ready.is_set())

    async def _prepare(self) -> None:
        """Prepare each house bot not yet prepared, telling the servers as each is ready: the
        quickest first, then any that someone is waiting for (`readiness.want`) ahead of the
        others. When the first took long enough to have been compiled (numba's cache is cold:
        a fresh install), COMPILE_JOBS child processes compile the others, and this process
        loads each from the cache as soon as it is compiled."""
        started = time.monotonic()
        todo = [name for name in prepare_order(HOUSE_BOTS) if name not in self.prepared]
        if todo:
            self.log.info("worker_compiling")
            cold = await self._load(todo.pop(0), started) > COLD_SECONDS
            if cold and todo and COMPILE_JOBS > 1:
                await self._compile_in_children(todo, started)
            while todo:
                await self._load(await self._next_bot(todo), started)
        await self.redis.zadd(WORKERS, {self.name: now_ms() + HEARTBEAT_MS})
        await self.redis.hset(SLOTS, self.name, WORKER_SLOTS)
        self.ready.set()
        self.log.info("worker_started")
        if self.on_ready is not None:
            self.on_ready()

    async def _load(self, name: str, started: float) -> float:
        """Prepare house bot `name` in this process (off the event loop), offer it, and return
        the seconds it took."""
        began = time.monotonic()
        self.log.info("bot_preparing", bot=name)
        await in_daemon_thread(partial(_prepare_bot, name))
        self.prepared.append(name)
        self.log.info("bot_ready", bot=name, seconds=round(time.monotonic() - started, 1))
        await self._tell_bots()
        return time.monotonic() - began

    async def _next_bot(self, todo: list[str]) -> str:
        """Take from `todo` the bot to prepare next: the first someone waits for, else the
        first."""
        wanted = await asked_for(self.redis, now_ms())
        name = next((name for name in todo if name in wanted), todo[0])
        todo.remove(name)
        return name

    async def _compile_in_children(self, todo: list[str], started: float) -> None:
        """Compile `todo`'s bots in COMPILE_JOBS child processes, choosing each next one as a
        child comes free (so a bot someone asks for meanwhile goes next), and load each here
        once compiled; one whose compile failed is compiled here as it is loaded."""
        loop = asyncio.get_running_loop()
        with children_leave_interrupts():
            compilers = multiprocessing.get_context("spawn").Pool(
                COMPILE_JOBS, initializer=os.nice, initargs=(COMPILE_NICENESS,)
            )
        compiling: dict[asyncio.Future[object], str] = {}
        try:
            while todo or compiling:
                while todo and len(compiling) < COMPILE_JOBS:
                    name = await self._next_bot(todo)
                    done: asyncio.Future[object] = loop.create_future()
                    settle = partial(_settle, loop, done)
                    compilers.apply_async(
                        _compile_bot, (name,), callback=settle, error_callback=settle
                    )
                    compiling[done] = name
                finished, _ = await asyncio.wait(compiling, return_when=asyncio.FIRST_COMPLETED)
                for done in finished:
                    name = compiling.pop(done)
                    if isinstance(done.result(), BaseException):
                        self.log.error("bot_compile_failed", bot=name, error=repr(done.result()))
                    await self._load(name, started)
        finally:
            compilers.terminate()

    async def _tell_bots(self) -> None:
        preparing = tuple(n for n in prepare_order(HOUSE_BOTS) if n not in self.prepared)
        until = now_ms() + HEARTBEAT_MS
        await WorkerBots(tuple(self.prepared), preparing, until).tell(self.redis, self.name)

    async def _heartbeat(self) -> None:
        """Tell the servers which house bots this worker plays and which it is preparing, and
        once it has them all, that it is ready (so they schedule the ladders' anchors)."""
        while True:
            try:
                await self._tell_bots()
                if self.ready.is_set():
                    await self.redis.zadd(WORKERS, {self.name: now_ms() + HEARTBEAT_MS})
            except (RedisError, OSError) as error:
                # Beat again next turn: a heartbeat that stopped (a Redis restarted, a
                # failover longer than the lane waits) would leave the servers thinking this
                # worker gone, for as long as it runs.
                self.log.warning("worker_heartbeat_failed", error=str(error))
            await asyncio.sleep(HEARTBEAT_MS / 3000)

    async def _serve_requests(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                entry = await self._next()
                if entry is not None:
                    await self._serve(*entry)
            except asyncio.CancelledError:
                raise
            except Exception:
                self.log.exception("request_failed")
                await asyncio.sleep(0.5)

    async def _next(self) -> Request | None:
        """A request left by a dead worker if there is one, else a new one (waiting up to
        READ_BLOCK_MS)."""
        claims = await asyncio.gather(
            *(
                self.redis.xautoclaim(
                    stream, GROUP, self.name, min_idle_time=RECLAIM_MS, start_id="0-0", count=1
                )
                for stream in HOUSE_STREAMS
            )
        )
        # Redis 6.2 answers [next id, entries]; 7 adds the ids of deleted entries.
        for stream, claim in zip(HOUSE_STREAMS, claims, strict=True):
            if claim[1]:
                entry_id, fields = claim[1][0]
                self.log.info("request_reclaimed", entry=_text(entry_id))
                self.metrics.reclaimed += 1
                return stream, _text(entry_id), fields
        if not sharded(self.redis):
            found = await self.redis.xreadgroup(
                GROUP, self.name, dict.fromkeys(HOUSE_STREAMS, ">"), count=1, block=READ_BLOCK_MS
            )
        else:
            # One pipeline: a round trip to each master, not one to each stream.
            async with self.redis.pipeline(transaction=False) as pipe:
                for stream in HOUSE_STREAMS:
                    pipe.xreadgroup(GROUP, self.name, {stream: ">"}, count=1)
                replies = await pipe.execute()
            found = next((reply for reply in replies if reply), [])
            if not found:
                await self.redis.blpop([HOUSE_WAKE], timeout=READ_BLOCK_MS / 1000)
        if not found:
            return None
        stream, entries = found[0]
        entry_id, fields = entries[0]
        return _text(stream), _text(entry_id), fields

    async def _serve(self, stream: str, entry_id: str, fields: dict[bytes, bytes]) -> None:
        try:
            game_id = _text(fields[b"game_id"])
            ply = int(fields[b"ply"])
        except (KeyError, ValueError, UnicodeDecodeError):
            # No retry can make it readable: drop it at once rather than reclaim it forever.
            self.log.error("request_unreadable", entry=entry_id, fields=repr(fields)[:200])
            await self._finish(stream, entry_id, "dropped")
            return
        thought = asyncio.Event()
        touch = asyncio.create_task(self._touch(stream, entry_id, thought))
        try:
            outcome = "played" if await self._move(game_id, ply, entry_id) else "skipped"
        except Exception:
            # Left pending: it is reclaimed and tried again, unless it keeps failing.
            if await self._deliveries(stream, entry_id) < MAX_DELIVERIES:
                raise
            self.log.exception("request_dropped", game_id=game_id, ply=ply)
            outcome = "dropped"
        finally:
            # Stopped by an event, never cancelled: a Redis command cancelled while it waits
            # for its reply can leave the connection stuck (redis-py #2624, #2665), and the
            # worker with it.
            thought.set()
            try:
                await touch
            except Exception:
                self.log.exception("touch_failed", game_id=game_id)
        await self._finish(stream, entry_id, outcome)

    async def _finish(self, stream: str, entry_id: str, outcome: str) -> None:
        await self.redis.xack(stream, GROUP, entry_id)
        await self.redis.xdel(stream, entry_id)
        self.metrics.requests[outcome] += 1

    async def _deliveries(self, stream: str, entry_id: str) -> int:
        """How many times the request has been handed to a worker."""
        pending = await self.redis.xpending_range(stream, GROUP, entry_id, entry_id, 1)
        return int(pending[0]["times_delivered"]) if pending else 0

    async def queue(self) -> tuple[int, int]:
        """The requests in the streams (waiting or being thought about), and of those the ones
        a worker has taken and not yet finished."""
        lengths = await asyncio.gather(*(self.redis.xlen(s) for s in HOUSE_STREAMS))
        pending = 0
        for stream in HOUSE_STREAMS:
            with contextlib.suppress(ResponseError):  # NOGROUP: no worker has started yet
                pending += int((await self.redis.xpending(stream, GROUP))["pending"])
        return sum(int(length) for length in lengths), pending

    async def _move(self, game_id: str, ply: int, request: str) -> bool:
        """Think and play the move the request asks for; False when there is none to play."""
        try:
            game = await self._at_ply(game_id, ply)
        except ProtocolError:
            return False
        if game.status is GameStatus.ENDED or game.ply != ply:
            return False  # already played (a retried request) or the game is over
        colour = game.to_move
        side = 0 if colour is Colour.WHITE else 1
        spec = game.house[side]
        if spec is None:
            return False
        # The time the request waited in the queue is given back: the turn counts from now.
        taken = await take_turn(self.store, game, request, now_ms())
        if taken is None:
            return False  # another request has the turn
        game = taken
        bot_name, _, strength_text = spec.partition("@")
        strength = int(strength_text or 10)
        player = game.player(colour)
        bot = make_bot(bot_name)
        now = now_ms()
        readings = game.clock_readings(now)
        first_move = not game.clock.running  # off the clock, but due within its window
        turn = Turn(
            own_ms=readings[side],
            opponent_ms=readings[1 - side],
            increment_ms=game.clock.increment_ms,
            first_move_ms=game.clock.first_move_ms if first_move else None,
            # A running clock's reading is as of now; a first move's window runs from the
            # start of the turn.
            elapsed=game.clock.elapsed(now) / 1000 if first_move else 0.0,
        )
        # Strength s thinks s/10 of what the bot's time manager would spend.
        budget = HOUSE_BOT.budget(turn, strength=strength / 10)
        position: Any = game.state()  # the bots take any GameState
        started = time.perf_counter()
        decision = await asyncio.to_thread(bot.choose, position, budget)
        self.metrics.thinking.add(time.perf_counter() - started)
        text = position.format_move(decision.move)
        try:
            await self.store.play(game_id, player.name, ply, text, now_ms())
        except ProtocolError as error:
            self.log.info("move_refused", game_id=game_id, ply=ply, reason=str(error))
            return False
        self.log.info("house_move", game_id=game_id, ply=ply, move=text, seconds=decision.seconds)
        return True

    async def _at_ply(self, game_id: str, ply: int) -> StoredGame:
        """The game, once it has reached `ply` (or after COMMIT_WAIT_SECONDS, as it is). A new
        game's first request comes before the commit that makes the game, so a game not found
        is looked for again meanwhile too."""
        waited = 0.0
        while True:
            try:
                game = await self.store.load(game_id)
            except ProtocolError:
                if waited >= COMMIT_WAIT_SECONDS:
                    raise
            else:
                done = game.ply >= ply or game.status is GameStatus.ENDED
                if done or waited >= COMMIT_WAIT_SECONDS:
                    return game
            await asyncio.sleep(COMMIT_LOOK_SECONDS)
            waited += COMMIT_LOOK_SECONDS

    async def _touch(self, stream: str, entry_id: str, thought: asyncio.Event) -> None:
        """Keep claiming our own request until `thought` is set, so no one reclaims it."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(thought.wait(), TOUCH_SECONDS)
                return
            await self.redis.xclaim(
                stream, GROUP, self.name, min_idle_time=0, message_ids=[entry_id], justid=True
            )


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def run_worker(
    redis_url: str,
    stop: asyncio.Event,
    metrics: socket.socket | None = None,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """A worker on `redis_url` until `stop` is set, preparing the house bots as it goes and
    calling `on_ready` once it has them all; it answers `GET /metrics` on the bound socket
    `metrics` if there is one."""
    redis = open_redis(redis_url)
    worker = Worker(redis, on_ready=on_ready)
    server = None
    try:
        if metrics is not None:
            server = await serve_metrics(worker.metrics, metrics)
            host, port = metrics.getsockname()[:2]
            worker.log.info("metrics_serving", address=f"{host}:{port}")
        await worker.run(stop)
    finally:
        if server is not None:
            server.close()
            await server.wait_closed()
        await redis.aclose()


async def workers_ready(redis: aioredis.Redis, now: int) -> int:
    """How many workers are ready to compute house-bot moves."""
    return int(await redis.zcount(WORKERS, now, "+inf"))
