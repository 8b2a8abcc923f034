"""One client's connection: reads frames through the sans-I/O protocol, acts on each request
in order, and writes replies and followed news to the socket at once, without waiting (a client
whose unsent frames pass a bound is disconnected and may resume; it never slows anyone else).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

import msgpack
import structlog
from websockets.asyncio.server import ServerConnection as Socket
from websockets.asyncio.server import broadcast
from websockets.exceptions import ConnectionClosed

from server import identity
from server.clock import now_ms
from server.games import StoredGame, channel, game_of
from server.hub import LOBBY, user_channel
from server.lobby import MAX_SEEKS
from server.logs import REQUEST
from server.protocol import (
    DEFAULT_GAME,
    PROTOCOL_VERSION,
    Abort,
    AcceptChallenge,
    AcceptSeek,
    Analyze,
    BotLogin,
    CancelChallenge,
    CancelQuickPair,
    CancelSeek,
    Challenge,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    ClaimVictory,
    Colour,
    DeclineChallenge,
    ErrorCode,
    ErrorReply,
    Event,
    GameEvent,
    GameList,
    GameStatus,
    Guest,
    ListGames,
    ListOffers,
    ListSeeks,
    Login,
    OfferList,
    Ok,
    Phase,
    Player,
    PlayerKind,
    PlayMove,
    ProtocolError,
    QuickPair,
    Request,
    Resign,
    Resume,
    Resync,
    Seek,
    SeekAdded,
    SeekList,
    SeekRemoved,
    ServerConnection,
    Synced,
    TimeControl,
    Unwatch,
    Watch,
    Welcome,
)
from server.protocol.limits import MAX_OWN_GAMES
from server.worker import workers_ready

if TYPE_CHECKING:
    from server.app import Arena

__all__ = ["Session"]

log = structlog.get_logger(__name__)

SEND_BUFFER = 256 * 1024  # bytes unsent to a client before it is disconnected
TOO_FAR_BEHIND = (1008, "too far behind; reconnect and resync")
TOKEN_REVOKED = (1008, "bot token revoked")
LOGIN_SECONDS = 15.0  # from connecting until a `welcome`, or the connection is closed
RATE = 20.0  # requests per second a connection may keep up
BURST = 60.0  # requests it may send at once

# The handler method of each request type (a name, so that no connection holds bound methods).
HANDLERS: dict[type[Request], str] = {
    Login: "_login",
    BotLogin: "_bot_login",
    Guest: "_guest",
    Resume: "_resume",
    Seek: "_seek",
    CancelSeek: "_cancel_seek",
    ListSeeks: "_list_seeks",
    AcceptSeek: "_accept_seek",
    Challenge: "_challenge",
    AcceptChallenge: "_accept_challenge",
    DeclineChallenge: "_decline_challenge",
    CancelChallenge: "_cancel_challenge",
    QuickPair: "_quick_pair",
    CancelQuickPair: "_cancel_quick_pair",
    ListGames: "_list_games",
    ListOffers: "_list_offers",
    Watch: "_watch",
    Unwatch: "_unwatch",
    PlayMove: "_move",
    Resign: "_resign",
    Abort: "_abort",
    ClaimVictory: "_claim",
    Resync: "_resync",
    Analyze: "_analyze",
}


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
        self.socket = socket
        self.protocol = ServerConnection()
        self.user: Player | None = None
        self.versions: dict[str, int] = {}  # game id -> last event version sent
        self.watching: set[str] = set()
        self.attending: dict[str, Colour | None] = {}  # game -> colour played here, if any
        self.seek_ids: set[str] = set()
        self.channels: set[str] = set()
        self.bucket = TokenBucket(RATE, BURST)
        self.log = log.bind(peer=str(socket.remote_address))
        self.overflowed = False
        self.connection_id = secrets.token_hex(6)
        self.bot_token: str | None = None  # digest of the bot token logged in with, if any
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
        if game_of(channel_name) is not None:
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
        else:
            self.push(data)

    def _token_revoked(self, digest: object) -> None:
        """A token of this user was revoked: end the connection if it logged in with it (the
        news is for servers, never sent on to clients)."""
        if self.bot_token is not None and digest == self.bot_token:
            self.log.info("bot_token_revoked")
            self.arena.spawn(self.socket.close(*TOKEN_REVOKED))

    def _pass_on(self, game_id: str, version: int, data: bytes) -> None:
        """Send a game's event unless it was sent already (a reply may have carried it), so a
        client sees each version once; fetch missing earlier ones from the log first."""
        last = self.versions.get(game_id, 0)
        if version <= last:
            return
        if version > last + 1:
            # Earlier events are still to come from the log (a follow's catch-up under way, or
            # a frame lost by pub/sub): fetch them in order rather than skip them.
            self.arena.spawn(self._catch_up(game_id, last, snapshot=False))
            return
        self.versions[game_id] = version
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
        for game_id in await self.arena.store.games_of(self._me().name):
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
        # Every line logged meanwhile names the game and ply the request is about.
        context = REQUEST.set(
            {k: getattr(request, k) for k in ("game_id", "ply") if hasattr(request, k)}
        )
        try:
            await self._handle(request)
        except ProtocolError as error:
            self.reply(ErrorReply.of(error, id=request.id))
        except Exception:
            self.log.exception("request_failed", request=request.TAG)
            self.reply(
                ErrorReply(ErrorCode.INTERNAL, "the server failed; try again", id=request.id)
            )
        finally:
            REQUEST.reset(context)

    async def _handle(self, request: Request) -> None:
        name = HANDLERS.get(type(request))
        if name is None:
            raise ProtocolError(ErrorCode.UNAVAILABLE, f"{request.TAG} is not offered yet")
        await getattr(self, name)(request)

    # Logging in

    async def _login(self, request: Login) -> None:
        throttle, address = self.arena.login_throttle, self._address()
        wait = await throttle.wait(request.user, address)
        if wait > 0:
            self.log.warning("login_throttled", account=request.user, wait=wait)
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"too many failed logins for {request.user}: try again in {wait} s",
                retry_after=wait,
            )
        account = await identity.authenticate(self.arena.redis, request.user, request.password)
        if account is None:
            await throttle.failed(request.user, address)
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "wrong user name or password")
        await throttle.succeeded(request.user, address)
        await self._welcome(request, account)

    def _address(self) -> str:
        """The client's IP address (the peer's: a proxy in front is seen as the client)."""
        peer = self.socket.remote_address
        return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)

    async def _bot_login(self, request: BotLogin) -> None:
        account = await identity.bot_for_token(self.arena.redis, request.token)
        if account is None:
            raise ProtocolError(
                ErrorCode.BAD_CREDENTIALS,
                "unknown bot token: it was not made on this server's database (`arena token "
                "create` uses the data folder it is run in, or --redis-url), or it was revoked",
            )
        self.bot_token = identity.token_digest(request.token)
        await self._welcome(request, account)

    async def _guest(self, request: Guest) -> None:
        await self._welcome(request, await identity.new_guest(self.arena.redis))

    async def _resume(self, request: Resume) -> None:
        account = await identity.resume_session(self.arena.redis, request.session)
        if account is None:
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "unknown or expired session")
        self.bot_token = await identity.session_origin(self.arena.redis, request.session)
        await self._welcome(request, account, session=request.session)

    async def _welcome(
        self, request: Request, account: identity.Account, session: str | None = None
    ) -> None:
        player = Player(account.name, PlayerKind(account.kind), account.rating)
        if session is None:
            session = await identity.open_session(
                self.arena.redis, account.name, origin=self.bot_token
            )
        self.user = player
        self.log = self.log.bind(user=player.name)
        await self._follow(user_channel(player.name))
        if self.bot_token is not None and not await identity.token_known(
            self.arena.redis, self.bot_token
        ):
            # Revoked after the token was checked and before the follow, which missed the news.
            self.user = None
            await self._unfollow(user_channel(player.name))
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "unknown bot token: it was revoked")
        games = await self.arena.store.games_of(player.name)
        self.reply(
            Welcome(
                PROTOCOL_VERSION,
                session,
                player,
                tuple(games[:MAX_OWN_GAMES]),
                self.arena.offers,
                id=request.id,
            )
        )
        for game_id in games:
            await self.follow_game(game_id, 0, snapshot=True)
        for challenge in await self.arena.lobby.challenges_for(player.name):
            self.push(ChallengeAdded(challenge).to_wire())
        self.log.info("logged_in", kind=str(player.kind))

    # Following channels and games

    async def _follow(self, name: str) -> None:
        if name not in self.channels:
            self.channels.add(name)
            try:
                await self.arena.hub.follow(name, self)
            except BaseException:
                self.channels.discard(name)
                raise

    async def _unfollow(self, name: str) -> None:
        if name in self.channels:
            self.channels.discard(name)
            await self.arena.hub.unfollow(name, self)

    async def follow_game(self, game_id: str, version: int, snapshot: bool = False) -> None:
        """Follow a game's channel, then send what the client misses after `version`: the
        logged events, or one snapshot. Subscribing first means no event falls in between."""
        await self._follow(channel(game_id))
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
        colour = game.colour_of(self._me().name)
        if colour is not None and game.status is GameStatus.PLAYING:
            self.attending[game_id] = colour
            await self.arena.store.attend(
                game_id, colour, self.connection_id, present=True, now=now_ms()
            )

    async def _catch_up(self, game_id: str, version: int, snapshot: bool) -> None:
        store = self.arena.store
        if snapshot:
            await self._send_state(await store.load(game_id))
            return
        frames = await store.events_since(game_id, version)
        for index, frame in enumerate(frames, start=version + 1):
            if index > self.versions.get(game_id, 0):
                self.versions[game_id] = index
                self.push(frame)

    async def _send_state(self, game: StoredGame, request_id: int | None = None) -> None:
        """Send a game's state; the client now knows the game up to its version. An event newer
        than the state that went out just before it (published while the state was read) is
        sent again after it."""
        pushed = self.versions.get(game.game_id, 0)
        self.versions[game.game_id] = game.version
        self.reply(replace(game.snapshot(now_ms()), id=request_id))
        if pushed > game.version:
            await self._catch_up(game.game_id, game.version, snapshot=False)

    # Lobby

    def _me(self) -> Player:
        assert self.user is not None
        return self.user

    def _check_terms(self, game: str, setup: str | None, time: TimeControl, rated: bool) -> str:
        """The setup to play (the game's default when none is named), once the game, setup and
        time control are found offered and a guest asks for no rated game."""
        chosen = self.arena.offered.terms(game).check(setup, time)
        if rated and self._me().kind is PlayerKind.GUEST:
            raise ProtocolError(ErrorCode.FORBIDDEN, "guests play casual games only")
        return chosen

    async def _list_offers(self, request: ListOffers) -> None:
        offers = self.arena.offered.every_game_offers(self.arena.offers)
        self.reply(OfferList(offers, id=request.id))

    async def _seek(self, request: Seek) -> None:
        setup = self._check_terms(request.game, request.setup, request.time, request.rated)
        # Seeks taken by others or expired no longer count.
        self.seek_ids = await self.arena.lobby.open_seeks(self.seek_ids)
        if len(self.seek_ids) >= MAX_SEEKS:
            raise ProtocolError(ErrorCode.CONFLICT, f"at most {MAX_SEEKS} open seeks at a time")
        seek = await self.arena.lobby.add_seek(
            self._me(),
            game=request.game,
            setup=setup,
            time=request.time,
            rated=request.rated,
            colour=request.colour,
            now=now_ms(),
        )
        self.seek_ids.add(seek.seek_id)
        self.reply(SeekAdded(seek, id=request.id))

    async def _cancel_seek(self, request: CancelSeek) -> None:
        seek = await self.arena.lobby.peek_seek(request.seek_id, now_ms())
        if seek is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no open seek {request.seek_id}")
        if seek.player.name != self._me().name:
            raise ProtocolError(ErrorCode.FORBIDDEN, "that seek is not yours")
        await self.arena.lobby.take_seek(request.seek_id)
        self.seek_ids.discard(request.seek_id)
        self.reply(SeekRemoved(request.seek_id, id=request.id))

    async def _list_seeks(self, request: ListSeeks) -> None:
        await self._follow(LOBBY)
        seeks = await self.arena.lobby.seeks(now_ms())
        self.reply(SeekList(tuple(seeks[:500]), id=request.id))

    async def _accept_seek(self, request: AcceptSeek) -> None:
        me, lobby = self._me(), self.arena.lobby
        seek = await lobby.peek_seek(request.seek_id, now_ms())
        if seek is None:
            await self._seek_gone(request.seek_id)
        if seek.player.name == me.name:
            raise ProtocolError(ErrorCode.FORBIDDEN, "you cannot accept your own seek")
        if seek.rated and me.kind is PlayerKind.GUEST:
            raise ProtocolError(ErrorCode.FORBIDDEN, "guests play casual games only")
        if await lobby.take_seek(request.seek_id, taker=me.name) is None:
            await self._seek_gone(request.seek_id)
        started = await self.arena.start_game(
            seek.player,
            me,
            seek.colour,
            game=seek.game,
            setup=seek.setup,
            time=seek.time,
            rated=seek.rated,
        )
        await self._started(started, request)

    async def _seek_gone(self, seek_id: str) -> NoReturn:
        """Refuse a seek that is not open: `conflict` if someone accepted it, else
        `not_found` (never made, cancelled, or lapsed)."""
        if await self.arena.lobby.taker(seek_id) is not None:
            raise ProtocolError(ErrorCode.CONFLICT, f"seek {seek_id} was already taken")
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no open seek {seek_id}")

    async def _started(self, started: GameEvent, request: Request) -> None:
        self.versions[started.game_id] = max(self.versions.get(started.game_id, 0), 1)
        await self._follow(channel(started.game_id))
        self.reply(replace(started, id=request.id))
        await self._catch_up(started.game_id, 1, snapshot=False)
        await self._attend(started.game_id)

    async def _challenge(self, request: Challenge) -> None:
        me = self._me()
        setup = self._check_terms(request.game, request.setup, request.time, request.rated)
        house = self.arena.house_bot(request.opponent)
        if house is not None:
            self.arena.offered.terms(request.game).check_house_bot(house.name)
            if not await workers_ready(self.arena.redis, now_ms()):
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE,
                    "no house-bot worker is ready (one may still be starting); try again soon",
                    retry_after=10,
                )
            started = await self.arena.start_game(
                me,
                house,
                request.colour,
                game=request.game,
                setup=setup,
                time=request.time,
                rated=False,
                house_spec=self.arena.house_spec(request.opponent, request.strength),
            )
            await self._started(started, request)
            return
        if request.strength is not None:
            raise ProtocolError(
                ErrorCode.BAD_FIELD, "strength is for house bots only", field="strength"
            )
        account = await identity.find(self.arena.redis, request.opponent)
        if account is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no user or house bot {request.opponent}")
        if account.name.lower() == me.name.lower():
            raise ProtocolError(ErrorCode.FORBIDDEN, "you cannot challenge yourself")
        opponent = Player(account.name, PlayerKind(account.kind), account.rating)
        if request.rated and opponent.kind is PlayerKind.GUEST:
            raise ProtocolError(ErrorCode.FORBIDDEN, "guests play casual games only")
        info = ChallengeInfo(
            self.arena.new_id(),
            me,
            opponent,
            setup,
            request.time,
            request.rated,
            request.colour,
            request.game,
        )
        info = await self.arena.lobby.add_challenge(info)
        self.reply(ChallengeAdded(info, id=request.id))

    async def _accept_challenge(self, request: AcceptChallenge) -> None:
        lobby = self.arena.lobby
        info = await lobby.challenge(request.challenge_id)
        if info.opponent.name.lower() != self._me().name.lower():
            raise ProtocolError(ErrorCode.FORBIDDEN, "that challenge is not addressed to you")
        if (
            await lobby.close_challenge(
                request.challenge_id, ChallengeOutcome.ACCEPTED, by=self._me().name
            )
            is None
        ):
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no open challenge {request.challenge_id}")
        started = await self.arena.start_game(
            info.challenger,
            self._me(),
            info.colour,
            game=info.game,
            setup=info.setup,
            time=info.time,
            rated=info.rated,
        )
        await self._started(started, request)

    async def _decline_challenge(self, request: DeclineChallenge) -> None:
        await self._close_challenge(request.challenge_id, ChallengeOutcome.DECLINED, request)

    async def _cancel_challenge(self, request: CancelChallenge) -> None:
        await self._close_challenge(request.challenge_id, ChallengeOutcome.CANCELLED, request)

    async def _close_challenge(
        self, challenge_id: str, outcome: ChallengeOutcome, request: Request
    ) -> None:
        lobby = self.arena.lobby
        info = await lobby.challenge(challenge_id)
        mine = info.challenger if outcome is ChallengeOutcome.CANCELLED else info.opponent
        if mine.name.lower() != self._me().name.lower():
            whose = "yours" if outcome is ChallengeOutcome.CANCELLED else "addressed to you"
            raise ProtocolError(ErrorCode.FORBIDDEN, f"that challenge is not {whose}")
        if await lobby.close_challenge(challenge_id, outcome, by=self._me().name) is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no open challenge {challenge_id}")
        self.reply(ChallengeRemoved(challenge_id, outcome, id=request.id))

    async def _quick_pair(self, request: QuickPair) -> None:
        setup = self._check_terms(request.game, request.setup, request.time, request.rated)
        await self.arena.lobby.join_pool(
            self._me(), request.game, setup, request.time, request.rated, now_ms()
        )
        self.reply(Ok(id=request.id))
        self.arena.wake_pairing()

    async def _cancel_quick_pair(self, request: CancelQuickPair) -> None:
        if not await self.arena.lobby.leave_pools(self._me().name):
            raise ProtocolError(ErrorCode.NOT_FOUND, "not waiting for quick pairing")
        self.reply(Ok(id=request.id))

    async def _list_games(self, request: ListGames) -> None:
        games = await self.arena.store.live_games(now_ms())
        self.reply(GameList(tuple(games[:500]), id=request.id))

    # Games

    async def _watch(self, request: Watch) -> None:
        game = await self.arena.store.load(request.game_id)
        await self._follow(channel(game.game_id))
        if game.colour_of(self._me().name) is None and game.game_id not in self.watching:
            self.watching.add(game.game_id)
            await self.arena.store.count_spectator(game.game_id, +1)
        await self._send_state(await self.arena.store.load(request.game_id), request.id)

    async def _unwatch(self, request: Unwatch) -> None:
        if request.game_id not in self.watching:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"not watching game {request.game_id}")
        self.watching.discard(request.game_id)
        await self.arena.store.count_spectator(request.game_id, -1)
        await self._unfollow(channel(request.game_id))
        self.reply(Ok(id=request.id))

    def _lag_ms(self) -> int:
        return int(self.socket.latency * 1000)

    async def _move(self, request: PlayMove) -> None:
        store, name = self.arena.store, self._me().name
        started = time.perf_counter()
        await self._act(
            request,
            store.play(request.game_id, name, request.ply, request.move, now_ms(), self._lag_ms()),
        )
        self.arena.metrics.moved(time.perf_counter() - started)

    async def _resign(self, request: Resign) -> None:
        await self._act(
            request, self.arena.store.resign(request.game_id, self._me().name, now_ms())
        )

    async def _abort(self, request: Abort) -> None:
        await self._act(request, self.arena.store.abort(request.game_id, self._me().name, now_ms()))

    async def _claim(self, request: ClaimVictory) -> None:
        await self._act(request, self.arena.store.claim(request.game_id, self._me().name, now_ms()))

    async def _act(
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
        self.held = None
        first, *rest = events
        for version, data in sorted(held):
            if version < first.version:
                self._pass_on(game_id, version, data)
        self.versions[game_id] = max(self.versions.get(game_id, 0), first.version)
        self.reply(replace(first, id=request.id))
        later = {event.version: event.to_wire() for event in rest}
        later.update((version, data) for version, data in held if version > first.version)
        for version in sorted(later):
            self._pass_on(game_id, version, later[version])

    async def _resync(self, request: Resync) -> None:
        """Replay what the client misses after its version; a version past the game's (which
        the client cannot have) gets the game's state instead, then anything newer."""
        game_id = request.game_id
        game = await self.arena.store.load(game_id)
        await self._follow(channel(game_id))
        ahead = request.version > game.version
        if ahead:
            self.push(game.snapshot(now_ms()).to_wire())
        since = game.version if ahead else request.version
        frames = await self.arena.store.events_since(game_id, since)
        for frame in frames:
            self.push(frame)
        last = since + len(frames)
        # After a state the client knows exactly `last`; after a replay, perhaps more already.
        self.versions[game_id] = last if ahead else max(self.versions.get(game_id, 0), last)
        self.reply(Synced(game_id, last, id=request.id))

    async def _analyze(self, request: Analyze) -> None:
        if (request.position is None) == (request.game_id is None):
            raise ProtocolError(
                ErrorCode.BAD_FIELD, "analyze takes either position or game_id", field="position"
            )
        if request.position is not None:
            text, game_name = request.position, DEFAULT_GAME
        else:
            assert request.game_id is not None
            game = await self.arena.store.load(request.game_id)
            ply = game.ply if request.ply is None else request.ply
            if ply > game.ply:
                raise ProtocolError(
                    ErrorCode.BAD_FIELD,
                    f"ply {ply} is past the end of game {game.game_id} ({game.ply} moves)",
                    field="ply",
                )
            text, game_name = game.state_at(ply).text(), game.game
        analysis = await self.arena.analyst.analyze(text, game_name)
        self.reply(replace(analysis, id=request.id))

    # Leaving

    async def _leave(self) -> None:
        with contextlib.suppress(Exception):
            for name in tuple(self.channels):
                await self._unfollow(name)
            lobby = self.arena.lobby
            for seek_id in tuple(self.seek_ids):
                await lobby.take_seek(seek_id)
            if self.user is not None:
                await lobby.leave_pools(self.user.name)
            for game_id in self.watching:
                await self.arena.store.count_spectator(game_id, -1)
            for game_id, colour in self.attending.items():
                if colour is not None:
                    await self.arena.store.attend(
                        game_id, colour, self.connection_id, present=False, now=now_ms()
                    )
        self.arena.sessions.discard(self)
        self.log.info("disconnected")


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
