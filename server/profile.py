"""A player's page as the server answers `player_info`: who the player is (an account, a guest,
a bot with its owner, or a house bot), its rating in each pool it has played rated games in with
the history of that rating, and the games it last played to an end.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis.asyncio as aioredis

from engine.game import game_names
from server import identity
from server.games import GameStore
from server.glicko import Rating
from server.ladder.rating import is_provisional
from server.ladder.store import LadderStore
from server.protocol import (
    Colour,
    ErrorCode,
    HistoryPoint,
    PlayedGame,
    PlayerKind,
    PlayerProfile,
    PoolRating,
    ProtocolError,
)
from server.protocol.limits import MAX_RATING, MAX_STRENGTH
from server.rating_history import RatingPoint, game_history_key, read_history
from server.stored_game import StoredGame

__all__ = ["player_profile"]


async def player_profile(
    redis: aioredis.Redis,
    store: GameStore,
    ladders: LadderStore,
    house_bots: Sequence[str],
    name: str,
    request_id: int | None = None,
) -> PlayerProfile:
    """The profile of the player called `name` (any case); a `not_found` ProtocolError naming
    it when there is no such account or house bot."""
    account = await identity.find(redis, store.database, name)
    if account is not None:
        kind, spelled = account.kind, account.name
        owner = await identity.owner_of(store.database, name)
    elif name.lower() in house_bots:
        kind, spelled, owner = PlayerKind.HOUSE, name.lower(), None
    else:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no player {name}: no account or house bot")
    ratings: list[PoolRating] = []
    for game in game_names():
        if kind is PlayerKind.HOUSE:
            for strength in range(1, MAX_STRENGTH + 1):
                spec = f"{spelled}@{strength}"
                found = await _game_rating(redis, spelled, game, spec, strength)
                if found is not None:
                    ratings.append(found)
        elif kind is not PlayerKind.GUEST:
            found = await _game_rating(redis, spelled, game)
            if found is not None:
                ratings.append(found)
    for ladder in await ladders.ladders():
        rating = await ladders.rating_of(ladder.name, spelled)
        if rating is not None:
            history = await ladders.rating_history(ladder.name, spelled)
            ratings.append(_pool(ladder.game, rating, history, ladder=ladder.name))
    games = [
        played
        for game in await store.finished_games(spelled)
        if (played := _played(game, spelled)) is not None
    ]
    return PlayerProfile(
        spelled,
        kind,
        tuple(ratings),
        tuple(games),
        owner=None if owner is None else _text(owner),
        id=request_id,
    )


async def _game_rating(
    redis: aioredis.Redis,
    name: str,
    game: str,
    house: str | None = None,
    strength: int | None = None,
) -> PoolRating | None:
    rating, deviation, volatility = await identity.stored_rating(redis, name, game, house)
    if rating is None:
        return None
    stored = Rating(float(rating), float(deviation or 350.0), float(volatility or 0.06))
    history = await read_history(redis, game_history_key(name, game, house))
    return _pool(game, stored, history, strength=strength)


def _pool(
    game: str,
    rating: Rating,
    history: Sequence[RatingPoint],
    *,
    ladder: str | None = None,
    strength: int | None = None,
) -> PoolRating:
    points = tuple(
        HistoryPoint(
            point.at, point.game_id, _points(point.rating), _points(point.deviation), point.setup
        )
        for point in history
    )
    return PoolRating(
        game,
        _points(rating.rating),
        _points(rating.deviation),
        is_provisional(rating),
        ladder=ladder,
        strength=strength,
        history=points,
    )


def _played(game: StoredGame, name: str) -> PlayedGame | None:
    if game.termination is None:
        return None
    colour = Colour.WHITE if game.white.name.lower() == name.lower() else Colour.BLACK
    opponent = game.black if colour is Colour.WHITE else game.white
    return PlayedGame(
        game.game_id,
        game.game,
        opponent,
        colour,
        game.termination,
        game.rated,
        setup=game.setup,
        winner=game.winner,
        ended=game.ended,
    )


def _points(value: float) -> int:
    """A rating or deviation in whole points, within the protocol's bounds."""
    return max(0, min(MAX_RATING, round(value)))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
