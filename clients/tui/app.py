"""The terminal client's application: one connection to the server for the whole run, the
login it keeps (the session token, so a dropped connection resumes without asking again), and
the connection's state as people see it. Screens send requests through `request` and hear of
the server's changes as `ServerChange` messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from typing import ClassVar, TypeVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from websockets.exceptions import InvalidHandshake, InvalidURI

from clients.connection import ArenaClient, ArenaError, Backoff
from clients.tui.game import GameScreen
from clients.tui.help import HELP_BINDINGS, show_help
from clients.tui.lobby import LobbyScreen
from clients.tui.messages import Reconnected, ServerChange
from clients.tui.signin import SignInScreen
from server.protocol import ErrorCode, Event, ListOffers, OfferList, Offers, Player, Request

__all__ = ["CONNECT_ERRORS", "ArenaApp", "UnreachableError", "open_connection"]

E = TypeVar("E", bound=Event)

# What failing to reach a server raises: nothing listens, no websocket there, a bad URL.
CONNECT_ERRORS = (OSError, ConnectionError, InvalidHandshake, InvalidURI, TimeoutError)
CONNECT_SECONDS = 10.0  # for a connection to open and answer `hello`
NOTICES_KEPT = 100


class UnreachableError(ValueError):
    """No server that speaks this client's protocol answers at the URL: the message says why
    in one line."""


async def open_connection(url: str) -> ArenaClient:
    """A connection to `url` past `hello`, or UnreachableError saying in one line why not (a
    bad URL, nothing listening, no websocket there, another protocol version)."""
    try:
        async with asyncio.timeout(CONNECT_SECONDS):
            return await ArenaClient.connect(url, "arena-play")
    except InvalidURI:
        raise UnreachableError(f"{url!r} is not a websocket URL such as ws://host:8765") from None
    except ArenaError as error:
        raise UnreachableError(f"the server at {url} refused: {error.reply.message}") from None
    except TimeoutError:
        raise UnreachableError(
            f"the server at {url} did not answer within {CONNECT_SECONDS:g} s"
        ) from None
    except CONNECT_ERRORS as error:
        raise UnreachableError(f"cannot reach a server at {url}: {_why(error)}") from None


def _why(error: BaseException) -> str:
    """The operating system's words for a failed connection (`Connection refused`), else the
    error's own."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno)
        cause = cause.__cause__ or cause.__context__
    return str(error) or type(error).__name__


class ArenaApp(App[None]):
    """`arena play`: sign in, then the lobby. `client` is a connection already past `hello`
    (the command line opens one first, so that a server that cannot be reached is one line
    before the app starts); without one the app connects to `url` itself."""

    CSS_PATH = "arena.tcss"
    TITLE = "Amazons Arena"
    # Every action has a key, listed by `?`: the footer's room goes to the screen's keys.
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        *HELP_BINDINGS,
        Binding("ctrl+q", "quit", "Quit"),
    ]

    # "connecting", "connected", "reconnecting, attempt N", "resynced", or why it failed.
    connection: reactive[str] = reactive("connecting")
    user: reactive[Player | None] = reactive(None)

    def __init__(self, url: str, client: ArenaClient | None = None) -> None:
        super().__init__()
        self.url = url
        self.client = client
        self.offers: Offers | None = None
        self.lobby: LobbyScreen | None = None
        self._stopping = False
        # The notices shown, latest last (at most NOTICES_KEPT), as people read them.
        self.notices: deque[str] = deque(maxlen=NOTICES_KEPT)

    def on_mount(self) -> None:
        self.sub_title = self.url
        self.push_screen(SignInScreen())
        if self.client is not None:
            self.connection = "connected"
        else:
            self._connect()

    @work(exclusive=True, group="connect")
    async def _connect(self) -> None:
        try:
            self.client = await open_connection(self.url)
        except UnreachableError as error:
            self.connection = str(error)
        else:
            self.connection = "connected"

    async def sign_in(self, user: str | None, password: str = "") -> None:
        """Log in as `user` (a guest when None) and open the lobby; raises ArenaError with the
        server's message when it refuses."""
        client = self.client
        if client is None or client.closed:
            # Lost before signing in (nothing to resume): a new connection will do.
            try:
                client = self.client = await open_connection(self.url)
            except UnreachableError as error:
                self.connection = str(error)
                raise ConnectionError(str(error)) from None
            self.connection = "connected"
        if user is None:
            welcome = await client.guest()
        else:
            welcome = await client.login(user, password)
        self.user = welcome.user
        self.offers = (await client.request(ListOffers(), OfferList)).offers
        self.lobby = LobbyScreen()
        self._follow()
        # Not awaited: the sign-in screen, whose worker calls this, goes with the switch.
        self.switch_screen(self.lobby)

    async def request(self, request: Request, expect: type[E]) -> E:
        """Send `request` on the current connection and return its reply; raises ArenaError
        when the server refuses it, ConnectionError when there is no connection."""
        if self.client is None:
            raise ConnectionError(f"not connected to {self.url}")
        return await self.client.request(request, expect)

    @work(exclusive=True, group="follow")
    async def _follow(self) -> None:
        """Hand every change to the lobby and the game screens open, and take the connection
        up again when it drops (resyncing every game in band)."""
        while self.client is not None:
            with self.client.subscribe() as changes:
                async for change in changes:
                    for screen in self._listeners():
                        screen.post_message(ServerChange(change))
            if self._stopping:
                return
            self.client = await self._reconnect(self.client)
            if self.client is None:
                # The session is gone (expired, or the server's data with it): sign in again.
                self.lobby = None
                self.switch_screen(SignInScreen())
                self._connect()
            else:
                for screen in self._listeners():
                    screen.post_message(Reconnected())

    def _listeners(self) -> list[Screen[None]]:
        """The lobby and every game screen on the stack."""
        screens: list[Screen[None]] = [s for s in self.screen_stack if isinstance(s, GameScreen)]
        if self.lobby is not None:
            screens.append(self.lobby)
        return screens

    async def _reconnect(self, previous: ArenaClient) -> ArenaClient | None:
        """A new connection that resumes `previous`'s session and resyncs its games, tried with
        backoff until it works (None: the server no longer knows the session)."""
        backoff = Backoff()
        attempt = 0
        while True:
            attempt += 1
            self.connection = f"reconnecting, attempt {attempt}"
            try:
                async with asyncio.timeout(CONNECT_SECONDS):
                    client = await ArenaClient.reconnect(self.url, previous, client="arena-play")
            except ArenaError as error:
                if error.code is ErrorCode.BAD_CREDENTIALS:
                    self.connection = "signed out: the server no longer knows this session"
                    return None
            except CONNECT_ERRORS:
                pass
            else:
                self.connection = "resynced"
                return client
            await asyncio.sleep(backoff.next())

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Show a notice, and keep its words in `notices`. Its text is shown as it is (names
        and the server's messages may hold brackets), unless `markup`."""
        self.notices.append(f"{title}: {message}" if title else message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def action_help(self) -> None:
        show_help(self)

    async def action_quit(self) -> None:
        self._stopping = True
        if self.client is not None:
            with contextlib.suppress(*CONNECT_ERRORS):
                await self.client.close()
        self.exit()
