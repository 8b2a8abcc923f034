"""The asyncio transport of the client core: one websocket to the game server, whose frames a
reading task feeds to a `ClientCore`, and whose requests are awaited to their typed replies.
Games are followed by the core; a user interface listens to them through bounded
subscriptions, and a dropped connection is taken up again by `reconnect`. Imports the engine's
registry and the protocol only, never the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from time import monotonic
from typing import TypeVar, overload

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.changes import Change, GameChange, GameDropped, News, Refused, Replied
from clients.core import ClientCore
from clients.view import GameView
from server.protocol import (
    PROTOCOL_VERSION,
    BotLogin,
    ErrorCode,
    ErrorReply,
    Event,
    GameStatus,
    Guest,
    Hello,
    Login,
    Ok,
    Player,
    ProtocolError,
    Request,
    Resume,
    SignUp,
    Synced,
    Welcome,
)

__all__ = ["ArenaClient", "ArenaError", "Backoff", "GameView", "Subscription"]

E = TypeVar("E", bound=Event)

# Events kept for `next_news` when nobody reads them; past this the oldest go.
NEWS_LIMIT = 1000
# Changes a subscription holds for a listener that has not read them; past this the oldest go.
SUBSCRIPTION_LIMIT = 256


class ArenaError(Exception):
    """The server refused a request: its stable `code` and message."""

    def __init__(self, reply: ErrorReply) -> None:
        super().__init__(f"{reply.code}: {reply.message}")
        self.code = ErrorCode(reply.code)
        self.reply = reply


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


class Subscription:
    """The changes of one game (or of everything, without a game id) as they come, for one
    listener: `async for change in subscription`. It holds at most `limit` changes not read
    yet; past that the oldest are dropped and counted in `dropped`, so a listener that falls
    behind never holds up the connection, and catches up by reading the game's current view
    (each game change carries it). Iteration ends once the connection has closed and every
    change held has been read."""

    def __init__(
        self,
        game_id: str | None,
        limit: int = SUBSCRIPTION_LIMIT,
        on_close: Callable[[Subscription], None] | None = None,
    ) -> None:
        if limit < 1:
            raise ValueError(f"a subscription holds at least 1 change, not {limit}")
        self.game_id = game_id
        self.dropped = 0  # changes dropped unread because `limit` were held
        self._changes: deque[Change] = deque(maxlen=limit)
        self._ready = asyncio.Event()
        self._ended = False
        self._on_close = on_close

    def offer(self, change: Change) -> None:
        """Hold `change` if it is one this subscription listens to."""
        if self._ended:
            return
        if self.game_id is not None and not (
            isinstance(change, GameChange | GameDropped) and change.game_id == self.game_id
        ):
            return
        if len(self._changes) == self._changes.maxlen:
            self.dropped += 1
        self._changes.append(change)
        self._ready.set()

    def end(self) -> None:
        """No more changes will come: iteration stops once the held ones are read."""
        self._ended = True
        self._ready.set()

    def drain(self) -> list[Change]:
        """The changes held, without waiting; they count as read."""
        changes = list(self._changes)
        self._changes.clear()
        return changes

    def close(self) -> None:
        """Stop listening."""
        self.end()
        if self._on_close is not None:
            self._on_close(self)

    def __aiter__(self) -> AsyncIterator[Change]:
        return self

    async def __anext__(self) -> Change:
        while not self._changes:
            if self._ended:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._changes.popleft()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ArenaClient:
    """One connection to the server. Use `await ArenaClient.connect(url)`, then a login.

    `games` are the followed games (the core's views); `news` holds the events the server sent
    on its own (at most NEWS_LIMIT: the oldest go first), for `next_news`; `subscribe` gives a
    listener the changes as they come. `signups` is whether the server lets anyone make an
    account (`sign_up`), as its reply to `hello` said."""

    def __init__(self, socket: ClientConnection, core: ClientCore | None = None) -> None:
        self.socket = socket
        self.signups = False
        self.core = core if core is not None else ClientCore()
        self.news: asyncio.Queue[Event] = asyncio.Queue(NEWS_LIMIT)
        self._replies: dict[int, asyncio.Future[Event]] = {}
        self._subscriptions: set[Subscription] = set()
        self._changed = asyncio.Condition()
        self._writing = asyncio.Lock()
        self._flushes: set[asyncio.Task[None]] = set()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(
        cls, url: str, client: str = "arena-client", *, games: Iterable[GameView] = ()
    ) -> ArenaClient:
        """A new connection past `hello`; `games` are views to go on following (from a
        connection that dropped)."""
        socket = await connect(url, max_size=2**20)
        self = cls(socket, ClientCore(games))
        ok = await self.request(Hello(PROTOCOL_VERSION, client), Ok)
        self.signups = ok.signups is True
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
        knew are carried over and brought up to date with a resync, as are the games the
        `welcome` lists, so no event is missed; it returns once all of them are caught up.
        Subscriptions stay with `previous`, where they have ended: listen again on the new
        client. Raises ArenaError when neither login works (code `bad_credentials`)."""
        if previous.session is None and token is None:
            raise ValueError("nothing to log in with: the old connection had no session")
        playing = [v for v in previous.games.values() if v.status is GameStatus.PLAYING]
        new = await cls.connect(url, client, games=playing)
        try:
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
            await new.catch_up(welcome.games)
        except BaseException:
            await new.close()
            raise
        return new

    @property
    def user(self) -> Player | None:
        return self.core.user

    @property
    def session(self) -> str | None:
        return self.core.session

    @property
    def games(self) -> Mapping[str, GameView]:
        """The followed games by id (read-only: the core changes them as events come)."""
        return self.core.games

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
        for task in tuple(self._flushes):
            task.cancel()

    async def __aenter__(self) -> ArenaClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # Logging in

    async def login(self, user: str, password: str) -> Welcome:
        return await self.request(Login(user, password), Welcome)

    async def sign_up(self, user: str, password: str) -> Welcome:
        """Make an account and log in to it (where `signups` says the server lets anyone)."""
        return await self.request(SignUp(user, password), Welcome)

    async def guest(self) -> Welcome:
        return await self.request(Guest(), Welcome)

    async def bot_login(self, token: str) -> Welcome:
        return await self.request(BotLogin(token), Welcome)

    async def resume(self, session: str) -> Welcome:
        return await self.request(Resume(session), Welcome)

    # Requests

    @overload
    async def request(self, request: Request) -> Event: ...
    @overload
    async def request(self, request: Request, expect: type[E]) -> E: ...
    async def request(self, request: Request, expect: type[Event] | None = None) -> Event:
        """Send `request` and return its reply (checked to be an `expect` when given); raise
        ArenaError when the server refuses it and ConnectionError when the connection closes
        before the reply."""
        self._check_open()
        (reply,) = await self._answers([self.core.send(request)])
        if isinstance(reply, ErrorReply):
            raise ArenaError(reply)
        if expect is not None and not isinstance(reply, expect):
            raise ProtocolError(
                ErrorCode.BAD_FRAME,
                f"expected {expect.TAG} in reply to {request.TAG}, got {reply.TAG}",
            )
        return reply

    async def resync(self, game_id: str) -> Synced:
        """Catch up on one game (all of it when unknown): its missed events, then `synced`."""
        self._check_open()
        (reply,) = await self._answers([self.core.resync(game_id)])
        if isinstance(reply, ErrorReply):
            raise ArenaError(reply)
        if not isinstance(reply, Synced):
            raise ProtocolError(ErrorCode.BAD_FRAME, f"expected synced, got {reply.TAG}")
        return reply

    async def catch_up(self, game_ids: Iterable[str] = ()) -> None:
        """Resync every followed game still playing and `game_ids`, all at once, and return
        when each is answered; a game the server no longer has is dropped."""
        self._check_open()
        for reply in await self._answers(self.core.catch_up(game_ids)):
            if isinstance(reply, ErrorReply) and reply.code != ErrorCode.NOT_FOUND:
                raise ArenaError(reply)

    def _check_open(self) -> None:
        if self.closed:
            raise ConnectionError("the connection to the server closed")

    async def _answers(self, request_ids: list[int]) -> list[Event]:
        """The replies to the requests just queued as `request_ids`, once the queue is written
        out. Their futures are made before anything is awaited, and nothing awaits between
        `_check_open` and the queueing, so a reply cannot come unawaited and the reader, if it
        ends, fails these too."""
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[Event]] = [loop.create_future() for _ in request_ids]
        self._replies.update(zip(request_ids, futures, strict=True))
        try:
            try:
                await self._flush()
            except ConnectionClosed as closed:
                raise ConnectionError("the connection to the server closed") from closed
            return [await future for future in futures]
        finally:
            for request_id, future in zip(request_ids, futures, strict=True):
                self._replies.pop(request_id, None)
                if future.done() and not future.cancelled():
                    future.exception()  # seen: the reader may have failed it as a send failed
                else:
                    future.cancel()

    async def wait_for(
        self, check: Callable[[ArenaClient], bool], timeout: float | None = 10.0
    ) -> None:
        """Wait until `check(self)` holds, re-checked after every frame and once the connection
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

    def subscribe(
        self, game_id: str | None = None, limit: int = SUBSCRIPTION_LIMIT
    ) -> Subscription:
        """The changes of game `game_id` from now on (every change when None), held for this
        listener up to `limit` (see Subscription). Use it as a context manager, or `close` it."""
        subscription = Subscription(game_id, limit, self._subscriptions.discard)
        if self.closed:
            subscription.end()
        else:
            self._subscriptions.add(subscription)
        return subscription

    # Writing and reading

    async def _flush(self) -> None:
        """Write out the core's queued frames, in the order they were queued."""
        async with self._writing:
            for frame in self.core.data_to_send():
                await self.socket.send(frame)

    def _flush_soon(self) -> None:
        """Write out what the core queued by itself (resyncs), without holding up the reader."""
        task = asyncio.get_running_loop().create_task(self._flush_quietly())
        self._flushes.add(task)
        task.add_done_callback(self._flushes.discard)

    async def _flush_quietly(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._flush()  # a closed connection ends the reader too, which tells

    async def _read(self) -> None:
        try:
            async for frame in self.socket:
                self._deliver(self.core.receive(frame, now=monotonic()))
                if self.core.has_data_to_send:
                    self._flush_soon()
                async with self._changed:
                    self._changed.notify_all()
        except ConnectionClosed:
            pass  # a dropped connection ends the reader like a closed one; `closed` tells
        finally:
            self.core.connection_lost()
            for future in self._replies.values():
                if not future.done():
                    future.set_exception(ConnectionError("the connection to the server closed"))
            for subscription in self._subscriptions:
                subscription.end()
            # Waiters check once more, so that they see the connection is gone.
            async with self._changed:
                self._changed.notify_all()

    def _deliver(self, changes: list[Change]) -> None:
        for change in changes:
            if isinstance(change, Replied | Refused) and change.request.id is not None:
                future = self._replies.get(change.request.id)
                if future is not None and not future.done():
                    future.set_result(change.reply if isinstance(change, Replied) else change.error)
            elif isinstance(change, News):
                if self.news.full():
                    self.news.get_nowait()
                self.news.put_nowait(change.event)
            for subscription in self._subscriptions:
                subscription.offer(change)
