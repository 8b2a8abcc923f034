"""A player's page as the server answers `player_info`: who the player is (an account, a guest,
a bot with its owner, or a house bot), its rating in each pool it has played rated games in with
the history of that rating, and the first page of the games it played to an end; and the pages
after it (`player_games`), read from the history store a page at a time, newest first.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis.asyncio as aioredis

from engine.game import game_names
from server import identity
from server.db import Database, FinishedGame, GameCursor, GamePage, games
from server.db.ratings import history
from server.games import GameStore
from server.glicko import Rating
from server.ladder.rating import is_provisional
from server.ladder.store import LadderStore
from server.protocol import (
    Colour,
    ErrorCode,
    HistoryPoint,
    PlayedGame,
    Player,
    PlayerGamePage,
    PlayerKind,
    PlayerProfile,
    PoolRating,
    ProtocolError,
    Termination,
)
from server.protocol.limits import MAX_RATING, MAX_STRENGTH
from server.protocol.requests import GAMES_PAGE
from server.rating_history import RatingPoint
from server.ratings import holder, ratings_cache

__all__ = ["player_games", "player_profile"]


async def player_profile(
    redis: aioredis.Redis,
    store: GameStore,
    ladders: LadderStore,
    house_bots: Sequence[str],
    name: str,
    request_id: int | None = None,
) -> PlayerProfile:
    """The profile of the player called `name` (any case), with the first page of its finished
    games; a `not_found` ProtocolError naming it when there is no such account or house bot."""
    kind, spelled = await _player(redis, store.database, house_bots, name)
    owner = await identity.owner_of(store.database, name) if kind is not PlayerKind.HOUSE else None
    ratings: list[PoolRating] = []
    for game in game_names():
        if kind is PlayerKind.HOUSE:
            for strength in range(1, MAX_STRENGTH + 1):
                spec = f"{spelled}@{strength}"
                found = await _game_rating(redis, store.database, spelled, game, spec, strength)
                if found is not None:
                    ratings.append(found)
        elif kind is not PlayerKind.GUEST:
            found = await _game_rating(redis, store.database, spelled, game)
            if found is not None:
                ratings.append(found)
    for ladder in await ladders.ladders():
        rating = await ladders.rating_of(ladder.name, spelled)
        if rating is not None:
            history = await ladders.rating_history(ladder.name, spelled)
            ratings.append(_pool(ladder.game, rating, history, ladder=ladder.name))
    page = await _games_of(store.database, spelled, GAMES_PAGE)
    return PlayerProfile(
        spelled,
        kind,
        tuple(ratings),
        tuple(_played(game, spelled) for game in page.games),
        owner=None if owner is None else _text(owner),
        next=None if page.next is None else str(page.next),
        id=request_id,
    )


async def player_games(
    redis: aioredis.Redis,
    database: Database | None,
    house_bots: Sequence[str],
    name: str,
    *,
    limit: int = GAMES_PAGE,
    before: GameCursor | None = None,
    game: str | None = None,
    request_id: int | None = None,
) -> PlayerGamePage:
    """A page of the games the player called `name` (any case) played to an end, newest first:
    up to `limit`, of `game` only if given, after `before`; `not_found` as for the profile."""
    _, spelled = await _player(redis, database, house_bots, name)
    page = await _games_of(database, spelled, limit, before, game)
    return PlayerGamePage(
        spelled,
        tuple(_played(found, spelled) for found in page.games),
        next=None if page.next is None else str(page.next),
        id=request_id,
    )


async def _player(
    redis: aioredis.Redis, database: Database | None, house_bots: Sequence[str], name: str
) -> tuple[PlayerKind, str]:
    """The kind of the player called `name` and its name as spelled; `not_found` if none."""
    account = await identity.find(redis, database, name)
    if account is not None:
        return account.kind, account.name
    if name.lower() in house_bots:
        return PlayerKind.HOUSE, name.lower()
    raise ProtocolError(ErrorCode.NOT_FOUND, f"no player {name}: no account or house bot")


async def _games_of(
    database: Database | None,
    name: str,
    limit: int,
    before: GameCursor | None = None,
    game: str | None = None,
) -> GamePage:
    if database is None:
        # A server without a history store (its tests') keeps no finished game to list.
        return GamePage([], None)
    # A house bot's seat keeps the name it is shown by (`invader`), whatever its strength.
    return await games(database, player=name, game=game, limit=limit, before=before, moves=False)


async def _game_rating(
    redis: aioredis.Redis,
    database: Database | None,
    name: str,
    game: str,
    house: str | None = None,
    strength: int | None = None,
) -> PoolRating | None:
    """The rating in `game` of the account `name`, or of the house bot at the strength of its
    spec `house`, with its history; None when it has none (or there is no database)."""
    if database is None:
        return None
    player = holder(name, house)
    # Through the cache: a house bot's page asks for its every strength, most of them unrated.
    (rating,) = await ratings_cache(database).ratings(redis, [player], game)
    if rating is None:
        return None
    return _pool(game, rating, await history(database, player, game), strength=strength)


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


def _played(game: FinishedGame, name: str) -> PlayedGame:
    """`game` as the page of `name`, one of its players, lists it."""
    record = game.record
    white = game.white.key == name.lower()
    seat, shown = (game.black, record.black_rating) if white else (game.white, record.white_rating)
    return PlayedGame(
        game.game_id,
        record.game,
        Player(seat.name, seat.kind, None if shown is None else _points(shown)),
        Colour.WHITE if white else Colour.BLACK,
        # A record spells its termination in words ("no legal move"), the wire by its tag.
        Termination(record.termination.replace(" ", "_")),
        bool(record.rated),
        setup=record.setup,
        winner=None if record.winner is None else Colour(record.winner),
        ended=game.ended,
    )


def _points(value: float) -> int:
    """A rating or deviation in whole points, within the protocol's bounds."""
    return max(0, min(MAX_RATING, round(value)))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
