"""Worker slots: how many house games the house-bot workers carry at once. Each worker
advertises its slots in `SLOTS` while its heartbeat lasts; every live game with a house player
holds one, and the ladder scheduler starts an anchor's game only into a free one
(docs/ladder.md, "Workers").
"""

from __future__ import annotations

from collections.abc import Sequence

import redis.asyncio as aioredis

__all__ = ["SLOTS", "WORKER_SLOTS", "house_capacity"]

SLOTS = "workers:slots"  # hash: worker name -> the house games it carries at once
# A worker thinks about one move at a time, so it carries one house game: a house bot's move
# then never waits in the queue behind another game's.
WORKER_SLOTS = 1


async def house_capacity(redis: aioredis.Redis, ready: Sequence[str | bytes]) -> int:
    """How many house games the `ready` workers carry at once: their slots added up (a worker
    that advertises none carries one)."""
    if not ready:
        return 0
    slots = await redis.hmget(SLOTS, list(ready))
    return sum(int(count) if count is not None else 1 for count in slots)
