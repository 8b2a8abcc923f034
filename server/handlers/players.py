"""Players' pages and the finished games behind them: anyone may ask for any player's profile
(`player_info`, put together by server.profile), and for the games a player or a ladder played
to an end a page at a time, newest first (`player_games`, `ladder_games`), from the history store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import redis.asyncio as aioredis

from engine.game import game_names
from server.db import GameCursor, GamePage, games
from server.games import GameStore
from server.ladder.store import LadderError, LadderStore
from server.profile import player_games, player_profile
from server.protocol import (
    Colour,
    ErrorCode,
    Event,
    LadderGame,
    LadderGamePage,
    LadderGamesRequest,
    PlayerGames,
    PlayerInfo,
    ProtocolError,
)

from .route import Route, on

__all__ = ["ROUTES", "PlayersConnection", "PlayersServices"]


@dataclass(frozen=True)
class PlayersServices:
    """What a player's page is made from."""

    redis: aioredis.Redis  # guests, ratings and rating histories
    store: GameStore  # its database: accounts, and each player's and ladder's finished games
    ladders: LadderStore  # ladder ratings and their histories
    house_bots: tuple[str, ...]  # the house bots' names, players without an account


class PlayersConnection(Protocol):
    """The connection as players' pages see it."""

    def reply(self, event: Event) -> None: ...


async def player_info(
    services: PlayersServices, connection: PlayersConnection, request: PlayerInfo
) -> None:
    connection.reply(
        await player_profile(
            services.redis,
            services.store,
            services.ladders,
            services.house_bots,
            request.name,
            request.id,
        )
    )


async def player_games_page(
    services: PlayersServices, connection: PlayersConnection, request: PlayerGames
) -> None:
    if request.game is not None and request.game not in game_names():
        raise ProtocolError(
            ErrorCode.BAD_FIELD,
            f"no game {request.game}: the games are {', '.join(game_names())}",
            field="game",
        )
    connection.reply(
        await player_games(
            services.redis,
            services.store.database,
            services.house_bots,
            request.name,
            limit=request.limit,
            before=_cursor(request.before),
            game=request.game,
            request_id=request.id,
        )
    )


async def ladder_games_page(
    services: PlayersServices, connection: PlayersConnection, request: LadderGamesRequest
) -> None:
    try:
        ladder = await services.ladders.get(request.ladder)
    except LadderError as error:
        raise ProtocolError(ErrorCode.NOT_FOUND, str(error)) from None
    before = _cursor(request.before)
    database = services.store.database
    page = (
        GamePage([], None)
        if database is None
        else await games(
            database, ladder=ladder.name, limit=request.limit, before=before, moves=False
        )
    )
    listed = tuple(
        LadderGame(
            game.game_id, game.white.name, game.black.name, Colour(game.record.winner), game.ended
        )
        for game in page.games
        if game.record.winner is not None
    )
    next_page = None if page.next is None else str(page.next)
    connection.reply(LadderGamePage(ladder.name, listed, next_page, id=request.id))


def _cursor(text: str | None) -> GameCursor | None:
    """The `before` of a request, as a previous page's `next` gave it."""
    if text is None:
        return None
    try:
        return GameCursor.parse(text)
    except ValueError as error:
        raise ProtocolError(ErrorCode.BAD_FIELD, str(error), field="before") from None


ROUTES: tuple[Route[PlayersServices, PlayersConnection], ...] = (
    on(PlayerInfo, player_info),
    on(PlayerGames, player_games_page),
    on(LadderGamesRequest, ladder_games_page),
)
