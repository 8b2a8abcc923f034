"""Glicko-2 ratings of accounts, one per game, settled once per rated game. A rated game that ends
is put on a to-be-rated set in the same commit that ends it; whichever process takes it off the
set rates the game, so a rating is never applied twice and a crash only delays it until the next
sweep.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from server.glicko import Rating, rate_game
from server.identity import (
    RATING_FIELDS,
    UNSUFFIXED_GAME,
    rating_fields,
    stored_rating,
    user_key,
)
from server.protocol import DEFAULT_GAME, Colour, PlayerKind

__all__ = ["UNRATED", "rating_of", "settle"]

UNRATED = "games:unrated"  # set of ended rated games whose ratings are not yet updated


async def rating_of(
    redis: aioredis.Redis | Pipeline, name: str, game: str = DEFAULT_GAME
) -> Rating:
    """The account's Glicko-2 rating in `game`; a new player's default when it has none."""
    fields = await stored_rating(redis, name, game)
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
    *,
    game: str = DEFAULT_GAME,
) -> tuple[Rating, Rating] | None:
    """Rate the game (of `game`, whose ratings it moves) if it is still waiting to be rated: the
    players' new ratings there, or None when another process rated it or nobody won (an aborted
    game).

    Reading the ratings and writing the new ones is one optimistic transaction on both players
    and the set of games to rate, tried again when either changed meanwhile: two games of one
    player ending at once both count, and a game is rated once."""
    rated = winner is not None and PlayerKind.GUEST not in kinds and PlayerKind.HOUSE not in kinds
    keys = (user_key(white), user_key(black))
    async with redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                await pipe.watch(UNRATED, *keys)
                if not await pipe.sismember(UNRATED, game_id):
                    return None
                after = None
                if rated:
                    before = (
                        await rating_of(pipe, white, game),
                        await rating_of(pipe, black, game),
                    )
                    after = rate_game(*before, white_won=winner is Colour.WHITE)
                pipe.multi()
                pipe.srem(UNRATED, game_id)
                if after is not None:
                    for key, rating in zip(keys, after, strict=True):
                        values = map(repr, (rating.rating, rating.deviation, rating.volatility))
                        pipe.hset(key, mapping=dict(zip(rating_fields(game), values, strict=True)))
                        if game == UNSUFFIXED_GAME:
                            pipe.hdel(key, *RATING_FIELDS)  # read no more: the game's own are set
                await pipe.execute()
                return after
            except WatchError:
                continue
