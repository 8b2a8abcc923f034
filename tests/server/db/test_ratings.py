"""Ratings read from the history store, on SQLite and PostgreSQL, through each process's cache:
a rating a game's hand-over changes is read at once by another process (the hand-over counts
the change in Redis), a cached rating is read again only when its version changes, house bots
are rated per strength and names in any case, and Redis keeps no rating of its own."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from sqlalchemy import update

from server import ratings
from server.db.database import Database
from server.db.ratings import history
from server.db.schema import RATINGS
from server.games import GameStore, open_redis
from server.glicko import Rating, rate_game
from server.protocol import Player, PlayerKind, TimeControl
from server.ratings import bump_versions, player_in, rating_in
from tests.server.db.stored_ratings import store_rating

T0 = 1_790_000_000_000
ANN, BOB = Player("Ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
INVADER = Player("invader", PlayerKind.HOUSE)


@pytest_asyncio.fixture
async def store(redis: Redis, redis_url: str, db: Database) -> AsyncIterator[GameStore]:
    games = GameStore(open_redis(redis_url), database=db)
    try:
        yield games
    finally:
        await games.redis.aclose()


@pytest_asyncio.fixture
async def second_process(database_url: str, db: Database) -> AsyncIterator[Database]:
    """The same database as another server process has it: a connection pool, and a cache of
    ratings, of its own."""
    other = await Database.open(database_url, Path("unused"))
    try:
        yield other
    finally:
        await other.close()


async def _end_rated_game(
    store: GameStore, white: Player, black: Player, house: str | None = None, now: int = T0
) -> str:
    """A rated 6x6 game that Black wins by White's resignation, handed over as it ends."""
    started = await store.create(
        white,
        black,
        time=TimeControl(60, 2),
        rated=True,
        now=now,
        setup="6x6",
        house=(None, house),
    )
    await store.play(started.game_id, white.name, 0, "b1-b4/d4", now + 1_000)
    await store.play(started.game_id, black.name, 1, "e6-e3/c3", now + 2_000)
    await store.resign(started.game_id, white.name, now + 3_000)
    return started.game_id


@pytest.mark.asyncio
async def test_a_rating_a_game_changes_is_read_at_once_by_another_process(
    store: GameStore, redis: Redis, db: Database, second_process: Database
) -> None:
    # The other process has read both as unrated, and keeps that.
    assert await rating_in(redis, second_process, "ann", "amazons") is None
    assert await player_in(redis, second_process, BOB, "amazons") == BOB

    await _end_rated_game(store, ANN, BOB)

    ann, bob = rate_game(Rating(), Rating(), white_won=False)
    assert await rating_in(redis, second_process, "ann", "amazons") == round(ann.rating)
    assert await player_in(redis, second_process, BOB, "amazons") == Player(
        "bob", PlayerKind.HUMAN, round(bob.rating)
    )
    assert await redis.mget("rating-version:ann", "rating-version:bob") == [b"1", b"1"]


@pytest.mark.asyncio
async def test_a_cached_rating_is_read_again_only_when_its_version_changes(
    redis: Redis, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store_rating(db, "ann", "amazons", 1600.4)
    assert await rating_in(redis, db, "Ann", "amazons") == 1600
    # Written without its change counted: the cache answers, without the database.
    async with db.writing() as connection:
        await connection.execute(update(RATINGS).values(rating=1700.0))
    assert await rating_in(redis, db, "ANN", "amazons") == 1600

    await bump_versions(redis, ["ann"])
    assert await rating_in(redis, db, "ann", "amazons") == 1700

    # Nor is a rating kept for ever, whatever its version says (versions lost with Redis count
    # again from nothing).
    async with db.writing() as connection:
        await connection.execute(update(RATINGS).values(rating=1800.0))
    monkeypatch.setattr(ratings, "CACHE_SECONDS", 0.0)
    assert await rating_in(redis, db, "ann", "amazons") == 1800


@pytest.mark.asyncio
async def test_a_house_bot_is_rated_at_its_strength_and_names_in_any_case(
    store: GameStore, redis: Redis, db: Database
) -> None:
    game_id = await _end_rated_game(store, ANN, INVADER, house="invader@5")

    ann, bot = rate_game(Rating(), Rating(), white_won=False)
    assert await rating_in(redis, db, "invader", "amazons", "invader@5") == round(bot.rating)
    assert await rating_in(redis, db, "invader", "amazons", "INVADER@5") == round(bot.rating)
    assert await rating_in(redis, db, "invader", "amazons", "invader@4") is None
    assert await player_in(redis, db, INVADER, "amazons", "invader@5") == Player(
        "invader", PlayerKind.HOUSE, round(bot.rating)
    )
    # A house player whose strength is not known is shown as it was given.
    assert await player_in(redis, db, INVADER, "amazons") == INVADER
    assert await rating_in(redis, db, "aNN", "amazons") == round(ann.rating)
    assert await rating_in(redis, db, "ann", "bao") is None  # ratings are per game
    assert await rating_in(redis, db, "nobody", "amazons") is None
    guest = Player("guest-7", PlayerKind.GUEST)
    assert await player_in(redis, db, guest, "amazons") == guest
    assert await player_in(redis, None, ANN, "amazons") == ANN  # no database: no ratings
    assert [(point.game_id, point.setup) for point in await history(db, "ann", "amazons")] == [
        (game_id, "6x6")
    ]


@pytest.mark.asyncio
async def test_a_history_reads_its_last_points_oldest_first(store: GameStore, db: Database) -> None:
    ended = [await _end_rated_game(store, ANN, BOB, now=T0 + n * 10_000) for n in range(3)]

    points = await history(db, "bob", "amazons", points=2)
    assert [point.game_id for point in points] == ended[1:]
    first = rate_game(Rating(), Rating(), white_won=False)[1]  # Bob won each game
    assert points[0].at == T0 + 10_000 + 3_000  # when the game ended
    assert points[-1].rating > points[0].rating > first.rating


@pytest.mark.asyncio
async def test_redis_keeps_no_rating_and_no_history(store: GameStore, redis: Redis) -> None:
    await _end_rated_game(store, ANN, INVADER, house="invader@5")

    keys = {key.decode() for key in await redis.keys("*")}
    assert not {key for key in keys if key.startswith(("user:", "house:"))}
    assert "games:unrated" not in keys
    assert {key for key in keys if key.startswith("rating-version:")} == {
        "rating-version:ann",
        "rating-version:invader@5",
    }
