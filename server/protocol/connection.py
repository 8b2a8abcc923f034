"""One client connection as the server's protocol sees it, without I/O: frames in, requests out,
frames to send. It enforces the handshake (`hello`, then a login, then anything else), answers
`hello`, `ping` and every bad or out-of-order frame itself, and passes the rest on.
"""

from __future__ import annotations

from enum import StrEnum

from server.protocol.codec import PROTOCOL_VERSION, decode_request
from server.protocol.errors import ErrorCode, ProtocolError
from server.protocol.events import ErrorReply, Ok, Pong, Welcome
from server.protocol.message import Event, Request
from server.protocol.requests import BotLogin, Guest, Hello, Login, Ping, Resume, SignUp
from server.protocol.values import Player

__all__ = ["Phase", "ServerConnection"]

LOGINS = (Login, BotLogin, Guest, Resume)
# What may come before a login. A sign_up after one is passed on as well: its handler says why
# a logged-in connection (a guest in a game, say) cannot make an account.
SIGN_UPS = (*LOGINS, SignUp)


class Phase(StrEnum):
    """Where a connection is in the handshake."""

    HELLO = "hello"  # waiting for the client's hello
    LOGIN = "login"  # versions agree; waiting for login, sign_up, bot_login, guest or resume
    READY = "ready"  # logged in: requests go to the server
    CLOSING = "closing"  # the client's version is not spoken here; close the connection


class ServerConnection:
    """The protocol state of one connection. The server feeds each frame to `receive`, acts on
    the request it returns (a login is answered by sending `Welcome`), and writes out
    `data_to_send()`; after an unsupported version `phase` is CLOSING and the server closes.
    `signups` is whether anyone may make an account, which the `ok` to `hello` says."""

    def __init__(self, *, signups: bool = False) -> None:
        self.phase = Phase.HELLO
        self.signups = signups
        self.user: Player | None = None
        self._outgoing: list[bytes] = []

    def receive(self, frame: bytes | str) -> Request | None:
        """The request the server must act on, or None when this object has answered the frame
        itself (with an error, `ok` to `hello` or `pong` to `ping`)."""
        if self.phase is Phase.CLOSING:
            return None
        try:
            request = decode_request(frame)
            self._admit(request)
        except ProtocolError as error:
            if error.code is ErrorCode.UNSUPPORTED_VERSION:
                self.phase = Phase.CLOSING
            self.send(ErrorReply.of(error))
            return None
        if isinstance(request, Hello):
            self.phase = Phase.LOGIN
            self.send(Ok(signups=self.signups, id=request.id))
            return None
        if isinstance(request, Ping):
            self.send(Pong(id=request.id))
            return None
        return request

    def send(self, event: Event) -> None:
        """Queue an event; a `Welcome` completes the login."""
        if isinstance(event, Welcome):
            self.phase = Phase.READY
            self.user = event.user
        self._outgoing.append(event.to_wire())

    def data_to_send(self) -> list[bytes]:
        """The frames queued since the last call, in order."""
        frames, self._outgoing = self._outgoing, []
        return frames

    def _admit(self, request: Request) -> None:
        """Refuse a request the handshake does not allow yet (or any more)."""
        if self.phase is Phase.HELLO:
            if not isinstance(request, Hello):
                raise self._refuse(
                    ErrorCode.NOT_AUTHENTICATED, f"send hello before {request.TAG}", request
                )
            if request.version != PROTOCOL_VERSION:
                raise self._refuse(
                    ErrorCode.UNSUPPORTED_VERSION,
                    f"protocol version {request.version} is not supported; "
                    f"this server speaks version {PROTOCOL_VERSION}",
                    request,
                )
        elif isinstance(request, Hello):
            raise self._refuse(ErrorCode.CONFLICT, "hello was already sent", request)
        elif self.phase is Phase.LOGIN and not isinstance(request, (*SIGN_UPS, Ping)):
            raise self._refuse(
                ErrorCode.NOT_AUTHENTICATED,
                f"log in before {request.TAG}: send login, sign_up, bot_login, guest or resume",
                request,
            )
        elif self.phase is Phase.READY and isinstance(request, LOGINS):
            raise self._refuse(
                ErrorCode.CONFLICT, "already logged in; log in again on a new connection", request
            )

    @staticmethod
    def _refuse(code: ErrorCode, message: str, request: Request) -> ProtocolError:
        return ProtocolError(code, message, request_id=request.id)
