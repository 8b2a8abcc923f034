"""One client's connection: reads frames through the sans-I/O protocol, hands each request in
order to its handler (server.handlers), and writes replies and followed news to the socket at
once, without waiting (a client whose unsent frames pass a bound is disconnected and may
resume; it never slows anyone else). Handlers see a session only as the narrow connection
of their area (server.handlers.Connection); following games, catching up and holding a game's
frames while the connection's own action on it commits stay here.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Set
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import msgpack
import structlog
from websockets.asyncio.server import ServerConnection as Socket
from websockets.asyncio.server import broadcast
from websockets.exceptions import ConnectionClosed

from server import identity
from server.clock import now_ms
from server.games import StoredGame, channel, game_of
from server.logs import REQUEST
from server.protocol import (
    Abort,
    Analyze,
    ClaimVictory,
    Colour,
    ErrorCode,
    ErrorReply,
    Event,
    GameEvent,
    GameSnapshot,
    GameStatus,
    Phase,
    Player,
    PlayMove,
    ProtocolError,
    Request,
    Resign,
    ServerConnection,
    Spectators,
)

if TYPE_CHECKING:
    from server.app import Arena

__all__ = ["Session"]

log = structlog.get_logger(__name__)

SEND_BUFFER = 256 * 1024  # bytes unsent to a client before it is disconnected
TOO_FAR_BEHIND = (1008, "too far behind; reconnect and resync")
TOKEN_REVOKED = (1008, "bot token revoked")
SESSION_ENDED = (
    1008,
    "session ended: the password changed, the session was ended or the account deleted; log in "
    "again",
)
LOGIN_SECONDS = 15.0  # from connecting until a `welcome`, or the connection is closed
RATE = 20.0  # requests per second a connection may keep up
BURST = 60.0  # requests it may send at once


class TokenBucket:
    """A request allowance refilled at `rate` per second up to `burst`."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> float:
        """0 when a request may go ahead now, else the seconds until it may."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class Session:
    """The server side of one websocket."""

    def __init__(self, arena: Arena, socket: Socket) -> None:
        self.arena = arena
        self.dispatch = arena.dispatch
        self.socket = socket
        self.protocol = ServerConnection(signups=arena.signups is not None)
        self.user: Player | None = None
        self.versions: dict[str, int] = {}  # game id -> last event version sent
        # game id -> that event as logged, when known: what the log must still have there
        # (a reply's event, encoded only if a failover makes it compared).
        self.tails: dict[str, bytes | GameEvent] = {}
        self.watching: set[str] = set()
        self.attending: dict[str, Colour | None] = {}  # game -> colour played here, if any
        self.seek_ids: set[str] = set()
        self.ladders: dict[str, int] = {}  # ladders joined here -> games at once
        self.analyses: set[asyncio.Task[None]] = set()  # `analyze` requests being answered
        self.channels: set[str] = set()
        self.bucket = TokenBucket(RATE, BURST)
        self.log = log.bind(peer=str(socket.remote_address))
        self.overflowed = False
        self.connection_id = secrets.token_hex(6)
        self.bot_token: str | None = None  # digest of the bot token logged in with, if any
        self.session: str | None = None  # digest of the session it holds, once welcomed
        # While this connection's own action on a game is being committed, that game's
        # published frames wait here, so the reply goes out first and each version once.
        self.held: tuple[str, list[tuple[int, bytes]]] | None = None

    # Running

    async def run(self) -> None:
        deadline = asyncio.get_running_loop().call_later(
            self.arena.login_seconds, self._login_overdue
        )
        try:
            async for frame in self.socket:
                await self._receive(frame)
                if self.protocol.phase is Phase.CLOSING or self.overflowed:
                    break
            if self.overflowed:
                await self.socket.close(*TOO_FAR_BEHIND)
        except ConnectionClosed:
            pass
        finally:
            deadline.cancel()
            await self._leave()

    def _login_overdue(self) -> None:
        if self.user is None:
            seconds = f"{self.arena.login_seconds:g}"
            self.log.info("login_overdue")
            self.arena.spawn(self.socket.close(1008, f"no login within {seconds} s of connecting"))

    def push(self, frame: bytes) -> None:
        """Write a frame to the socket now, in order with every other; a client that has
        more than SEND_BUFFER bytes still unsent is cut off (it may resume and resync)."""
        if self.overflowed:
            return
        if self.socket.transport.get_write_buffer_size() > SEND_BUFFER:
            self.overflowed = True
            self.log.warning("send_buffer_full")
            self.arena.spawn(self.socket.close(*TOO_FAR_BEHIND))
            return
        # One write, no task switch: websockets' broadcast() to this one socket (a socket no
        # longer open is skipped, as a send to it would fail).
        broadcast((self.socket,), frame)

    def reply(self, event: Event) -> None:
        self.protocol.send(event)
        for frame in self.protocol.data_to_send():
            self.push(frame)

    def deliver(self, channel_name: str, data: bytes, event: dict[str, Any]) -> None:
        """A frame published on a followed channel, and its map."""
        if game_of(channel_name) is not None and event.get("t") == Spectators.TAG:
            self.push(data)  # news of the game, not one of its events: no version to keep
        elif game_of(channel_name) is not None:
            try:
                game_id, version = event["game_id"], event["version"]
            except KeyError:
                self.log.error("bad_published_frame", channel=channel_name)
                return
            if self.held is not None and self.held[0] == game_id:
                self.held[1].append((version, data))
            else:
                self._pass_on(game_id, version, data)
        elif channel_name.startswith("user:") and event.get("t") == "game_started":
            # A game of ours started elsewhere (a seek taken, a pairing): follow it.
            self.arena.spawn(self._follow_started(event["game_id"]))
        elif channel_name.startswith("user:") and event.get("t") == identity.TOKEN_REVOKED:
            self._token_revoked(event.get("token"))
        elif channel_name.startswith("user:") and event.get("t") == identity.SESSIONS_ENDED:
            self._sessions_ended(event.get("sessions"))
        else:
            self.push(data)

    def _token_revoked(self, digest: object) -> None:
        """A token of this user was revoked: end the connection if it logged in with it (the
        news is for servers, never sent on to clients)."""
        if self.bot_token is not None and digest == self.bot_token:
            self.log.info("bot_token_revoked")
            self.arena.spawn(self.socket.close(*TOKEN_REVOKED))

    def _sessions_ended(self, digests: object) -> None:
        """Sessions of this user were ended: end the connection if it holds one (the news is
        for servers, never sent on to clients)."""
        if isinstance(digests, list) and self.session in digests:
            self.log.info("session_ended")
            self.arena.spawn(self.socket.close(*SESSION_ENDED))

    def _pass_on(self, game_id: str, version: int, data: bytes) -> None:
        """Send a game's event unless it was sent already (a reply may have carried it), so a
        client sees each version once; fetch missing earlier ones from the log first. A
        state logged under a new epoch (`GameStore.rebase`) goes out whatever was sent before:
        it replaces what the store lost."""
        last = self.versions.get(game_id, 0)
        if _logged_state(data):
            if self.tails.get(game_id) != data:
                self._sent(game_id, version, data)
            return
        if version <= last:
            return
        if version > last + 1:
            # Earlier events are still to come from the log (a follow's catch-up under way, or
            # a frame lost by pub/sub): fetch them in order rather than skip them.
            self.arena.spawn(self._catch_up(game_id, last, snapshot=False))
            return
        self._sent(game_id, version, data)

    def _sent(self, game_id: str, version: int, data: bytes) -> None:
        self.versions[game_id] = version
        self.tails[game_id] = data
        self.push(data)

    def missed(self, channel_name: str) -> None:
        """Frames published on a followed channel may have been lost: send the game's events
        since the last one sent, or follow the user's games that started meanwhile."""
        game_id = game_of(channel_name)
        if game_id is not None:
            version = self.versions.get(game_id, 0)
            self.arena.spawn(self._catch_up(game_id, version, snapshot=False))
        elif channel_name.startswith("user:") and self.user is not None:
            self.arena.spawn(self._follow_own_games())

    async def _follow_own_games(self) -> None:
        for game_id in await self.arena.store.games_of(self.me().name):
            if channel(game_id) not in self.channels:
                await self._follow_started(game_id)

    async def _receive(self, frame: bytes | str) -> None:
        wait = self.bucket.take()
        if wait > 0:
            self.arena.metrics.rate_limited += 1
            reply = ErrorReply(
                ErrorCode.RATE_LIMITED,
                f"too many requests: at most {RATE:g} a second",
                retry_after=max(1, round(wait + 0.5)),
                id=_request_id(frame),
            )
            self.reply(reply)
            return
        request = self.protocol.receive(frame)
        for data in self.protocol.data_to_send():
            self.push(data)
        if request is None:
            return
        if isinstance(request, Analyze):
            # The engine may take seconds (more for its first request, which starts its
            # process): the connection's other frames, and its closing, do not wait for it.
            task = asyncio.create_task(self._handle(request))
            self.analyses.add(task)
            task.add_done_callback(self.analyses.discard)
            return
        await self._handle(request)

    async def _handle(self, request: Request) -> None:
        # Every line logged meanwhile names the game and ply the request is about.
        context = REQUEST.set(
            {k: getattr(request, k) for k in ("game_id", "ply") if hasattr(request, k)}
        )
        try:
            # The request's handler, by its type (server.handlers: one for each, checked).
            await self.dispatch[type(request)](self, request)
        except ProtocolError as error:
            self.reply(ErrorReply.of(error, id=request.id))
        except Exception:
            self.log.exception("request_failed", request=request.TAG)
            self.reply(
                ErrorReply(ErrorCode.INTERNAL, "the server failed; try again", id=request.id)
            )
        finally:
            REQUEST.reset(context)

    # For the handlers (with reply, push, follow, follow_game, send_state and act)

    def me(self) -> Player:
        """The logged-in player (every request after the login has one)."""
        assert self.user is not None
        return self.user

    def address(self) -> str:
        """The client's IP address (the peer's: a proxy in front is seen as the client)."""
        peer = self.socket.remote_address
        return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)

    def lag_ms(self) -> int:
        return int(self.socket.latency * 1000)

    async def started(self, started: GameEvent, request: Request) -> None:
        """Follow a game this connection's request started, replying with its start."""
        self.versions[started.game_id] = max(self.versions.get(started.game_id, 0), 1)
        await self.follow(channel(started.game_id))
        self.reply(replace(started, id=request.id))
        await self._catch_up(started.game_id, 1, snapshot=False)
        await self._attend(started.game_id)

    # Following channels and games

    async def follow(self, name: str) -> None:
        if name not in self.channels:
            self.channels.add(name)
            try:
                await self.arena.hub.follow(name, self)
            except BaseException:
                self.channels.discard(name)
                raise

    async def unfollow(self, name: str) -> None:
        if name in self.channels:
            self.channels.discard(name)
            await self.arena.hub.unfollow(name, self)

    async def forget_ended(self, ended: Set[str]) -> None:
        """Stop following and attending the games of `ended`, which have ended: nothing more
        comes on their channels, and while a connection follows one Redis keeps its
        subscription (and its process renews the attendance) for as long as it stays."""
        for game_id in ended:
            self.attending.pop(game_id, None)
            await self.unfollow(channel(game_id))

    async def follow_game(self, game_id: str, version: int, snapshot: bool = False) -> None:
        """Follow a game's channel, then send what the client misses after `version`: the
        logged events, or one snapshot. Subscribing first means no event falls in between."""
        await self.follow(channel(game_id))
        await self._catch_up(game_id, version, snapshot)
        await self._attend(game_id)

    async def _follow_started(self, game_id: str) -> None:
        """Follow a game that started elsewhere; if that fails, drop the connection so the
        client resumes and gets the game with its `welcome`, rather than never hearing of it."""
        try:
            await self.follow_game(game_id, 0)
        except Exception:
            self.log.exception("follow_failed", game_id=game_id)
            await self.socket.close(1011, "server error; resume to catch up")

    async def _attend(self, game_id: str) -> None:
        """Count this connection as present in a game the user plays."""
        if game_id in self.attending:
            return
        # Claimed before the first await, so a second follow of the same game counts nothing.
        self.attending[game_id] = None
        game = await self.arena.store.load(game_id)
        colour = game.colour_of(self.me().name)
        if colour is not None and game.status is GameStatus.PLAYING:
            self.attending[game_id] = colour
            await self.arena.store.attend(
                game_id, colour, self.connection_id, present=True, now=now_ms()
            )

    async def _catch_up(self, game_id: str, version: int, snapshot: bool) -> None:
        store = self.arena.store
        if snapshot:
            await self.send_state(await store.load(game_id))
            return
        # From the last event sent, to check that the log still has it.
        frames = await store.events_since(game_id, max(version - 1, 0))
        if version > 0:
            if await self._lost(game_id, version, frames[0] if frames else None):
                await self._take_store_state(game_id)
                return
            frames = frames[1:]
        for index, frame in enumerate(frames, start=version + 1):
            if self.held is not None and self.held[0] == game_id:
                # An action on the game is under way: its reply carries its own event, which
                # the log may have already, so the frames go through `act` (see `deliver`).
                self.held[1].append((index, frame))
            elif index > self.versions.get(game_id, 0) or _logged_state(frame):
                self._pass_on(game_id, index, frame)

    async def _lost(self, game_id: str, version: int, logged: bytes | None) -> bool:
        """Whether the game's store has lost event `version`, sent to this connection (the
        log read from there begins with `logged`): the game is now at an earlier version, or
        its log has another event there than the one sent."""
        if logged is None:
            # No event there: the store is behind, or the log has left Redis with the game.
            try:
                return (await self.arena.store.load(game_id)).version < version
            except ProtocolError:
                return False  # gone (no history store): nothing to catch up with
        sent = self.tails.get(game_id) if self.versions.get(game_id) == version else None
        if isinstance(sent, GameEvent):
            sent = self.tails[game_id] = sent.to_wire()
        return sent is not None and sent != logged

    async def _take_store_state(self, game_id: str) -> None:
        """The store lost events this connection was sent: send its state, under a new epoch
        (which the client takes over its own), and go on from there."""
        game, logged = await self.arena.store.rebase(game_id, now_ms())
        self.log.warning("game_state_lost", game_id=game_id, sent=self.versions.get(game_id))
        if logged is None:
            await self.send_state(game)
        else:
            self._sent(game_id, game.version, logged)

    async def send_state(self, game: StoredGame, request_id: int | None = None) -> None:
        """Send a game's state; the client now knows the game up to its version. An event newer
        than the state that went out just before it (published while the state was read) is
        sent again after it."""
        pushed = self.versions.get(game.game_id, 0)
        self.versions[game.game_id] = game.version
        self.tails.pop(game.game_id, None)  # not the event logged at that version
        self.reply(replace(game.snapshot(now_ms()), id=request_id))
        if pushed > game.version:
            await self._catch_up(game.game_id, game.version, snapshot=False)

    # Acting on games

    async def act(
        self, request: PlayMove | Resign | Abort | ClaimVictory, action: Awaitable[list[GameEvent]]
    ) -> None:
        """Commit an action on a game and reply with its first event, the rest following as
        news. The game's frames published meanwhile are held and then sent in version order
        around the reply, each version once (the reply carries its own)."""
        game_id = request.game_id
        held: list[tuple[int, bytes]] = []
        self.held = (game_id, held)
        try:
            events = await action
        except BaseException:
            self.held = None
            for version, data in held:
                self._pass_on(game_id, version, data)
            raise
        first, *rest = events
        await self._fill_before(game_id, first.version)
        self.held = None
        for version, data in sorted(held):
            if version < first.version:
                self._pass_on(game_id, version, data)
        if first.version >= self.versions.get(game_id, 0):
            self.versions[game_id] = first.version
            self.tails[game_id] = first
        self.reply(replace(first, id=request.id))
        later = {event.version: event.to_wire() for event in rest}
        later.update((version, data) for version, data in held if version > first.version)
        for version in sorted(later):
            self._pass_on(game_id, version, later[version])

    async def _fill_before(self, game_id: str, version: int) -> None:
        """Send from the log the game's events before `version` that this connection has not
        had (their frames lost, as in a failover, and their catch-up still to come), before a
        reply carrying `version` would pass them by. The game's frames are held meanwhile."""
        last = self.versions.get(game_id, 0)
        if last >= version - 1:
            return
        try:
            frames = await self.arena.store.events_since(game_id, last)
        except Exception:
            # The reply goes out all the same; the client's resync fills the gap.
            self.log.warning("gap_not_filled", game_id=game_id, since=last, before=version)
            return
        for index, frame in enumerate(frames[: version - 1 - last], start=last + 1):
            self._sent(game_id, index, frame)

    # Leaving

    async def _leave(self) -> None:
        for task in self.analyses:
            task.cancel()
        with contextlib.suppress(Exception):
            for name in tuple(self.channels):
                await self.unfollow(name)
            lobby = self.arena.lobby
            for seek_id in tuple(self.seek_ids):
                await lobby.take_seek(seek_id)
            if self.user is not None:
                await lobby.leave_pools(self.user.name)
                for ladder in self.ladders:
                    await self.arena.ladders.leave(ladder, self.user.name, self.connection_id)
            for game_id in self.watching:
                await self.arena.store.count_spectator(game_id, -1)
            for game_id, colour in self.attending.items():
                if colour is not None:
                    await self.arena.store.attend(
                        game_id, colour, self.connection_id, present=False, now=now_ms()
                    )
        self.arena.sessions.discard(self)
        self.log.info("disconnected")


def _logged_state(frame: bytes) -> bool:
    """Whether a game's logged frame is a `game_state` (only `GameStore.rebase` logs one),
    read without decoding it: the map's first key is "t", after a header of 1 to 3 bytes."""
    return _STATE_TAG in frame[:16]


_STATE_TAG = msgpack.packb("t") + msgpack.packb(GameSnapshot.TAG)


def _request_id(frame: bytes | str) -> int | None:
    """The id of a frame refused before it was read, if it has a readable one."""
    if isinstance(frame, str):
        return None
    try:
        message = msgpack.unpackb(frame)
    except Exception:
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if isinstance(request_id, int) and 0 <= request_id < 2**32 else None
