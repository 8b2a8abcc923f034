"""A server that starts listens before its rules are compiled, and a worker offers each house
bot as soon as that bot is ready: people sign in, seek and play meanwhile, and the clients are
told what is ready and what is still being prepared (`house_bots`). The compiling is held back
here by events, not timed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from multiprocessing.pool import Pool
from typing import Any

import pytest
from redis.asyncio import Redis

from clients import ArenaClient, ArenaError
from server.protocol import (
    AcceptSeek,
    Challenge,
    ErrorCode,
    GameStarted,
    HouseBots,
    Seek,
    SeekAdded,
    TimeControl,
)
from server.readiness import prepare_order
from server.worker import HOUSE_BOTS, Worker
from tests.server.endpoint import guest, serving

TIME = TimeControl(300, 0)
WAIT = 60.0  # generous: a loaded two-core machine is slow, and nothing here is timed


@pytest.fixture
def held() -> Iterator[threading.Event]:
    """Released when the test ends, so that no thread is left waiting."""
    release = threading.Event()
    yield release
    release.set()


def _bots(client: ArenaClient) -> HouseBots | None:
    return client.core.house_bots


@pytest.mark.asyncio
async def test_people_sign_in_and_seek_while_the_rules_compile_and_their_game_waits_for_them(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, held: threading.Event
) -> None:
    monkeypatch.setattr("server.app.warm_engine", lambda *_: held.wait(WAIT))
    async with asyncio.timeout(WAIT):
        async with serving(redis_url) as url:  # the server listens with the rules held back
            ann, bob = await guest(url), await guest(url)
            await ann.wait_for(lambda c: _bots(c) is not None, WAIT)
            told = _bots(ann)
            assert told is not None
            assert not told.rules_ready
            added = await ann.request(Seek(TIME, setup="6x6"), SeekAdded)
            accept = asyncio.create_task(bob.request(AcceptSeek(added.seek.seek_id)))
            await asyncio.sleep(0.5)
            assert not accept.done()  # the game waits for the rules, off the event loop
            held.set()
            started = await accept
            assert isinstance(started, GameStarted)
            await ann.wait_for(lambda c: getattr(_bots(c), "rules_ready", False), WAIT)
            await ann.close()
            await bob.close()


@pytest.mark.asyncio
async def test_house_bots_come_online_one_by_one_and_a_challenge_to_one_preparing_waits(
    redis_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch, held: threading.Event
) -> None:
    order = prepare_order(HOUSE_BOTS)
    first, second = order[0], order[1]
    assert first == "random"

    def prepare(name: str) -> None:
        if name != first:
            held.wait(WAIT)

    monkeypatch.setattr("server.worker._prepare_bot", prepare)
    stop = asyncio.Event()
    worker = Worker(redis, "test-preparing")
    running = asyncio.create_task(worker.run(stop))
    try:
        async with asyncio.timeout(WAIT), serving(redis_url) as url:
            ann = await guest(url)
            await ann.wait_for(lambda c: first in getattr(_bots(c), "ready", ()), WAIT)
            told = _bots(ann)
            assert told is not None
            assert told.ready == (first,)
            assert told.preparing == order[1:]
            # The first bot plays at once; the second is still being prepared.
            assert isinstance(await ann.request(Challenge(first, TIME)), GameStarted)
            with pytest.raises(ArenaError) as refused:
                await ann.request(Challenge(second, TIME))
            assert refused.value.code is ErrorCode.UNAVAILABLE
            assert refused.value.reply.retry_after is not None
            assert refused.value.reply.message == (
                f"{second} is still being prepared (1 of {len(order)} house bots ready)"
            )
            assert not worker.ready.is_set()
            held.set()
            await asyncio.wait_for(worker.ready.wait(), WAIT)
            await ann.wait_for(lambda c: getattr(_bots(c), "preparing", None) == (), WAIT)
            assert isinstance(await ann.request(Challenge(second, TIME)), GameStarted)
            await ann.close()
    finally:
        stop.set()
        await asyncio.wait_for(running, WAIT)


@pytest.mark.asyncio
async def test_a_worker_whose_first_bot_was_compiled_has_the_others_compiled_by_children(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every bot counts as compiled: two child processes prepare the others, in order (here
    # from numba's cache, which the test run has), and the worker loads each once they have.
    monkeypatch.setattr("server.worker.COLD_SECONDS", -1.0)
    sent: list[str] = []
    apply_async = Pool.apply_async

    def spy(self: Pool, function: Any, args: tuple[str], **options: Any) -> Any:
        sent.append(args[0])
        return apply_async(self, function, args, **options)

    monkeypatch.setattr(Pool, "apply_async", spy)
    stop = asyncio.Event()
    worker = Worker(redis, "test-compilers")
    running = asyncio.create_task(worker.run(stop))
    try:
        await asyncio.wait_for(worker.ready.wait(), 300)
        order = prepare_order(HOUSE_BOTS)
        assert worker.prepared[0] == order[0]
        assert sorted(worker.prepared) == sorted(order)  # loaded as the children finish
        assert sent == list(order[1:])  # each compiled by a child first
    finally:
        stop.set()
        await asyncio.wait_for(running, WAIT)


@pytest.mark.asyncio
async def test_a_house_bot_someone_waits_for_is_prepared_next(
    redis_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch, held: threading.Event
) -> None:
    order = prepare_order(HOUSE_BOTS)
    wanted = order[-1]  # the slowest to compile, prepared last unless someone asks for it

    def prepare(name: str) -> None:
        if name != order[0]:
            held.wait(WAIT)

    monkeypatch.setattr("server.worker._prepare_bot", prepare)
    monkeypatch.setattr("server.worker.COLD_SECONDS", float("inf"))  # no compiling children
    stop = asyncio.Event()
    worker = Worker(redis, "test-wanted")
    running = asyncio.create_task(worker.run(stop))
    try:
        async with asyncio.timeout(WAIT), serving(redis_url) as url:
            ann = await guest(url)
            await ann.wait_for(lambda c: order[0] in getattr(_bots(c), "ready", ()), WAIT)
            # The second bot is being prepared now; the one asked for goes right after it.
            with pytest.raises(ArenaError) as refused:
                await ann.request(Challenge(wanted, TIME))
            assert refused.value.code is ErrorCode.UNAVAILABLE
            held.set()
            await asyncio.wait_for(worker.ready.wait(), WAIT)
            assert worker.prepared[:3] == [order[0], order[1], wanted]
            assert worker.prepared[3:] == [name for name in order[2:] if name != wanted]
            await ann.close()
    finally:
        stop.set()
        await asyncio.wait_for(running, WAIT)
