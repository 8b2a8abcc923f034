"""What is ready to play while the servers and workers start: a worker prepares (compiles, or
loads from numba's cache) its house bots one by one and says in Redis which are ready and which
it is still preparing; a server process reads that and tells its clients in `house_bots`
events, with whether its own games' rules are ready yet. Compiling runs in daemon threads, so
a stop never waits for the compiler.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import redis.asyncio as aioredis

from server.protocol import HouseBots

__all__ = [
    "BOTS",
    "WorkerBots",
    "asked_for",
    "children_leave_interrupts",
    "house_bots",
    "in_daemon_thread",
    "prepare_order",
    "want",
]

T = TypeVar("T")

BOTS = "workers:bots"  # hash: worker name -> its WorkerBots as JSON
WANTED = "workers:wanted"  # sorted set: house bot -> server ms when someone last asked for it
# How long someone's ask for a house bot still being prepared puts it first in the workers'
# order: a client that waits for it asks again every few seconds (PREPARING_RETRY_SECONDS).
WANTED_MS = 30_000
# The order a worker prepares its house bots in: quickest to compile first, so that each comes
# online as soon as it can (cold compile on a 2-core machine: random 3 s, mobility 7 s, the Bao
# bots 11 s each, greedy 16 s, mcts 23 s, alphabeta 30 s, invader 80 s; bench/first_start.py).
PREPARE_ORDER = (
    "random",
    "mobility",
    "bao-alphabeta",
    "bao-deep",
    "greedy",
    "mcts",
    "alphabeta",
    "invader",
)


def prepare_order(bots: Iterable[str]) -> tuple[str, ...]:
    """`bots` in the order to prepare them: PREPARE_ORDER's, any other bot last."""
    rank = {name: index for index, name in enumerate(PREPARE_ORDER)}
    return tuple(sorted(bots, key=lambda name: rank.get(name, len(rank))))


async def want(redis: aioredis.Redis, bot: str, now: int) -> None:
    """Someone asked for house bot `bot` while it was still being prepared: the workers
    prepare it next."""
    await redis.zadd(WANTED, {bot: now})


async def asked_for(redis: aioredis.Redis, now: int) -> set[str]:
    """The house bots someone asked for in the last WANTED_MS while they were being prepared."""
    await redis.zremrangebyscore(WANTED, "-inf", now - WANTED_MS)
    return {
        name.decode() if isinstance(name, bytes) else name
        for name in await redis.zrange(WANTED, 0, -1)
    }


@dataclass(frozen=True)
class WorkerBots:
    """One worker's house bots: those it plays now, those it is still preparing, and the
    server time (ms) until which this counts, unless the worker says it again."""

    ready: tuple[str, ...]
    preparing: tuple[str, ...]
    until: int

    def text(self) -> str:
        return json.dumps({"ready": self.ready, "preparing": self.preparing, "until": self.until})

    @classmethod
    def parse(cls, text: bytes | str) -> WorkerBots:
        data = json.loads(text)
        return cls(tuple(data["ready"]), tuple(data["preparing"]), int(data["until"]))

    async def tell(self, redis: aioredis.Redis, worker: str) -> None:
        await redis.hset(BOTS, worker, self.text())


async def house_bots(redis: aioredis.Redis, now: int, rules_ready: bool = True) -> HouseBots:
    """The house bots some worker plays now, and those only being prepared (each once, in the
    order the workers prepare them); entries of workers gone quiet are removed."""
    ready: dict[str, None] = {}
    preparing: dict[str, None] = {}
    lapsed = []
    for worker, text in (await redis.hgetall(BOTS)).items():
        try:
            bots = WorkerBots.parse(text)
        except (ValueError, KeyError, TypeError):
            bots = WorkerBots((), (), 0)
        if bots.until < now:
            lapsed.append(worker)
            continue
        ready.update(dict.fromkeys(bots.ready))
        preparing.update(dict.fromkeys(bots.preparing))
    if lapsed:
        await redis.hdel(BOTS, *lapsed)
    return HouseBots(
        prepare_order(ready),
        tuple(name for name in prepare_order(preparing) if name not in ready),
        rules_ready,
    )


@contextlib.contextmanager
def children_leave_interrupts() -> Iterator[None]:
    """Child processes started meanwhile ignore SIGINT from their first instruction (they
    inherit its being ignored, and Python then installs no KeyboardInterrupt of its own): Ctrl-C
    reaches the whole process group, the parent stops its children itself, and a child
    interrupted, even while it imports, would print its traceback on the terminal."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set a handler; the children then keep the default
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def in_daemon_thread(function: Callable[[], T]) -> asyncio.Future[T]:
    """Run `function` in a daemon thread; its result as a future of the running loop. Unlike
    `asyncio.to_thread` (whose threads the loop waits for as it closes), a process stopping
    meanwhile ends at once and the thread with it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def hand_over(outcome: Callable[[], None]) -> None:
        # A loop closed meanwhile (its process stopping) has no one left to tell.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, outcome)

    def run() -> None:
        try:
            result = function()
        except BaseException as error:  # handed to the awaiting task, as to_thread does
            caught = error
            hand_over(lambda: future.set_exception(caught))
        else:
            hand_over(lambda: future.set_result(result))

    threading.Thread(target=run, name=getattr(function, "__name__", "work"), daemon=True).start()
    return future
