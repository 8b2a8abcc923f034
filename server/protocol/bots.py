"""A person's own bot accounts and their tokens, served over the protocol: the requests a
signed-in person (a human account) sends to make a bot, list theirs, and make, list and revoke
a bot's tokens, and the replies. A token is shown once, in `token_created`; lists show ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from server.protocol.limits import MAX_ID_LENGTH, MAX_LISTED, Count, ServerTime, Token, UserName
from server.protocol.message import Event, Request
from server.protocol.schema import Length

__all__ = [
    "BotList",
    "BotTokenInfo",
    "CreateBot",
    "CreateToken",
    "ListBots",
    "ListTokens",
    "OwnedBot",
    "RevokeToken",
    "TokenCreated",
    "TokenId",
    "TokenList",
]

# The id of a bot token: the first hex digits of its digest (server.identity.TOKEN_ID_LENGTH).
TokenId = Annotated[str, Length(1, MAX_ID_LENGTH)]


@dataclass(frozen=True)
class OwnedBot:
    """One of a person's bots: its `name`, how many live `tokens` it has, and when it was
    `created` (None for bots made before creation times were kept)."""

    name: UserName
    tokens: Count
    created: ServerTime | None = None


@dataclass(frozen=True)
class BotTokenInfo:
    """A bot's live token as lists show it: its `token_id` and when it was `created` (None for
    tokens made before creation times were kept); never the token."""

    token_id: TokenId
    created: ServerTime | None = None


@dataclass(frozen=True)
class CreateBot(Request, tag="create_bot"):
    """Make a bot account called `name`, owned by the signed-in person. Reply `bot_list`."""

    name: UserName


@dataclass(frozen=True)
class ListBots(Request, tag="list_bots"):
    """The signed-in person's bots. Reply `bot_list`."""


@dataclass(frozen=True)
class CreateToken(Request, tag="create_token"):
    """Make a login token for one's own bot `bot`. Reply `token_created`, the only time the
    token is shown."""

    bot: UserName


@dataclass(frozen=True)
class ListTokens(Request, tag="list_tokens"):
    """The live tokens of one's own bot `bot`, by id. Reply `token_list`."""

    bot: UserName


@dataclass(frozen=True)
class RevokeToken(Request, tag="revoke_token"):
    """Revoke a token of one of one's own bots by its id; the connections logged in with it
    close. Reply `token_list`, the bot's tokens left."""

    token_id: TokenId


@dataclass(frozen=True)
class BotList(Event, tag="bot_list"):
    """The reply to `create_bot` and `list_bots`: the person's bots, by name."""

    bots: Annotated[tuple[OwnedBot, ...], Length(0, MAX_LISTED)] = ()


@dataclass(frozen=True)
class TokenCreated(Event, tag="token_created"):
    """The reply to `create_token`: the new `token` of `bot`, shown this once (the server keeps
    only its digest), with its `token_id` and when it was `created`."""

    bot: UserName
    token: Token
    token_id: TokenId
    created: ServerTime


@dataclass(frozen=True)
class TokenList(Event, tag="token_list"):
    """The reply to `list_tokens` and `revoke_token`: `bot`'s live tokens, oldest first."""

    bot: UserName
    tokens: Annotated[tuple[BotTokenInfo, ...], Length(0, MAX_LISTED)] = ()
