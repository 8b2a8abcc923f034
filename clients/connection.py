"""An asyncio client of the game server over `server.protocol`: connect and log in, send
requests and await their replies by request id, follow games as the server's events arrive
(applying each version once, resyncing on a gap), and take a session up again on a new
connection after a drop. Imports the protocol only, never the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from time import monotonic
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.protocol import (
    PROTOCOL_VERSION,
    BotLogin,
    Clocks,
    Colour,
    ErrorCode,
    ErrorReply,
    Event,
    GameEnded,
    GameEvent,
    GameSnapshot,
    GameStarted,
    GameStatus,
    Guest,
    Hello,
    Login,
    MovePlayed,
    Player,
    ProtocolError,
    Request,
    Resume,
    Resync,
    Synced,
    Termination,
    TimeControl,
    Welcome,
    colour_of,
    colour_to_move,
    decode_event,
)

__all__ = ["ArenaClient", "ArenaError", "Backoff", "GameView"]

E = TypeVar("E", bound=Event)


class ArenaError(Exception):
    """The server refused a request: its stable `code` and message."""

    def __init__(self, reply: ErrorReply) -> None:
        super().__init__(f"{reply.code}: {reply.message}")
        self.code = ErrorCode(reply.code)
        self.reply = reply


@dataclass
class GameView:
    """A game as this client knows it, built from the server's events."""

    game_id: str
    white: Player
    black: Player
    start: str
    time: TimeControl
    rated: bool
    clocks: Clocks
    setup: str | None = None
    moves: list[str] = field(default_factory=list)
    version: int = 0
    status: GameStatus = GameStatus.PLAYING
    winner: Colour | None = None
    termination: Termination | None = None
    # When the view last changed (monotonic seconds): the running clock has been running
    # since about then, which `clocks` (read by the server as the event left) does not show.
    received: float = field(default_factory=monotonic)

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> Colour:
        return colour_to_move(self.start, self.ply)

    def colour_of(self, name: str) -> Colour | None:
        return colour_of(self.white, self.black, name)

    def copy(self) -> GameView:
        """An independent copy (the move list is not shared)."""
        return replace(self, moves=list(self.moves))


@dataclass
class Backoff:
    """Waits between attempts to reach the server: doubling from `first` up to `cap` seconds,
    each cut by a random part of up to a half so that clients dropped together do not all come
    back at the same moment."""

    first: float = 0.5
    cap: float = 30.0
    attempts: int = 0

    def next(self) -> float:
        """Seconds to wait before the next attempt."""
        delay = min(self.cap, self.first * 2.0**self.attempts)
        self.attempts = min(self.attempts + 1, 32)
        return delay * random.uniform(0.5, 1.0)

    def reset(self) -> None:
        """The server was reached: start again from `first`."""
        self.attempts = 0


class ArenaClient:
    """One connection to the server. Use `await ArenaClient.connect(url)`, then a login."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.user: Player | None = None
        self.session: str | None = None
        self.games: dict[str, GameView] = {}
        self.news: asyncio.Queue[Event] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Event]] = {}
        self._changed = asyncio.Condition()
        self._resyncs: dict[str, asyncio.Task[Any]] = {}  # game id -> its resync request
        self._resync_again: set[str] = set()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str, client: str = "arena-client") -> ArenaClient:
        socket = await connect(url, max_size=2**20)
        self = cls(socket)
        await self.request(Hello(PROTOCOL_VERSION, client))
        return self

    @classmethod
    async def reconnect(
        cls,
        url: str,
        previous: ArenaClient,
        *,
        token: str | None = None,
        client: str = "arena-client",
    ) -> ArenaClient:
        """A new connection that takes up `previous`'s session after a drop, or logs the bot in
        again with `token` when there is no session or it has expired. The live games `previous`
        knew are carried over and brought up to date with `resync`, as are the games the
        `welcome` lists, so no event is missed; it returns once all of them are caught up.
        Raises ArenaError when neither login works (code `bad_credentials`)."""
        if previous.session is None and token is None:
            raise ValueError("nothing to log in with: the old connection had no session")
        new = await cls.connect(url, client)
        try:
            for game_id, view in previous.games.items():
                if view.status is GameStatus.PLAYING:
                    new.games[game_id] = view.copy()
            welcome: Welcome | None = None
            if previous.session is not None:
                try:
                    welcome = await new.resume(previous.session)
                except ArenaError as error:
                    if error.code is not ErrorCode.BAD_CREDENTIALS or token is None:
                        raise
            if welcome is None:
                assert token is not None
                welcome = await new.bot_login(token)
            for game_id in dict.fromkeys([*welcome.games, *new.games]):
                try:
                    await new.resync(game_id)
                except ArenaError as error:
                    if error.code is not ErrorCode.NOT_FOUND:
                        raise
                    new.games.pop(game_id, None)  # a game the server no longer has
        except BaseException:
            await new.close()
            raise
        return new

    @property
    def closed(self) -> bool:
        """Whether the connection has closed (no more events will arrive)."""
        return self._reader.done()

    async def wait_closed(self) -> None:
        """Return when the connection has closed, for whatever reason."""
        await asyncio.wait({self._reader})

    async def close(self) -> None:
        await self.socket.close()
        with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
            await self._reader
        for task in tuple(self._resyncs.values()):
            task.cancel()

    async def __aenter__(self) -> ArenaClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # Logging in

    async def login(self, user: str, password: str) -> Welcome:
        return await self._welcome(Login(user, password))

    async def guest(self) -> Welcome:
        return await self._welcome(Guest())

    async def bot_login(self, token: str) -> Welcome:
        return await self._welcome(BotLogin(token))

    async def resume(self, session: str) -> Welcome:
        return await self._welcome(Resume(session))

    async def _welcome(self, request: Request) -> Welcome:
        welcome: Welcome = await self.request(request, Welcome)
        self.user = welcome.user
        self.session = welcome.session
        return welcome

    # Requests

    async def request(self, request: Request, expect: type[E] | None = None) -> Any:
        """Send `request` and return its reply; raise ArenaError when the server refuses it and
        ConnectionError when the connection closes before the reply."""
        request_id = next(self._ids)
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            if self.closed:
                raise ConnectionError("the connection to the server closed")
            try:
                await self.socket.send(replace(request, id=request_id).to_wire())
            except ConnectionClosed as closed:
                raise ConnectionError("the connection to the server closed") from closed
            reply = await future
        finally:
            self._pending.pop(request_id, None)
            if future.done() and not future.cancelled():
                future.exception()  # seen: the reader may have failed it as the send failed
            else:
                future.cancel()
        if isinstance(reply, ErrorReply):
            raise ArenaError(reply)
        if expect is not None and not isinstance(reply, expect):
            raise ProtocolError(
                ErrorCode.BAD_FRAME,
                f"expected {expect.TAG} in reply to {request.TAG}, got {reply.TAG}",
            )
        return reply

    async def wait_for(
        self, check: Callable[[ArenaClient], bool], timeout: float | None = 10.0
    ) -> None:
        """Wait until `check(self)` holds, re-checked after every event and once the connection
        has closed (`timeout` None: for as long as it takes)."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: check(self))

    async def next_news(self, kind: type[E], timeout: float = 10.0) -> E:
        """The next event of type `kind` that was not a reply (earlier others are dropped)."""
        async with asyncio.timeout(timeout):
            while True:
                event = await self.news.get()
                if isinstance(event, kind):
                    return event

    async def resync(self, game_id: str) -> Synced:
        view = self.games.get(game_id)
        synced: Synced = await self.request(Resync(game_id, view.version if view else 0), Synced)
        return synced

    # Reading

    async def _read(self) -> None:
        try:
            async for frame in self.socket:
                if isinstance(frame, str):
                    continue
                try:
                    event = decode_event(frame)
                except ProtocolError:
                    # A client is lenient: an event it cannot read (from a newer server) is
                    # skipped; a game it belonged to shows a version gap and is resynced.
                    continue
                await self._apply(event)
                if event.id is not None and event.id in self._pending:
                    future = self._pending[event.id]
                    if not future.done():
                        future.set_result(event)
                else:
                    self.news.put_nowait(event)
                async with self._changed:
                    self._changed.notify_all()
        except ConnectionClosed:
            pass  # a dropped connection ends the reader like a closed one; `closed` tells
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the connection to the server closed"))
            # Waiters check once more, so that they see the connection is gone.
            async with self._changed:
                self._changed.notify_all()

    async def _apply(self, event: Event) -> None:
        """Bring the game views up to date: each version once, a gap answered by a resync."""
        if isinstance(event, GameSnapshot):
            view = self.games.get(event.game_id)
            if view is None or event.version >= view.version:
                self.games[event.game_id] = GameView(
                    event.game_id,
                    event.white,
                    event.black,
                    event.start,
                    event.time,
                    event.rated,
                    event.clocks,
                    event.setup,
                    list(event.moves),
                    event.version,
                    event.status,
                    event.winner,
                    event.termination,
                )
            return
        if not isinstance(event, GameEvent):
            return
        if isinstance(event, GameStarted):
            if event.game_id not in self.games:
                self.games[event.game_id] = GameView(
                    event.game_id,
                    event.white,
                    event.black,
                    event.start,
                    event.time,
                    event.rated,
                    event.clocks,
                    event.setup,
                    version=1,
                )
            return
        view = self.games.get(event.game_id)
        if view is None:
            # News of a game this client has not seen start: it missed everything up to this
            # version (version 0 applied, so this is a gap) and asks for all of it.
            self._resync_soon(event.game_id)
            return
        if event.version <= view.version:
            return
        if event.version > view.version + 1:
            self._resync_soon(event.game_id)
            return
        view.version = event.version
        view.received = monotonic()
        if isinstance(event, MovePlayed):
            view.moves.append(event.move)
            view.clocks = event.clocks
        elif isinstance(event, GameEnded):
            view.status = GameStatus.ENDED
            view.winner = event.winner
            view.termination = event.termination
            view.clocks = event.clocks
        elif hasattr(event, "clocks"):
            view.clocks = event.clocks

    def _resync_soon(self, game_id: str) -> None:
        """Ask for the events missed in a gap, without holding up the reader; one request per
        game at a time, as one resync brings every event up to the latest."""
        if game_id in self._resyncs:
            # The one under way may have been answered before this event was sent: ask again
            # once it is done.
            self._resync_again.add(game_id)
            return
        task = asyncio.get_running_loop().create_task(self.resync(game_id))
        self._resyncs[game_id] = task
        task.add_done_callback(functools.partial(self._resync_done, game_id))

    def _resync_done(self, game_id: str, task: asyncio.Task[Any]) -> None:
        self._resyncs.pop(game_id, None)
        if task.cancelled() or task.exception() is not None:
            # The connection dropped: whoever reconnects resyncs.
            self._resync_again.discard(game_id)
        elif game_id in self._resync_again:
            self._resync_again.discard(game_id)
            self._resync_soon(game_id)
