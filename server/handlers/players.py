"""Players' pages: anyone may ask for any player's profile (`player_info`), put together by
server.profile from the accounts, ratings, rating histories and finished games in Redis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import redis.asyncio as aioredis

from server.games import GameStore
from server.ladder.store import LadderStore
from server.profile import player_profile
from server.protocol import Event, PlayerInfo

from .route import Route, on

__all__ = ["ROUTES", "PlayersConnection", "PlayersServices"]


@dataclass(frozen=True)
class PlayersServices:
    """What a player's page is made from."""

    redis: aioredis.Redis  # accounts, their ratings and rating histories
    store: GameStore  # each player's finished games
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


ROUTES: tuple[Route[PlayersServices, PlayersConnection], ...] = (on(PlayerInfo, player_info),)
