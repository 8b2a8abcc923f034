"""What the tests that hold a bot or engine to its budget measure, and how.

A bot's own `choose` is timed by `thinking` in the CPU time of this thread: while the bot waits
for a core the wall clock runs past its deadline but its CPU time does not. An engine that
thinks in another thread or process is timed by the wall clock, with a margin for a busy
machine.

Either way Python's cyclic garbage collector is held off meanwhile (`collector_held_off`): a
full collection scans every object the whole test session has made (some 400,000), which takes
near a second on a busy machine, and that is the session's heap, not the bot's. What a bot's
own objects cost the collector is measured in a process of its own, by the benches
(`python -m bench.bao_bots --overrun SPEC`).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.game import GameState
from engine.search.bot import Bot, Budget, Decision


@contextmanager
def collector_held_off() -> Iterator[None]:
    """No automatic garbage collection inside the block; it is enabled again after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def thinking(bot: Bot, position: GameState[Any], budget: Budget) -> tuple[Decision, float]:
    """The bot's decision in `position` and the CPU seconds this thread spent on it."""
    with collector_held_off():
        start = time.thread_time()
        decision = bot.choose(position, budget)
        return decision, time.thread_time() - start
