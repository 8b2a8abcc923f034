"""One server process: the websocket endpoint (and on the same port `GET /healthz`, `GET
/metrics` and the web client's page and files, `server/web/`), the connections it holds, and
the background duties any process may do for the shared Redis: ending games whose time is up,
pairing the quick-pairing pools, keeping its seeks and its bots' ladder memberships alive, and
scheduling the ladders while it holds their lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import sys
import time
import weakref
from collections.abc import Coroutine, Iterable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
import structlog
from redis import exceptions as redis_errors
from websockets.asyncio.server import Server
from websockets.asyncio.server import ServerConnection as Socket
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from server.analysis_queue import AnalysisLimits, AnalysisQueue
from server.clock import now_ms
from server.collector import Freezer
from server.game_index import BUCKETS
from server.games import (
    ATTENDANCE_MS,
    CLAIM_GRACE_MS,
    ENDED_WINDOW_SECONDS,
    GameStore,
    game_of,
    warm_engine,
)
from server.handlers import (
    AccountServices,
    AnalysisServices,
    BotsServices,
    Dispatch,
    LadderServices,
    LobbyServices,
    PlayersServices,
    PlayServices,
    dispatch,
)
from server.ladder.scheduler import LEASE_MS, ROUND_SECONDS, Scheduler
from server.ladder.store import MEMBERSHIP_MS, LadderStore
from server.lane import LaneCluster
from server.lobby import SEEK_TTL_MS, Lobby
from server.metrics import ServerMetrics, respond
from server.offers import DEFAULT_TIME_CONTROLS, Offered, TimeControls
from server.outage import HEARTBEAT_MS, Heartbeat
from server.protocol import (
    ColourPreference,
    GameStarted,
    HouseBots,
    Player,
    PlayerKind,
    TimeControl,
)
from server.ratings import player_in
from server.readiness import house_bots, in_daemon_thread
from server.session import LOGIN_SECONDS, Session
from server.throttle import LoginLimits, LoginThrottle, SignupLimits, SignupThrottle
from server.web import Origins, Site, pictures
from server.worker import HOUSE_BOTS

if TYPE_CHECKING:
    from server.db import Database

__all__ = ["HOUSE_STRENGTH", "Arena", "house_spec"]

log = structlog.get_logger(__name__)

SWEEP_SECONDS = 0.1  # how often this process looks for games whose time is up
HOUSE_BOTS_SECONDS = 1.0  # how often it reads which house bots are ready, to tell clients
PAIR_SECONDS = 1.0  # how often the quick-pairing pools are matched
# How often it hands over to the database the ended games left on the hand-over set (those a
# house-bot worker ended, or a stopped process did not hand over): a rating waits at most this.
HANDOVER_SECONDS = 2.0
# How often it puts right the game indexes of one bucket (server/game_index.py) from its games:
# what a process stopped between a commit and its index writes left undone is done within
# BUCKETS times this.
REPAIR_SECONDS = 2.0
CANCEL_AGAIN_SECONDS = 0.5  # how long a closing process waits on a cancelled task before again
HOUSE_STRENGTH = 5  # a house bot's strength when a challenge names none


# The loop's turns from a socket accepted to its connection's handler: the accept's task makes the
# transport, which makes the connection on the next turn, which starts the handler.
ACCEPT_TURNS = 3


async def stop_serving(server: Server) -> None:
    """Stop accepting, let the sockets already accepted become connections, then close `server`,
    which answers them (a websocket handshake with 503) and waits for every handler.

    Closing at once lost those sockets: on Python 3.11, asyncio sets up an accepted socket's
    transport a turn after accepting it and fails (an assertion) when the server has closed
    meanwhile, leaving the socket open and unanswered until the process ends."""
    loop = asyncio.get_running_loop()
    for listening in server.sockets:
        loop.remove_reader(listening.fileno())
    for _ in range(ACCEPT_TURNS):
        await asyncio.sleep(0)
    server.close()
    await server.wait_closed()


def house_spec(bot: str, strength: int) -> str:
    """How a game stores a house player: the bot's name and its strength 1..10."""
    return f"{bot}@{strength}"


# A background loop's turn that fails on these met a Redis it cannot reach (restarting, or a
# cluster failing over): said in one line each turn, not with a traceback; the next turn tries
# again.
REDIS_UNREACHABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    OSError,
)


def _turn_failed(event: str, **fields: object) -> None:
    """Log the exception being handled, which failed a background loop's turn."""
    error = sys.exc_info()[1]
    if isinstance(error, REDIS_UNREACHABLE):
        log.warning(event, error=f"{type(error).__name__}: {error}", **fields)
    else:
        log.exception(event, **fields)


class Arena:
    """The state one process holds (connections, subscriptions) and its background tasks;
    everything about games and the lobby is in Redis."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        claim_grace_ms: int = CLAIM_GRACE_MS,
        attendance_ms: int = ATTENDANCE_MS,
        login_seconds: float = LOGIN_SECONDS,
        time_controls: TimeControls | None = None,
        offered: Offered | None = None,
        login_limits: LoginLimits | None = None,
        ladder_round_seconds: float = ROUND_SECONDS,
        ladder_lease_ms: int = LEASE_MS,
        allowed_origins: Iterable[str] = (),
        database: Database | None = None,
        ended_window_ms: int = ENDED_WINDOW_SECONDS * 1000,
        signups: bool = True,
        signup_limits: SignupLimits | None = None,
        freezer: Freezer | None = None,
        analysis_limits: AnalysisLimits | None = None,
    ) -> None:
        """`offered` sets what is offered game by game; by default every registered game with
        its every setup, the house bots that play it and `time_controls`. The ladders play a
        round every `ladder_round_seconds` under a lease of `ladder_lease_ms`.
        `allowed_origins` are the web pages' origins that may open the websocket; by default
        the server's own (`server/web/origins.py`). Ended games are handed over to
        `database` (server/db/), and leave Redis `ended_window_ms` later; without one they wait in
        Redis for a process that has it. With `signups` anyone may make an account, as many
        from one address as `signup_limits` allow (a server without a database makes none).
        A `freezer` (server/collector.py) freezes the connections' objects out of the garbage
        collector's walks; `arena serve` has one, a test process need not. Each user may ask
        the workers for as many analyses as `analysis_limits` allow."""
        from server.hub import Hub

        if offered is not None and time_controls is not None:
            raise ValueError("time controls go in `offered` when it is given")
        self.redis = redis
        self.login_seconds = login_seconds
        self.offered = offered or Offered.every_game(
            time_controls or TimeControls.parse(DEFAULT_TIME_CONTROLS), HOUSE_BOTS
        )
        self.offers = self.offered.offers()  # what `welcome` shows
        self.store = GameStore(
            redis,
            claim_grace_ms=claim_grace_ms,
            attendance_ms=attendance_ms,
            heartbeat=Heartbeat(redis),
            database=database,
            ended_window_ms=ended_window_ms,
        )
        self.lobby = Lobby(redis, database)
        self.login_throttle = LoginThrottle(redis, login_limits)
        self.signups = (
            SignupThrottle(redis, signup_limits) if signups and database is not None else None
        )
        self.hub = Hub(redis)
        heartbeat = self.store.heartbeat
        if isinstance(redis, LaneCluster) and heartbeat is not None:
            # A failover's pause is an outage for the clocks, as a gap in the heartbeat is.
            redis.lane.stalls = lambda start, end: self.spawn(heartbeat.stalled(start, end))
        self.ladders = LadderStore(redis, database)
        self.scheduler = Scheduler(
            self.ladders,
            self,
            self.store,
            self.offered,
            round_seconds=ladder_round_seconds,
            lease_ms=ladder_lease_ms,
        )
        self.sessions: set[Session] = set()
        self.freezer = freezer
        self.rules_ready = asyncio.Event()
        self.house_bots_news: HouseBots | None = None  # what the connections are told
        # What each connection was last told of the house bots (`house_bots` events).
        self._told: weakref.WeakKeyDictionary[Session, HouseBots] = weakref.WeakKeyDictionary()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pairing = asyncio.Event()
        self.analysis = AnalysisQueue(redis, analysis_limits)
        self.metrics = ServerMetrics(self)
        self.dispatch = self.bind_handlers()
        self.origins = Origins(allowed_origins)
        self.site = Site.load()

    async def start(self) -> None:
        """Start the background duties, the rules' warming among them: the process may
        listen at once (a move or a new game waits for the rules, `GameStore.rules_ready`)."""
        self.store.rules_ready = self.rules_ready
        self.spawn(self._warm_rules())
        await self.hub.start()
        self.spawn(self._house_bots_loop())
        self.spawn(self._heartbeat_loop())
        self.spawn(self._sweep_loop())
        self.spawn(self._repair_loop())
        if self.store.database is not None:
            self.spawn(self._handover_loop())
        self.spawn(self._pair_loop())
        self.spawn(self._seek_loop())
        self.spawn(self._presence_loop())
        self.spawn(self._membership_loop())
        self.spawn(self.scheduler.run())
        if self.freezer is not None:
            self.spawn(self.freezer.run(lambda: len(self.sessions)))

    async def close(self) -> None:
        pending = set(self._tasks)
        for task in pending:
            task.cancel()
        while pending:
            _, pending = await asyncio.wait(pending, timeout=CANCEL_AGAIN_SECONDS)
            # A cancellation swallowed on its way up (a library that catches it and carries
            # on) leaves a loop running for ever: cancel what is left until it ends.
            for task in pending:
                log.warning("task_cancelled_again", task=repr(task.get_coro()))
                task.cancel()
        # After the tasks: a round still running could take the lease again.
        with contextlib.suppress(Exception):
            await self.scheduler.stop()
        await self.hub.close()
        await self.analysis.close()

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run a task the process keeps until it ends (or the process closes)."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("task_failed", exc_info=task.exception())

    # Connections

    async def handle(self, socket: Socket) -> None:
        session = Session(self, socket)
        self.sessions.add(session)
        await session.run()

    async def health(self, socket: Socket, request: HttpRequest) -> Response | None:
        """Answer `GET /healthz`, `GET /metrics` (Prometheus) and, for a plain GET, the web
        client's page and files and a game's pictures (`/game/ID.svg`); a websocket handshake
        goes on to the websocket, unless a browser's page of an origin not allowed asks for it
        (403)."""
        if request.path == "/healthz":
            return socket.respond(HTTPStatus.OK, "ok\n")
        if request.path == "/metrics":
            return respond(socket, await self.metrics.exposition())
        if "websocket" not in request.headers.get("Upgrade", "").lower():
            picture = await pictures.respond(self.store, request)
            return picture or self.site.respond(request)
        page, host = request.headers.get("Origin"), request.headers.get("Host")
        if not self.origins.allows(page, host):
            log.warning("origin_refused", origin=page, host=host)
            return socket.respond(HTTPStatus.FORBIDDEN, "origin not allowed\n")
        return None

    def bind_handlers(self) -> Dispatch:
        """The handler of each request, given the services of its area as this process
        holds them now (once for every connection, not once a connection)."""
        return dispatch(
            AccountServices(
                self.redis, self.login_throttle, self.store, self.lobby, self.offers, self.signups
            ),
            LobbyServices(
                self.lobby, self.store, self.redis, self.offered, self.offers, matchmaker=self
            ),
            PlayServices(self.store, self.metrics),
            AnalysisServices(self.store, self.analysis, self.spawn),
            LadderServices(self.ladders, self.offered),
            PlayersServices(self.redis, self.store, self.ladders, HOUSE_BOTS),
            BotsServices(self.redis, self.store),
        )

    # Games

    def new_id(self) -> str:
        return secrets.token_urlsafe(6)

    def house_bot(self, name: str) -> Player | None:
        """The house player of that name, if the server has such a bot."""
        bot = name.lower()
        return Player(bot, PlayerKind.HOUSE) if bot in HOUSE_BOTS else None

    def house_spec(self, name: str, strength: int | None) -> str:
        return house_spec(name.lower(), strength or HOUSE_STRENGTH)

    async def start_game(
        self,
        first: Player,
        second: Player,
        colour: ColourPreference,
        *,
        game: str,
        setup: str,
        time: TimeControl,
        rated: bool,
        house_spec: str | None = None,
    ) -> GameStarted:
        """Start a game of `game` between `first` (whose colour wish is `colour`) and
        `second`."""
        if colour is ColourPreference.RANDOM:
            first_white = random.random() < 0.5
        else:
            first_white = colour is ColourPreference.WHITE
        # Ratings in this game as they are now: a player's rating changes after each rated game,
        # and a connection knows only the one it had when it logged in.
        database = self.store.database
        first = await player_in(self.redis, database, first, game, house_spec)
        second = await player_in(self.redis, database, second, game, house_spec)
        white, black = (first, second) if first_white else (second, first)
        house = (
            house_spec if white.kind is PlayerKind.HOUSE else None,
            house_spec if black.kind is PlayerKind.HOUSE else None,
        )
        started = await self.store.create(
            white,
            black,
            time=time,
            rated=rated,
            now=now_ms(),
            game=game,
            setup=setup,
            house=house,
        )
        log.info("game_started", game_id=started.game_id, white=white.name, black=black.name)
        return started

    def wake_pairing(self) -> None:
        self._pairing.set()

    # Background duties

    async def _warm_rules(self) -> None:
        """Compile (or load from numba's cache) the kernels of every game's rules, in a thread:
        about a second from the cache, ten on a fresh install."""
        started = time.monotonic()
        try:
            await in_daemon_thread(self.warm_rules)
        except Exception:
            # A move then compiles what it needs, or fails and says so.
            log.exception("rules_warm_up_failed")
        finally:
            self.rules_ready.set()
        log.info("rules_ready", seconds=round(time.monotonic() - started, 2))

    def warm_rules(self) -> None:
        """Run once each engine path of every game offered (`warm_engine`)."""
        for terms in self.offered.games:
            warm_engine(terms.setups, terms.game)

    async def _house_bots_loop(self) -> None:
        """Tell each connection signed in which house bots are ready and which are still
        being prepared, after its `welcome` and whenever that changes."""
        while True:
            try:
                news = await house_bots(self.redis, now_ms(), self.rules_ready.is_set())
                self.house_bots_news = news
                for session in list(self.sessions):
                    if session.user is not None and self._told.get(session) != news:
                        self._told[session] = news
                        session.reply(news)
            except Exception:
                log.exception("house_bots_news_failed")
            await asyncio.sleep(HOUSE_BOTS_SECONDS)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                now = now_ms()
                for game_id in await self.store.due(now):
                    ended = await self.store.expire(game_id, now)
                    if ended is not None:
                        log.info(
                            "game_timed_out", game_id=game_id, termination=str(ended.termination)
                        )
            except Exception:
                _turn_failed("sweep_failed")

    async def _repair_loop(self) -> None:
        """Move an older data folder's game indexes and rebuild them all, then put right one
        bucket a turn, each process from a bucket of its own choice (so that several processes
        share the rounds)."""
        try:
            await self.store.move_older_index()
        except Exception:
            _turn_failed("index_rebuild_failed")
        bucket = random.randrange(BUCKETS)
        while True:
            await asyncio.sleep(REPAIR_SECONDS)
            bucket = (bucket + 1) % BUCKETS
            try:
                wrong = await self.store.repair_index(bucket)
                if wrong:
                    log.warning("index_repaired", bucket=bucket, entries=wrong)
            except Exception:
                _turn_failed("index_repair_failed", bucket=bucket)

    async def _handover_loop(self) -> None:
        """Hand over what a stopped process left at start, and what the workers end after."""
        while True:
            try:
                await self.store.hand_over_leftovers()
            except Exception:
                _turn_failed("handover_sweep_failed")
            await asyncio.sleep(HANDOVER_SECONDS)

    async def _heartbeat_loop(self) -> None:
        while True:
            try:
                await self.store.keep_alive(now_ms())
            except Exception:
                _turn_failed("heartbeat_failed")
            await asyncio.sleep(HEARTBEAT_MS / 1000)

    async def _forget_ended_games(self) -> None:
        """Have every connection stop following the games that have ended
        (`Session.forget_ended`)."""
        followed = {
            game_id
            for session in self.sessions
            for name in session.channels
            if (game_id := game_of(name)) is not None
        }
        ended = await self.store.ended_of(sorted(followed))
        for session in list(self.sessions) if ended else ():
            await session.forget_ended(ended)

    async def _presence_loop(self) -> None:
        while True:
            await asyncio.sleep(self.store.attendance_ms / 3000)
            try:
                await self._forget_ended_games()
                now = now_ms()
                attending = [
                    (game_id, colour, session.connection_id)
                    for session in self.sessions
                    for game_id, colour in session.attending.items()
                    if colour is not None
                ]
                await self.store.keep_attending(attending, now)
                await self.store.lapse_attendance(now)
            except Exception:
                _turn_failed("presence_check_failed")

    async def _membership_loop(self) -> None:
        while True:
            await asyncio.sleep(MEMBERSHIP_MS / 3000)
            try:
                joined = [
                    (ladder, session.me().name)
                    for session in self.sessions
                    for ladder in session.ladders
                ]
                await self.ladders.renew(joined, now_ms())
            except Exception:
                _turn_failed("ladder_membership_renewal_failed")

    async def _pair_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._pairing.wait(), PAIR_SECONDS)
            self._pairing.clear()
            try:
                for pairing in await self.lobby.pair(now_ms()):
                    await self.start_game(
                        pairing.first,
                        pairing.second,
                        ColourPreference.RANDOM,
                        game=pairing.game,
                        setup=pairing.setup,
                        time=pairing.time,
                        rated=pairing.rated,
                    )
            except Exception:
                _turn_failed("pairing_failed")

    async def _seek_loop(self) -> None:
        while True:
            await asyncio.sleep(SEEK_TTL_MS / 3000)
            try:
                now = now_ms()
                mine = [seek for session in self.sessions for seek in session.seek_ids]
                await self.lobby.refresh_seeks(mine, now)
                await self.lobby.sweep_seeks(now)
            except Exception:
                _turn_failed("seek_refresh_failed")
