"""A signed-in person's own account, served over the protocol: the requests a human account
(not a guest, not a bot) sends to change its password, list its sessions and end them, and
delete itself, and the replies. A session is named by an id, never by its token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from server.protocol.limits import MAX_ID_LENGTH, MAX_LISTED, Password, ServerTime
from server.protocol.message import Event, Request
from server.protocol.schema import Length

__all__ = [
    "ChangePassword",
    "DeleteAccount",
    "EndSession",
    "ListSessions",
    "SessionId",
    "SessionInfo",
    "SessionList",
]

# The id of a session: the first hex digits of its token's digest (server.identity).
SessionId = Annotated[str, Length(1, MAX_ID_LENGTH)]
# An IP address, v4 or v6, as the server saw it.
Address = Annotated[str, Length(1, 64)]


@dataclass(frozen=True)
class SessionInfo:
    """One of the account's live sessions: its `session_id`, when it was `started`, the
    `address` it was last used from (None if not kept), and whether it is this connection's
    (`current`)."""

    session_id: SessionId
    started: ServerTime
    address: Address | None = None
    current: bool = False


@dataclass(frozen=True)
class ChangePassword(Request, tag="change_password"):
    """Replace the signed-in person's password `old` with `new` (held to sign-up's rules); every
    other session of the account ends, its connections closed. Reply `ok`."""

    old: Password
    new: Password


@dataclass(frozen=True)
class DeleteAccount(Request, tag="delete_account"):
    """Delete the signed-in person's account, its `password` required, while it plays no game:
    it logs in no more, every session of it ends (this one too, after the reply) and its bots'
    tokens are revoked. Its finished games and ratings stay under its name, which stays taken.
    Reply `ok`."""

    password: Password


@dataclass(frozen=True)
class ListSessions(Request, tag="list_sessions"):
    """The signed-in person's live sessions. Reply `session_list`."""


@dataclass(frozen=True)
class EndSession(Request, tag="end_session"):
    """End one of the signed-in person's sessions by its id: it is resumed no more and its
    connections close; this connection's own session too (a log-out). Reply `session_list`,
    the sessions left."""

    session_id: SessionId


@dataclass(frozen=True)
class SessionList(Event, tag="session_list"):
    """The reply to `list_sessions` and `end_session`: the account's live sessions, oldest
    first."""

    sessions: Annotated[tuple[SessionInfo, ...], Length(0, MAX_LISTED)] = ()
