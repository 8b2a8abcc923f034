"""The terminal client's application: one connection to the server for the whole run, the
login it keeps (the session token, so a dropped connection resumes without asking again), and
the connection's state as people see it. Screens send requests through `request` and hear of
the server's changes as `ServerChange` messages. `arena watch` comes in signed in as a guest and
watching its game, which the lobby opens at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from typing import ClassVar, TypeVar

from textual import work
from textual.app import App
from textual.binding import BindingType
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from websockets.exceptions import InvalidHandshake, InvalidURI

from clients.connection import ArenaClient, ArenaError, Backoff
from clients.tui.game import GameScreen
from clients.tui.help import APP_BINDINGS, show_keys
from clients.tui.lines import say
from clients.tui.lobby import LobbyScreen
from clients.tui.messages import Reconnected, ServerChange
from clients.tui.review import ReviewScreen
from clients.tui.signin import SignInScreen
from server.protocol import (
    ErrorCode,
    Event,
    GameSnapshot,
    HouseBots,
    ListOffers,
    OfferList,
    Offers,
    Player,
    Request,
    Watch,
)

__all__ = [
    "CONNECT_ERRORS",
    "ArenaApp",
    "UnreachableError",
    "UnwatchableError",
    "open_connection",
    "open_watching",
]

E = TypeVar("E", bound=Event)
# Starts a server and returns its URL once it listens, telling a callable what it is doing.
Starting = Callable[[Callable[[str], None]], Awaitable[str]]

# What failing to reach a server raises: nothing listens, no websocket there, a bad URL.
CONNECT_ERRORS = (OSError, ConnectionError, InvalidHandshake, InvalidURI, TimeoutError)
CONNECT_SECONDS = 10.0  # for a connection to open and answer `hello`
STARTING_TITLE = "a server of its own, starting"  # where the server's URL shows until it listens
NOTICES_KEPT = 100
SIGNED_OUT_SECONDS = 30.0  # the sign-out notice stays long enough to be read on return


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


class UnwatchableError(ValueError):
    """The server will not show the game asked for (it has none of that id): one line."""


async def open_watching(url: str, game_id: str) -> ArenaClient:
    """A connection to `url` signed in as a guest and watching game `game_id`; raises
    UnreachableError, or UnwatchableError when the server has no such game, each in one line."""
    client = await open_connection(url)
    try:
        await client.guest()
        await client.request(Watch(game_id), GameSnapshot)
    except ArenaError as error:
        await client.close()
        if error.code is ErrorCode.NOT_FOUND:
            raise UnwatchableError(f"the server at {url} has no game {game_id!r}") from None
        raise UnwatchableError(
            f"the server at {url} refused to show game {game_id!r}: {error.reply.message}"
        ) from None
    except BaseException:
        await client.close()
        raise
    return client


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
    before the app starts); without one the app connects to `url` itself. A `client` already
    signed in goes straight to the lobby, which opens game `watch` when given (`arena
    watch`: see `open_watching`)."""

    CSS_PATH = "arena.tcss"
    TITLE = "Amazons Arena"
    # Every action has a key, listed by `?`: the footer's room goes to the screen's keys.
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    # "connecting", "connected", "reconnecting, attempt N", "resynced", or why it failed.
    connection: reactive[str] = reactive("connecting")
    user: reactive[Player | None] = reactive(None)

    def __init__(
        self,
        url: str | None,
        client: ArenaClient | None = None,
        watch: str | None = None,
        *,
        ascii: bool = False,
        starting: Starting | None = None,
    ) -> None:
        """With no `url`, `starting` starts the server and gives its URL once it listens,
        telling meanwhile what the server is doing (`arena play` on a server of its own); it
        raises a ValueError naming the cause if the server does not start, and the app then
        ends with that as its `failure`."""
        super().__init__()
        self.url = url or ""
        self.starting = starting
        self.failure: str | None = None
        self._up = asyncio.Event()  # the server listens at `url`
        if url:
            self._up.set()
        # Everything draws in ASCII (`arena play --ascii`): the boards and marks by this flag, the
        # frames by the `-ascii` class (arena.tcss).
        self.ascii = ascii
        self.set_class(ascii, "-ascii")
        self.client = client
        self._watch_first = watch
        self.offers: Offers | None = None
        self.lobby: LobbyScreen | None = None
        self._stopping = False
        # The notices shown, latest last (at most NOTICES_KEPT), as people read them.
        self.notices: deque[str] = deque(maxlen=NOTICES_KEPT)
        # Said in place of the signed-out notice when the connection closes because this
        # person deleted their account (the server ends every session of it).
        self.farewell: str | None = None

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for the platform, but on POSIX one that leaves a blank alternate
        screen behind (clients/tui/terminal.py says why)."""
        driver = super().get_driver_class()
        if sys.platform == "win32":
            return driver
        from textual.drivers.linux_driver import LinuxDriver  # POSIX only

        from clients.tui.terminal import ClearingDriver

        return ClearingDriver if driver is LinuxDriver else driver

    def on_mount(self) -> None:
        self.sub_title = self.url or STARTING_TITLE
        self.push_screen(SignInScreen())
        if self.client is None:
            self._connect()
            return
        self.connection = "connected"
        if self.client.user is not None:
            self._enter_signed_in(self.client)

    @work(exclusive=True, group="connect")
    async def _connect(self) -> None:
        if not self._up.is_set():
            await self._start_server()
        try:
            self.client = await open_connection(self.url)
        except UnreachableError as error:
            self.connection = str(error)
        else:
            self.connection = "connected"

    async def _start_server(self) -> None:
        """Start the server of `starting`, showing what it does on the connection's line."""
        assert self.starting is not None
        try:
            self.url = await self.starting(self._server_says)
        except ValueError as error:
            self.failure = str(error)
            self.exit(return_code=2)
            return
        self.sub_title = self.url
        say(self.screen, "#server", self.url)
        self._up.set()

    def _server_says(self, doing: str) -> None:
        self.connection = f"connecting: {doing}"

    async def sign_in(self, user: str | None, password: str = "", *, new: bool = False) -> None:
        """Log in as `user` (a guest when None; a new account `sign_up` makes when `new`) and
        open the lobby, once the server listens; raises ArenaError with the server's message
        when it refuses."""
        await self._up.wait()
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
            await client.guest()
        elif new:
            await client.sign_up(user, password)
        else:
            await client.login(user, password)
        await self._enter(client)

    @work(group="sign-in")
    async def _enter_signed_in(self, client: ArenaClient) -> None:
        """To the lobby with the client the command line signed in; if that fails, the
        sign-in screen on a new connection."""
        try:
            await self._enter(client)
        except (ArenaError, ConnectionError) as error:
            self.notify(str(error), title="Not signed in", severity="error")
            with contextlib.suppress(*CONNECT_ERRORS):
                await client.close()
            self.client = None
            self._connect()

    async def _enter(self, client: ArenaClient) -> None:
        """From the sign-in screen to the lobby, `client` having signed in."""
        self.user = client.user
        self.offers = (await client.request(ListOffers(), OfferList)).offers
        self.lobby = LobbyScreen(watch=self._watch_first)
        self._watch_first = None  # once: after signing in again, the lobby alone
        self._follow()
        # Not awaited: the sign-in screen, whose worker calls this, goes with the switch.
        self.switch_screen(self.lobby)

    @property
    def house_bots(self) -> HouseBots | None:
        """The house bots ready and still being prepared, as the server last said."""
        return None if self.client is None else self.client.core.house_bots

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
            farewell, self.farewell = self.farewell, None
            if farewell:
                # A state of its own, so the new connection's "connected" is news to the
                # sign-in screen, which then offers sign-up again.
                self.connection = "signed out: the account is deleted"
            self.client = None if farewell else await self._reconnect(self.client)
            if self.client is None:
                # The session is gone (expired, the server's data with it, or the account
                # deleted): sign in again, from a sign-in screen in place of the lobby and
                # every game screen.
                self.lobby = None
                while len(self.screen_stack) > 2:
                    await self.pop_screen()
                await self.switch_screen(SignInScreen())
                self.notify(
                    farewell or "the server no longer knows this session: sign in again",
                    title="Account deleted" if farewell else "Signed out",
                    severity="information" if farewell else "warning",
                    timeout=SIGNED_OUT_SECONDS,
                )
                self._connect()
            else:
                for screen in self._listeners():
                    screen.post_message(Reconnected())

    def _listeners(self) -> list[Screen[None]]:
        """The lobby and every game and review screen on the stack (a review hears its
        analysis's progress)."""
        screens: list[Screen[None]] = [
            s for s in self.screen_stack if isinstance(s, GameScreen | ReviewScreen)
        ]
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
        show_keys(self)

    async def action_quit(self) -> None:
        self._stopping = True
        if self.client is not None:
            with contextlib.suppress(*CONNECT_ERRORS):
                await self.client.close()
        self.exit()
