"""Glicko-2 ratings of accounts, settled once per rated game. A rated game that ends is put on a
to-be-rated set in the same commit that ends it; whichever process takes it off the set rates
the game, so a rating is never applied twice and a crash only delays it until the next sweep.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from server.glicko import Rating, rate_game
from server.identity import user_key
from server.protocol import Colour, PlayerKind

__all__ = ["UNRATED", "rating_of", "settle"]

UNRATED = "games:unrated"  # set of ended rated games whose ratings are not yet updated


async def rating_of(redis: aioredis.Redis, name: str) -> Rating:
    """The account's Glicko-2 rating; a new player's default when it has none."""
    fields = await redis.hmget(user_key(name), "rating", "deviation", "volatility")
    if fields[0] is None:
        return Rating()
    return Rating(float(fields[0]), float(fields[1] or 350.0), float(fields[2] or 0.06))


async def settle(
    redis: aioredis.Redis,
    game_id: str,
    white: str,
    black: str,
    winner: Colour | None,
    kinds: tuple[PlayerKind, PlayerKind],
) -> tuple[Rating, Rating] | None:
    """Rate the game if it is still waiting to be rated: the players' new ratings, or None
    when another process rated it or nobody won (an aborted game)."""
    if not await redis.srem(UNRATED, game_id):
        return None
    if winner is None or PlayerKind.GUEST in kinds or PlayerKind.HOUSE in kinds:
        return None
    before = (await rating_of(redis, white), await rating_of(redis, black))
    after = rate_game(*before, white_won=winner is Colour.WHITE)
    async with redis.pipeline(transaction=True) as pipe:
        for name, rating in zip((white, black), after, strict=True):
            pipe.hset(
                user_key(name),
                mapping={
                    "rating": repr(rating.rating),
                    "deviation": repr(rating.deviation),
                    "volatility": repr(rating.volatility),
                },
            )
        await pipe.execute()
    return after
