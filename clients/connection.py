"""An asyncio client of the game server over `server.protocol`: connect and log in, send
requests and await their replies by request id, and follow games as the server's events arrive
(applying each version once, resyncing on a gap). Imports the protocol only, never the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
    decode_event,
)

__all__ = ["ArenaClient", "ArenaError", "GameView"]

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

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> Colour:
        white_first = self.start.rstrip().endswith("w")
        return Colour.WHITE if (self.ply % 2 == 0) == white_first else Colour.BLACK

    def colour_of(self, name: str) -> Colour | None:
        if self.white.name.lower() == name.lower():
            return Colour.WHITE
        if self.black.name.lower() == name.lower():
            return Colour.BLACK
        return None


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
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str, client: str = "arena-client") -> ArenaClient:
        socket = await connect(url, max_size=2**20)
        self = cls(socket)
        await self.request(Hello(PROTOCOL_VERSION, client))
        return self

    async def close(self) -> None:
        await self.socket.close()
        with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
            await self._reader

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
        """Send `request` and return its reply; raise ArenaError when the server refuses it."""
        request_id = next(self._ids)
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        await self.socket.send(replace(request, id=request_id).to_wire())
        try:
            reply = await future
        finally:
            self._pending.pop(request_id, None)
        if isinstance(reply, ErrorReply):
            raise ArenaError(reply)
        if expect is not None and not isinstance(reply, expect):
            raise ProtocolError(
                ErrorCode.BAD_FRAME,
                f"expected {expect.TAG} in reply to {request.TAG}, got {reply.TAG}",
            )
        return reply

    async def wait_for(self, check: Callable[[ArenaClient], bool], timeout: float = 10.0) -> None:
        """Wait until `check(self)` holds, re-checked after every event."""
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
                event = decode_event(frame)
                await self._apply(event)
                if event.id is not None and event.id in self._pending:
                    self._pending[event.id].set_result(event)
                else:
                    self.news.put_nowait(event)
                async with self._changed:
                    self._changed.notify_all()
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the connection to the server closed"))

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
        if view is None or event.version <= view.version:
            return
        if event.version > view.version + 1:
            asyncio.get_running_loop().create_task(self.resync(event.game_id))
            return
        view.version = event.version
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
