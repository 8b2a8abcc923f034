"""The cyclic garbage collector of a long-lived process (a server, a worker): what is frozen out
of its collections and how often each generation runs, so that its pauses stay short however
many connections the process holds (docs/server.md gives the figures).

A connection's objects, once it is seated, live as long as it does and almost none of them is
ever freed by the collector (reference counting frees them): a server's collections at 500
games found about a hundred cyclic objects a second among hundreds of thousands walked. Left in
the collector's oldest generation, they made each full collection walk every connection (870 ms
at 15,000 connections). Frozen, no collection walks them; what a collection walks is what was
made since the last freeze.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable

__all__ = [
    "FREEZE_SECONDS",
    "RECLAIM_GROWTH",
    "THRESHOLDS",
    "Freezer",
    "settle",
]

# Allocations between collections of the youngest generation (700 by default), then young
# collections between middle ones, middle between full ones (10, 10 by default). A young
# collection walks what was made since the last one that is still alive, a middle one what
# survived its young ones since the last freeze (none, mostly, at one a second). A young
# collection's pause grows with the first number (on average 3 to 4 ms of CPU at 2,000, 8 to 13
# at 10,000, at 1,500 games), yet every run at 2,000 with freezing fell behind (the server at
# half a core, its Redis connections giving out) and none at 10,000: docs/operations.md.
THRESHOLDS = (10_000, 20, 10)
FREEZE_SECONDS = 1.0  # how often what has lived through a young collection is frozen
# Cycles frozen and then dropped (a closed connection's, mostly) stay, as no collection walks
# the frozen objects: once the objects frozen per connection held are this many times the
# fewest since the last full collection (half the connections closed, or as much left over from
# other cycles), all are thawed and collected in full, one long pause (640 ms of CPU at 4,500
# connections) that returns that memory. Per connection, so that connections arriving
# never call for one; Python's own rule is 1.25 times the oldest generation, whatever it holds.
RECLAIM_GROWTH = 2.0


def settle() -> None:
    """At start, once the modules are imported and the kernels compiled: freeze what that left
    (80,000 objects in a server, 150,000 in a worker that has compiled the house bots) and set
    the collector's thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


class Freezer:
    """Freezes, every FREEZE_SECONDS, what the process made that has outlived a young
    collection: the objects of the connections seated since, and of the games they play."""

    def __init__(self) -> None:
        # The fewest objects frozen per connection held since the last full collection.
        self.fewest: float | None = None
        self.freezes = 0
        self.reclaims = 0

    def freeze(self, connections: int) -> None:
        """Freeze what lives now, once the youngest generation's short-lived cycles are
        collected; or, with `connections` held, once the objects frozen per connection are
        RECLAIM_GROWTH times the fewest since the last full collection, thaw them all and
        collect in full first."""
        held = max(connections, 1)
        full = self.fewest is not None and gc.get_freeze_count() / held > (
            RECLAIM_GROWTH * self.fewest
        )
        if full:
            gc.unfreeze()
            gc.collect()
            self.reclaims += 1
        else:
            gc.collect(0)
        gc.freeze()
        self.freezes += 1
        now = gc.get_freeze_count() / held
        self.fewest = now if full or self.fewest is None else min(self.fewest, now)

    async def run(self, connections: Callable[[], int]) -> None:
        """Freeze every FREEZE_SECONDS, `connections` telling how many the process holds."""
        while True:
            await asyncio.sleep(FREEZE_SECONDS)
            self.freeze(connections())
