"""Ratings settled in Redis: each rated game once, and every game of a player counted when
several end at once."""

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.games import open_redis
from server.glicko import rate_game
from server.identity import create_account
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
async def test_two_games_of_one_player_ending_at_once_both_count(store: Redis) -> None:
    for name in ("ann", "bob", "cat"):
        await create_account(store, name, f"{name}-password")
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
async def test_a_game_is_rated_once_however_many_settle_it(store: Redis) -> None:
    for name in ("ann", "bob"):
        await create_account(store, name, f"{name}-password")
    await store.sadd(UNRATED, "g1")
    results = await asyncio.gather(
        *(settle(store, "g1", "ann", "bob", Colour.BLACK, HUMANS) for _ in range(3))
    )
    assert sum(result is not None for result in results) == 1
    start = await rating_of(store, "nobody")
    assert (await rating_of(store, "ann"), await rating_of(store, "bob")) == rate_game(
        start, start, white_won=False
    )
