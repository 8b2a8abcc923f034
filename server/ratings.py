"""Glicko-2 ratings of accounts and of house bots (each strength on its own), one per game,
settled once per rated game. A rated game that ends
is put on a to-be-rated set in the same commit that ends it; whichever process takes it off the
set rates the game, so a rating is never applied twice and a crash only delays it until the next
sweep.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from server.clock import now_ms
from server.glicko import Rating, rate_game
from server.identity import (
    RATING_FIELDS,
    UNSUFFIXED_GAME,
    rating_fields,
    rating_key,
    stored_rating,
)
from server.protocol import DEFAULT_GAME, Colour, PlayerKind
from server.rating_history import RatingPoint, append_point, game_history_key

__all__ = ["UNRATED", "rating_of", "settle"]

UNRATED = "games:unrated"  # set of ended rated games whose ratings are not yet updated


async def rating_of(
    redis: aioredis.Redis | Pipeline, name: str, game: str = DEFAULT_GAME, house: str | None = None
) -> Rating:
    """The Glicko-2 rating in `game` of the account `name`, or of the house bot whose spec is
    `house` when given; a new player's default when it has none."""
    fields = await stored_rating(redis, name, game, house)
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
    house: tuple[str | None, str | None] = (None, None),
    setup: str | None = None,
    ended: int | None = None,
) -> tuple[Rating, Rating] | None:
    """Rate the game (of `game`, whose ratings it moves) if it is still waiting to be rated: the
    players' new ratings there, or None when another process rated it or nobody won (an aborted
    game). A house player is rated at its strength, by its spec in `house` (`invader@5`).
    Each new rating is added to its player's history in `game` (`server.rating_history`), with
    the game's `setup` and when it `ended` (server ms; now when not given).

    Reading the ratings and writing the new ones is one optimistic transaction on both players
    and the set of games to rate, tried again when either changed meanwhile: two games of one
    player ending at once both count, and a game is rated once."""
    # A house player is rated by its spec: one without (none is stored so) stays out of it.
    unknown_house = any(
        kind is PlayerKind.HOUSE and spec is None for kind, spec in zip(kinds, house, strict=True)
    )
    rated = winner is not None and PlayerKind.GUEST not in kinds and not unknown_house
    keys = (rating_key(white, house[0]), rating_key(black, house[1]))
    histories = (
        game_history_key(white, game, house[0]),
        game_history_key(black, game, house[1]),
    )
    at = now_ms() if ended is None else ended
    async with redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                await pipe.watch(UNRATED, *keys)
                if not await pipe.sismember(UNRATED, game_id):
                    return None
                after = None
                if rated:
                    before = (
                        await rating_of(pipe, white, game, house[0]),
                        await rating_of(pipe, black, game, house[1]),
                    )
                    after = rate_game(*before, white_won=winner is Colour.WHITE)
                pipe.multi()
                pipe.srem(UNRATED, game_id)
                if after is not None:
                    for key, history, rating in zip(keys, histories, after, strict=True):
                        values = map(repr, (rating.rating, rating.deviation, rating.volatility))
                        pipe.hset(key, mapping=dict(zip(rating_fields(game), values, strict=True)))
                        if game == UNSUFFIXED_GAME:
                            pipe.hdel(key, *RATING_FIELDS)  # read no more: the game's own are set
                        point = RatingPoint(at, game_id, rating.rating, rating.deviation, setup)
                        append_point(pipe, history, point)
                await pipe.execute()
                return after
            except WatchError:
                continue
