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

__all__ = [
    "FREEZE_SECONDS",
    "RECLAIM_GROWTH",
    "THRESHOLDS",
    "WORKER_THRESHOLDS",
    "Freezer",
    "settle",
]

# Allocations between collections of the youngest generation (700 by default), then young
# collections between middle ones, middle between full ones (10, 10 by default). A young
# collection walks what was made since the last one that is still alive, a middle one what
# survived its young ones since the last freeze: their pauses grow with the first two numbers.
THRESHOLDS = (2_000, 10, 10)
# A worker holds no connections and freezes only at start: there, a rarer young collection
# lets fewer short-lived objects reach the oldest generation, whose walks are the long ones.
WORKER_THRESHOLDS = (10_000, 20, 10)
FREEZE_SECONDS = 1.0  # how often what has lived through a young collection is frozen
# Cycles frozen and then dropped (a closed connection's, mostly) stay, as no collection walks
# the frozen objects: once these have grown by this factor since the last full collection, all
# are thawed and collected in full, one long pause (about a second at 15,000 connections) that
# returns that memory. Python's own rule is the same with 1.25 over the oldest generation.
RECLAIM_GROWTH = 2.0


def settle(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """At start, once the modules are imported and the kernels compiled: freeze what that left
    (80,000 objects in a server, 150,000 in a worker that has compiled the house bots) and set
    the collector's thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


class Freezer:
    """Freezes, every FREEZE_SECONDS, what the process made that has outlived a young
    collection: the objects of the connections seated since, and of the games they play."""

    def __init__(self) -> None:
        # Objects frozen after the last full collection, or the first freeze.
        self.reclaimed_at: int | None = None
        self.freezes = 0
        self.reclaims = 0

    def freeze(self) -> None:
        """Freeze what lives now, once the youngest generation's short-lived cycles are
        collected; or, once the frozen objects have grown by RECLAIM_GROWTH since the last
        full collection (or the first freeze), thaw them all and collect in full first."""
        first = self.reclaimed_at is None
        full = not first and gc.get_freeze_count() > RECLAIM_GROWTH * (self.reclaimed_at or 0)
        if full:
            gc.unfreeze()
            gc.collect()
            self.reclaims += 1
        else:
            gc.collect(0)
        gc.freeze()
        self.freezes += 1
        if first or full:
            self.reclaimed_at = gc.get_freeze_count()

    async def run(self) -> None:
        while True:
            await asyncio.sleep(FREEZE_SECONDS)
            self.freeze()
