"""A person's own bots and their tokens: a signed-in person (a human account; not a guest, not
a bot) makes bot accounts they own, and makes, lists and revokes their tokens, within the
limits server.identity sets (BOTS_PER_OWNER, TOKENS_PER_BOT). A bot that is not the asker's is
`not_found`, as one that does not exist: nobody learns of another's bots or tokens this way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import redis.asyncio as aioredis

from server import identity
from server.db import Database
from server.games import GameStore
from server.protocol import ErrorCode, Event, Player, PlayerKind, ProtocolError
from server.protocol.bots import (
    BotList,
    BotTokenInfo,
    CreateBot,
    CreateToken,
    ListBots,
    ListTokens,
    OwnedBot,
    RevokeToken,
    TokenCreated,
    TokenList,
)

from .route import Route, on

__all__ = ["ROUTES", "BotsConnection", "BotsServices"]


@dataclass(frozen=True)
class BotsServices:
    """What a person's bots are made and kept with."""

    redis: aioredis.Redis  # where a revoked token's connections are told to close
    store: GameStore  # its database keeps accounts and bot tokens


class BotsConnection(Protocol):
    """The connection as a person's bots see it."""

    def me(self) -> Player: ...

    def reply(self, event: Event) -> None: ...


async def create_bot(
    services: BotsServices, connection: BotsConnection, request: CreateBot
) -> None:
    db, owner = _database(services), _person(connection)
    with _refusals():
        await identity.create_owned_bot(db, owner, request.name)
        await _reply_bots(db, owner, connection, request.id)


async def list_bots(services: BotsServices, connection: BotsConnection, request: ListBots) -> None:
    db, owner = _database(services), _person(connection)
    with _refusals():
        await _reply_bots(db, owner, connection, request.id)


async def create_token(
    services: BotsServices, connection: BotsConnection, request: CreateToken
) -> None:
    db, owner = _database(services), _person(connection)
    with _refusals():
        token, listed = await identity.create_owned_bot_token(db, owner, request.bot)
    created = _ms(listed.created) or 0
    connection.reply(TokenCreated(listed.bot, token, listed.id, created, id=request.id))


async def list_tokens(
    services: BotsServices, connection: BotsConnection, request: ListTokens
) -> None:
    db, owner = _database(services), _person(connection)
    with _refusals():
        await _reply_tokens(db, owner, request.bot, connection, request.id)


async def revoke_token(
    services: BotsServices, connection: BotsConnection, request: RevokeToken
) -> None:
    db, owner = _database(services), _person(connection)
    with _refusals():
        revoked = await identity.revoke_bot_token(services.redis, db, request.token_id, owner=owner)
        await _reply_tokens(db, owner, revoked.bot, connection, request.id)


async def _reply_bots(db: Database, owner: str, connection: BotsConnection, id: int | None) -> None:
    bots = await identity.owned_bots(db, owner)
    connection.reply(
        BotList(tuple(OwnedBot(bot.name, bot.tokens, _ms(bot.created)) for bot in bots), id=id)
    )


async def _reply_tokens(
    db: Database, owner: str, bot: str, connection: BotsConnection, id: int | None
) -> None:
    name, tokens = await identity.owned_bot_tokens(db, owner, bot)
    listed = tuple(BotTokenInfo(token.id, _ms(token.created)) for token in tokens)
    connection.reply(TokenList(name, listed, id=id))


# Each refusal of server.identity as the error it answers, and the field it is on.
_REFUSALS: tuple[tuple[type[identity.AccountError], ErrorCode, str | None], ...] = (
    (identity.InvalidNameError, ErrorCode.BAD_FIELD, "name"),
    (identity.NameTakenError, ErrorCode.CONFLICT, None),
    (identity.TooManyError, ErrorCode.CONFLICT, None),
    (identity.UnknownBotError, ErrorCode.NOT_FOUND, "bot"),
    (identity.UnknownTokenError, ErrorCode.NOT_FOUND, "token_id"),
    # The asker's own account, gone since the login.
    (identity.UnknownAccountError, ErrorCode.FORBIDDEN, None),
)


@contextmanager
def _refusals() -> Iterator[None]:
    """Turn a refusal of server.identity into the protocol's error for it."""
    try:
        yield
    except identity.AccountError as error:
        for kind, code, field in _REFUSALS:
            if isinstance(error, kind):
                raise ProtocolError(code, str(error), field=field) from None
        raise


def _person(connection: BotsConnection) -> str:
    """The asker's name, if a person's account asks; guests and bots make no bots."""
    me = connection.me()
    if me.kind is not PlayerKind.HUMAN:
        raise ProtocolError(
            ErrorCode.FORBIDDEN,
            f"only a person's account makes and keeps bots and their tokens, not a {me.kind}: "
            "sign in with a user name and password",
        )
    return me.name


def _database(services: BotsServices) -> Database:
    if services.store.database is None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "this server keeps no accounts")
    return services.store.database


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


ROUTES: tuple[Route[BotsServices, BotsConnection], ...] = (
    on(CreateBot, create_bot),
    on(ListBots, list_bots),
    on(CreateToken, create_token),
    on(ListTokens, list_tokens),
    on(RevokeToken, revoke_token),
)
