"""Ratings settled in Redis: each rated game once, every game of a player counted when several
end at once, and one rating per game."""

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.db import Database
from server.games import open_redis
from server.glicko import Rating, rate_game
from server.identity import Account, create_account, find, rating_in, user_key
from server.protocol import Colour, PlayerKind
from server.ratings import UNRATED, rating_of, settle

HUMANS = (PlayerKind.HUMAN, PlayerKind.HUMAN)


@pytest_asyncio.fixture
async def store(redis: Redis, redis_url: str) -> AsyncIterator[Redis]:
    """The server's own Redis client (its commands pipelined on one connection), on the
    emptied Redis of `redis`."""
    client = open_redis(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_two_games_of_one_player_ending_at_once_both_count(
    store: Redis, database: Database
) -> None:
    for name in ("ann", "bob", "cat"):
        await create_account(database, name, f"{name}-password")
    await store.sadd(UNRATED, "g1", "g2")
    await asyncio.gather(
        settle(store, "g1", "ann", "bob", Colour.WHITE, HUMANS),
        settle(store, "g2", "ann", "cat", Colour.WHITE, HUMANS),
    )
    start = await rating_of(store, "nobody")  # a new player's rating
    first_win, first_loss = rate_game(start, start, white_won=True)
    second_win, second_loss = rate_game(first_win, start, white_won=True)
    # Whichever game was rated first, Ann's rating moved twice, and one of her opponents lost
    # to a new player, the other to Ann after one win.
    assert await rating_of(store, "ann") == second_win
    losers = {await rating_of(store, "bob"), await rating_of(store, "cat")}
    assert losers == {first_loss, second_loss}
    assert await store.scard(UNRATED) == 0


@pytest.mark.asyncio
async def test_a_game_is_rated_once_however_many_settle_it(
    store: Redis, database: Database
) -> None:
    for name in ("ann", "bob"):
        await create_account(database, name, f"{name}-password")
    await store.sadd(UNRATED, "g1")
    results = await asyncio.gather(
        *(settle(store, "g1", "ann", "bob", Colour.BLACK, HUMANS) for _ in range(3))
    )
    assert sum(result is not None for result in results) == 1
    start = await rating_of(store, "nobody")
    assert (await rating_of(store, "ann"), await rating_of(store, "bob")) == rate_game(
        start, start, white_won=False
    )


@pytest.mark.asyncio
async def test_ratings_are_kept_per_game_and_those_of_earlier_servers_are_amazons(
    store: Redis,
    database: Database,
) -> None:
    for name in ("ann", "bob"):
        await create_account(database, name, f"{name}-password")
    # Exactly as the server kept a rating before ratings were per game.
    await store.hset(
        user_key("ann"),
        mapping={"rating": "1712.5", "deviation": "80.25", "volatility": "0.059"},
    )
    ann = Rating(1712.5, 80.25, 0.059)
    assert await rating_of(store, "ann") == ann
    assert await rating_of(store, "ann", "amazons") == ann
    assert await rating_of(store, "ann", "toy") == Rating()
    assert (await find(store, database, "ann"), await rating_in(store, "ann", "toy")) == (
        Account("ann", PlayerKind.HUMAN, 1712),
        None,
    )

    await store.sadd(UNRATED, "t1", "a1")
    toy = await settle(store, "t1", "bob", "ann", Colour.WHITE, HUMANS, game="toy")
    assert toy == rate_game(Rating(), Rating(), white_won=True)
    assert await rating_of(store, "ann", "toy") == toy[1]
    assert await rating_of(store, "ann") == ann  # a game of toy leaves Amazons alone

    amazons = await settle(store, "a1", "ann", "bob", Colour.WHITE, HUMANS, game="amazons")
    assert amazons == rate_game(ann, Rating(), white_won=True)
    assert await rating_of(store, "ann") == amazons[0]
    assert await rating_in(store, "ann", "amazons") == round(amazons[0].rating)
    fields = await store.hgetall(user_key("ann"))
    # The game's own fields replace the unsuffixed ones.
    assert b"rating:amazons" in fields
    assert b"rating:toy" in fields
    assert b"rating" not in fields
