"""A reviewed game kept with the game (revision 0006), on SQLite and PostgreSQL: read back as it
was written, per engine effort, and written once when two servers keep it at once."""

import asyncio
from pathlib import Path

import pytest

from server.db import Database
from server.db.reviews import game_review, keep_review


@pytest.mark.asyncio
async def test_a_review_reads_back_as_kept_and_is_kept_once(
    database_url: str, db: Database
) -> None:
    assert await game_review(db, "g1", 4) is None
    other = await Database.open(database_url, Path("unused"))  # as a second server would
    try:
        await asyncio.gather(
            keep_review(db, "g1", 4, '{"first": 1}', 1_000),
            keep_review(other, "g1", 4, '{"first": 1}', 1_001),
        )
        await keep_review(db, "g1", 4, '{"second": 2}', 2_000)
    finally:
        await other.close()
    assert await game_review(db, "g1", 4) == '{"first": 1}'
    assert await game_review(db, "g1", 5) is None  # judged at another effort: not this one
    assert await game_review(db, "g2", 4) is None
