"""Analyses computed by the workers, once per position. A server asks for a position's
judgement on a Redis Stream that every `arena worker` reads through a consumer group (as it
reads house-bot moves, with the same recovery of a request whose worker died); the worker
judges it with `engine.judge` in a child process of its own and keeps the judgement in Redis
under the position's digest for CACHE_SECONDS, for every spectator, every server and every
review. A position asked while it is being judged is not asked again: the first asker marks it
(`asked`), and every server waiting for it looks for the judgement (one look each POLL_SECONDS
per position per process, however many wait for it there).

Keys: the two request streams and the ready workers under the hash tag `{an}` (one slot: a
worker reads both streams in one blocking read, on a cluster too); each position's judgement and
its mark under a tag of their own, `{an:DIGEST}`; each user's count under `an:limit:NAME`.
Every script and transaction touches one of these slots only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import multiprocessing
import multiprocessing.pool
import os
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TypeVar

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError, ResponseError

from engine.judge import DEFAULT_EFFORT, Judgement, judge
from server.analysis import judgement_from_json
from server.clock import now_ms
from server.protocol import ErrorCode, ProtocolError
from server.readiness import children_leave_interrupts

__all__ = [
    "ANALYSTS",
    "CACHE_SECONDS",
    "LIVE",
    "REVIEW",
    "AnalysisLimits",
    "AnalysisQueue",
    "Analysts",
]

log = structlog.get_logger(__name__)

T = TypeVar("T")

LIVE = "an:{an}:live"  # stream: positions a spectator or a player of an ended game waits for
REVIEW = "an:{an}:review"  # stream: positions of whole games reviewed, read after LIVE's
ANALYSTS = "an:{an}:analysts"  # sorted set: worker name -> ms until which it judges positions
GROUP = "analysts"
# A judgement is about 1 KB in Redis at most (bench/analysis_serving.py: 0.5 to 1 KB in the
# median on a 10x10 game, 1.1 KB the largest). A day holds a game's positions from its first
# spectator through its review the day after, and a day of busy play (10,000 positions) in
# some 10 MB.
CACHE_SECONDS = 24 * 3600
# A judgement that failed is kept this long, so that the servers waiting for it stop waiting.
FAILED_SECONDS = 60
# A position asked and not judged within this long is asked again (its request was lost).
ASKED_MS = 120_000
JUDGEMENT_FORM = 1  # raised when the fields of engine.judge.Judgement change
POLL_SECONDS = 0.05  # how often a waiting server looks for a judgement
ASK_AGAIN_SECONDS = 1.0  # how often it checks the request is still there
WAIT_SECONDS = 120.0  # a server waits this long for a judgement before answering unavailable
HEARTBEAT_MS = 10_000
RECLAIM_MS = 3_000  # a request untouched this long belongs to a dead worker
TOUCH_SECONDS = 1.0
READ_BLOCK_MS = 1000
MAX_DELIVERIES = 3  # a position that failed this often is given up (its failure kept)
JUDGE_NICENESS = 10  # a worker's judging child yields the cores to house bots on the clock
# The servers queue no more than this many positions; past it a request is `unavailable`.
MAX_LIVE_WAITING = 64
MAX_REVIEW_WAITING = 2_000
SECONDS_A_POSITION = 1.5  # a worker's time for one position, for `retry_after`
NO_WORKER_RETRY = 10  # seconds: `retry_after` while no worker judges positions

# Count one more request in a user's window; the first of a window starts it. Returns the
# count and the ms left in the window.
_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
"""


def digest(game: str, text: str) -> str:
    """The position's name in Redis: its game and text hashed, with the engine's effort and
    the judgement's form (a server or worker of another effort or form names it otherwise, so
    never reads a judgement it would not have made)."""
    named = f"{JUDGEMENT_FORM}\n{DEFAULT_EFFORT}\n{game}\n{text}"
    return hashlib.sha256(named.encode()).hexdigest()[:24]


def judgement_key(name: str) -> str:
    return f"an:{{an:{name}}}:judgement"


def asked_key(name: str) -> str:
    return f"an:{{an:{name}}}:asked"


def _limit_key(user: str) -> str:
    return f"an:limit:{user.lower()}"


class AnalysisLimits:
    """What one user may ask of the workers: `per_minute` positions not judged before (a
    review counts once), and one request waiting per connection (the handlers keep that)."""

    def __init__(self, per_minute: int = 60) -> None:
        self.per_minute = per_minute


class AnalysisQueue:
    """A server process's side: the cache, the requests and the waits."""

    def __init__(self, redis: aioredis.Redis, limits: AnalysisLimits | None = None) -> None:
        self.redis = redis
        self.limits = limits or AnalysisLimits()
        self._count = redis.register_script(_COUNT)
        # One look-out per position awaited in this process, whoever waits for it.
        self._awaited: dict[str, asyncio.Future[Judgement]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def cached(self, game: str, text: str) -> Judgement | None:
        """The position's judgement if a worker has made it; a failed one raises."""
        raw = await self.redis.get(judgement_key(digest(game, text)))
        return None if raw is None else _judgement(raw)

    async def admit(self, user: str, stream: str = LIVE) -> None:
        """Count a request of `user` that needs a worker; `rate_limited` past the user's
        limit, `unavailable` while no worker judges positions or too many wait."""
        now = now_ms()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zcount(ANALYSTS, now, "+inf")
            pipe.xlen(stream)
            ready, waiting = await pipe.execute()
        if not ready:
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                "no analysis worker is running; try again later",
                retry_after=NO_WORKER_RETRY,
            )
        most = MAX_LIVE_WAITING if stream == LIVE else MAX_REVIEW_WAITING
        if waiting >= most:
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                f"{waiting} positions are waiting for analysis; try again",
                retry_after=max(1, round(waiting * SECONDS_A_POSITION / ready)),
            )
        count, left_ms = await self._count(keys=[_limit_key(user)], args=[60_000])
        if int(count) > self.limits.per_minute:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {self.limits.per_minute} analyses a minute; try again",
                retry_after=max(1, -(-int(left_ms) // 1000)),
            )

    async def judgement(self, game: str, text: str, stream: str = LIVE) -> Judgement:
        """The judgement of position `text` (as the engine writes it) of `game`: from the
        cache, or asked of the workers and awaited (`unavailable` when none comes in time)."""
        name = digest(game, text)
        raw = await self.redis.get(judgement_key(name))
        if raw is not None:
            return _judgement(raw)
        awaited = self._awaited.get(name)
        if awaited is None:
            awaited = asyncio.get_running_loop().create_future()
            self._awaited[name] = awaited
            task = asyncio.create_task(self._look_out(name, game, text, stream, awaited))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(awaited)

    async def _ask(self, name: str, game: str, text: str, stream: str) -> None:
        """Ask the workers for the position unless someone has (and it is not lost since)."""
        if await self.redis.set(asked_key(name), now_ms(), nx=True, px=ASKED_MS):
            await self.redis.xadd(stream, {"game": game, "position": text})

    async def _look_out(
        self,
        name: str,
        game: str,
        text: str,
        stream: str,
        awaited: asyncio.Future[Judgement],
    ) -> None:
        """Ask for the judgement and look for it until it comes, asking again if its
        request was lost."""
        started = last_ask = time.monotonic()
        try:
            await self._ask(name, game, text, stream)
            while True:
                raw = await self.redis.get(judgement_key(name))
                if raw is not None:
                    awaited.set_result(_judgement(raw))
                    return
                now = time.monotonic()
                if now - started > WAIT_SECONDS:
                    raise ProtocolError(
                        ErrorCode.UNAVAILABLE,
                        "the analysis workers are too busy; try again",
                        retry_after=10,
                    )
                if now - last_ask > ASK_AGAIN_SECONDS:
                    last_ask = now
                    await self._ask(name, game, text, stream)
                await asyncio.sleep(POLL_SECONDS)
        except ProtocolError as error:
            awaited.set_exception(error)
        except Exception as error:  # Redis gone: the waiters say so, the next look starts over
            log.warning("analysis_wait_failed", error=str(error))
            awaited.set_exception(
                ProtocolError(
                    ErrorCode.UNAVAILABLE, "the analysis could not be fetched", retry_after=1
                )
            )
        finally:
            del self._awaited[name]
            # Nobody may be waiting any more: the outcome is not an unretrieved exception.
            if awaited.done() and not awaited.cancelled():
                awaited.exception()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _judgement(raw: bytes) -> Judgement:
    data = json.loads(raw)
    if "failed" in data:
        raise ProtocolError(ErrorCode.INTERNAL, "the engine failed on this position")
    return judgement_from_json(data)


def _judge(game: str, text: str) -> dict[str, Any]:
    return asdict(judge(game, text))


def _warm() -> None:
    """Compile the engine's kernels in the child before the first position comes."""
    from engine.game import get_game

    for game in ("amazons", "bao"):
        judge(game, get_game(game).new_state().text(), effort=1)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Analysts:
    """A worker's side: it judges the positions asked, the live ones first, one at a time in
    a child process (so the worker's own event loop, and its house bots, never wait on it), and
    keeps each judgement for everyone. `compute` (game, text) -> `asdict(Judgement)` replaces
    the child process in tests."""

    def __init__(
        self,
        redis: aioredis.Redis,
        name: str,
        compute: Callable[[str, str], dict[str, Any]] | None = None,
    ) -> None:
        self.redis = redis
        self.name = name
        self.log = log.bind(worker=name)
        self.computed = 0  # positions judged here (not those found judged already)
        self._compute = compute
        self._pool: multiprocessing.pool.Pool | None = None

    async def _ensure_groups(self) -> None:
        for stream in (LIVE, REVIEW):
            try:
                await self.redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
            except ResponseError as error:
                if not str(error).startswith("BUSYGROUP"):  # it exists already
                    raise

    async def run(self, stop: asyncio.Event) -> None:
        """Judge the positions asked until `stop` is set."""
        await self._ensure_groups()
        # Counted as judging from the start: what is asked while the child compiles its
        # kernels waits for it, rather than being refused.
        beat = asyncio.create_task(self._heartbeat())
        try:
            if self._compute is None:
                with children_leave_interrupts():
                    self._pool = multiprocessing.get_context("spawn").Pool(
                        1, initializer=os.nice, initargs=(JUDGE_NICENESS,)
                    )
                try:
                    await self._in_child(_warm)
                except Exception:  # the first position will say what is wrong, if anything
                    self.log.exception("analysis_warming_failed")
            while not stop.is_set():
                try:
                    entry = await self._next()
                    if entry is not None:
                        await self._serve(*entry)
                except asyncio.CancelledError:
                    raise
                except ResponseError as error:
                    if str(error).startswith("NOGROUP"):
                        # A Redis started afresh (no persistence) lost the groups: made again.
                        await self._ensure_groups()
                    else:
                        self.log.exception("analysis_failed")
                        await asyncio.sleep(0.5)
                except Exception:
                    self.log.exception("analysis_failed")
                    await asyncio.sleep(0.5)
        finally:
            if self._pool is not None:
                # Stopped at once, even in the middle of a position: the worker stops now.
                # First, so that nothing failing below leaves the child running.
                self._pool.terminate()
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
            with contextlib.suppress(Exception):  # gone anyway once its heartbeat lapses
                await self.redis.zrem(ANALYSTS, self.name)

    async def _heartbeat(self) -> None:
        while True:
            try:
                await self.redis.zadd(ANALYSTS, {self.name: now_ms() + HEARTBEAT_MS})
            except (RedisError, OSError) as error:
                # Beat again next turn: a heartbeat that stopped would leave the servers
                # thinking no worker judges, for as long as this one runs.
                self.log.warning("analysis_heartbeat_failed", error=str(error))
            await asyncio.sleep(HEARTBEAT_MS / 3000)

    async def _next(self) -> tuple[str, str, dict[bytes, bytes]] | None:
        """A request left by a dead worker, else a live one, else any (waiting a while)."""
        for stream in (LIVE, REVIEW):
            claim = await self.redis.xautoclaim(
                stream, GROUP, self.name, min_idle_time=RECLAIM_MS, start_id="0-0", count=1
            )
            if claim[1]:
                entry_id, fields = claim[1][0]
                self.log.info("analysis_reclaimed", entry=_text(entry_id))
                return stream, _text(entry_id), fields
        found = await self.redis.xreadgroup(GROUP, self.name, {LIVE: ">"}, count=1)
        if not found:
            found = await self.redis.xreadgroup(
                GROUP, self.name, {LIVE: ">", REVIEW: ">"}, count=1, block=READ_BLOCK_MS
            )
        if not found:
            return None
        # Of two streams' entries, the first is served now and the other stays ours, pending,
        # for the next turn's claim (or another worker's after RECLAIM_MS).
        stream, entries = found[0]
        entry_id, fields = entries[0]
        return _text(stream), _text(entry_id), fields

    async def _serve(self, stream: str, entry_id: str, fields: dict[bytes, bytes]) -> None:
        try:
            game, text = _text(fields[b"game"]), _text(fields[b"position"])
        except (KeyError, UnicodeDecodeError):
            self.log.error("analysis_unreadable", entry=entry_id, fields=repr(fields)[:200])
            await self._finish(stream, entry_id)
            return
        name = digest(game, text)
        if not await self.redis.exists(judgement_key(name)):
            try:
                data = await self._judged(stream, entry_id, game, text)
            except Exception:
                pending = await self.redis.xpending_range(stream, GROUP, entry_id, entry_id, 1)
                if pending and int(pending[0]["times_delivered"]) < MAX_DELIVERIES:
                    raise  # left pending: another try, here or elsewhere
                self.log.exception("analysis_dropped", game=game, position=text)
                await self._keep(name, {"failed": True}, FAILED_SECONDS)
            else:
                self.computed += 1
                await self._keep(name, data, CACHE_SECONDS)
        await self._finish(stream, entry_id)

    async def _judged(self, stream: str, entry_id: str, game: str, text: str) -> dict[str, Any]:
        """The judgement, the request touched meanwhile so that no one takes it for lost."""
        loop = asyncio.get_running_loop()
        if self._compute is not None:
            work = loop.run_in_executor(None, self._compute, game, text)
        else:
            work = self._in_child(_judge, game, text)
        while True:
            done, _ = await asyncio.wait({work}, timeout=TOUCH_SECONDS)
            if done:
                return await work
            await self.redis.xclaim(
                stream, GROUP, self.name, min_idle_time=0, message_ids=[entry_id], justid=True
            )

    def _in_child(self, function: Callable[..., T], *args: object) -> asyncio.Future[T]:
        """`function(*args)` in the child process, as a future of the running loop."""
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()

        def settle(outcome: Any) -> None:  # on the pool's result thread
            def set_outcome() -> None:
                if done.done():
                    return
                if isinstance(outcome, BaseException):
                    done.set_exception(outcome)
                else:
                    done.set_result(outcome)

            with contextlib.suppress(RuntimeError):  # the event loop is closed
                loop.call_soon_threadsafe(set_outcome)

        self._pool.apply_async(function, args, callback=settle, error_callback=settle)
        return done

    async def _keep(self, name: str, data: dict[str, Any], seconds: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(judgement_key(name), json.dumps(data), ex=seconds)
            pipe.delete(asked_key(name))
            await pipe.execute()

    async def _finish(self, stream: str, entry_id: str) -> None:
        await self.redis.xack(stream, GROUP, entry_id)
        await self.redis.xdel(stream, entry_id)
