"""What the tests that hold a bot to its budget measure: the CPU time this thread spends in one
`choose`, with Python's cyclic garbage collector held off meanwhile.

CPU time, because while the bot waits for a core the wall clock runs past its deadline but its
CPU time does not. The collector held off, because a full collection scans every object the
whole test session has made (some 400,000), which takes near a second on a busy machine: that
is the session's heap, not the bot's. What a bot's own objects cost the collector is measured
by `python -m bench.bots` in a process of its own.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from engine.game import GameState
from engine.search.bot import Bot, Budget, Decision


def thinking(bot: Bot, position: GameState[Any], budget: Budget) -> tuple[Decision, float]:
    """The bot's decision in `position` and the CPU seconds it took."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.thread_time()
        decision = bot.choose(position, budget)
        return decision, time.thread_time() - start
    finally:
        if was_enabled:
            gc.enable()
