"""Logging in, with only what the account handlers are given: their services on a real Redis
and a stand-in for the connection that records what was done to it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import structlog
from redis.asyncio import Redis

from server import identity
from server.db import Database
from server.games import GameStore
from server.handlers.account import AccountServices, bot_login
from server.lobby import Lobby
from server.offers import DEFAULT_TIME_CONTROLS, Offered, TimeControls
from server.protocol import (
    BotLogin,
    ErrorCode,
    Event,
    Player,
    PlayerKind,
    ProtocolError,
    Welcome,
)
from server.throttle import LoginThrottle
from server.worker import HOUSE_BOTS


@dataclass
class Standin:
    """A connection as logging in sees it; `on_follow` runs as a channel is followed."""

    user: Player | None = None
    bot_token: str | None = None
    session: str | None = None
    log: Any = field(default_factory=lambda: structlog.get_logger("test"))
    replies: list[Event] = field(default_factory=list)
    pushed: list[bytes] = field(default_factory=list)
    channels: set[str] = field(default_factory=set)
    on_follow: Callable[[], Awaitable[object]] | None = None

    def address(self) -> str:
        return "192.0.2.1"

    def reply(self, event: Event) -> None:
        self.replies.append(event)

    def push(self, frame: bytes) -> None:
        self.pushed.append(frame)

    async def follow(self, name: str) -> None:
        self.channels.add(name)
        if self.on_follow is not None:
            await self.on_follow()

    async def unfollow(self, name: str) -> None:
        self.channels.discard(name)

    async def follow_game(self, game_id: str, version: int, snapshot: bool = False) -> None:
        raise AssertionError("a new bot has no games")


def _services(redis: Redis, database: Database) -> AccountServices:
    offers = Offered.every_game(TimeControls.parse(DEFAULT_TIME_CONTROLS), HOUSE_BOTS).offers()
    store = GameStore(redis, database=database)
    return AccountServices(redis, LoginThrottle(redis), store, Lobby(redis), offers)


@pytest.mark.asyncio
async def test_a_bot_is_welcomed_into_a_session_of_its_token(
    redis: Redis, database: Database
) -> None:
    token = await identity.create_bot_token(database, "mybot")
    connection = Standin()
    services = _services(redis, database)
    await bot_login(services, connection, BotLogin(token, id=7))
    [welcome] = connection.replies
    assert isinstance(welcome, Welcome)
    assert (welcome.id, welcome.user, welcome.offers) == (
        7,
        Player("mybot", PlayerKind.BOT),
        services.offers,
    )
    assert connection.user == welcome.user
    assert connection.channels == {"user:mybot"}
    assert connection.bot_token == identity.token_digest(token)
    assert await identity.session_origin(redis, welcome.session) == connection.bot_token


@pytest.mark.asyncio
async def test_a_token_revoked_while_its_bot_logs_in_leaves_the_connection_logged_out(
    redis: Redis,
    database: Database,
) -> None:
    """The revocation's news is published on the bot's channel: one that lands after the token
    was checked and before the channel is followed is missed, so the login checks again."""
    token = await identity.create_bot_token(database, "mybot")
    connection = Standin(
        on_follow=lambda: identity.revoke_bot_token(redis, database, identity.token_id(token))
    )
    with pytest.raises(ProtocolError) as refused:
        await bot_login(_services(redis, database), connection, BotLogin(token, id=7))
    assert refused.value.code is ErrorCode.BAD_CREDENTIALS
    assert str(refused.value) == "unknown bot token: it was revoked"
    assert (connection.user, connection.channels, connection.replies) == (None, set(), [])
