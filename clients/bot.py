"""Any engine bot as a player on the server: log in with a bot token, take the challenges it can
play, move in each of its games when it is its turn, and come back after a dropped connection
without losing track of a game. `arena bot` runs it from the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import signal
import socket
import ssl
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import Any

import structlog
from websockets.exceptions import InvalidHandshake, InvalidURI
from websockets.uri import parse_uri

from clients.connection import ArenaClient, ArenaError, Backoff, GameView
from engine.amazons import SETUPS, Position
from engine.errors import NotationError
from engine.search.bot import Bot, Budget, ClockReading
from engine.search.registry import make_bot
from server.protocol import (
    AcceptChallenge,
    ChallengeAdded,
    ChallengeInfo,
    Colour,
    DeclineChallenge,
    ErrorCode,
    GameStarted,
    GameStatus,
    PlayerKind,
    PlayMove,
    ProtocolError,
    Resign,
)

__all__ = [
    "BotError",
    "BotPlayer",
    "ChallengePolicy",
    "add_command",
    "main",
    "run_bot",
    "think_budget",
]

log = structlog.get_logger(__name__)

# Seconds kept back from the bot's clock for the move's trip to the server. The server gives
# bots a flat allowance on top (`welcome.offers.bot_allowance_ms`), so this is a second net.
MARGIN_SECONDS = 0.3
# A side's first move is off the clock but must come within the server's window
# (`welcome.offers.first_move_ms`); the bot plans its first move as if it had this share of it,
# or FIRST_MOVE_SECONDS from a server that does not say.
FIRST_MOVE_SHARE = 0.5
FIRST_MOVE_SECONDS = 15.0
# Refusals of the same move before the bot gives the game up: a refused move means the bot's
# view of the game is wrong, which one resync repairs; a second refusal means it cannot.
MAX_REFUSALS = 2
# Refusals that waiting cures: the move is sent again after `retry_after` (or a second).
RETRY = (ErrorCode.RATE_LIMITED, ErrorCode.INTERNAL, ErrorCode.UNAVAILABLE)
# A connection that lasted this long was a good one: the next drop reconnects at once.
STABLE_SECONDS = 10.0
# Failed attempts in a row to reach the server before the bot says plainly that nothing answers
# (the first one or two are often a server still starting).
UNANSWERED_ATTEMPTS = 3
OPEN_SECONDS = 30.0  # for a connection to open, log in and catch up its games
# Moves expected in a game when judging a time control by base + this many increments (the
# estimate lichess uses to sort time controls).
ESTIMATED_MOVES = 40


class BotError(ValueError):
    """The bot cannot play at all: a bad server URL, a refused token, an unknown engine."""


@dataclass(frozen=True)
class ChallengePolicy:
    """Which incoming challenges the bot accepts; it declines the others at once.

    A challenge is accepted when its setup is one of `setups` (by default every named setup the
    engine plays), its time control gives at least `min_game_seconds` for a game of about 40
    moves (`base + 40 * increment`, so 0+0 is never accepted: the network alone would lose on
    time) and at most `max_game_seconds`, it is casual or `rated` is set, and the bot plays
    fewer than `max_games` games at the moment. Subclass and override `refusal` for more.
    """

    setups: frozenset[str] = field(default_factory=lambda: frozenset(SETUPS))
    min_game_seconds: int = 10
    max_game_seconds: int | None = None
    rated: bool = True
    max_games: int = 4

    def refusal(self, challenge: ChallengeInfo, playing: int) -> str | None:
        """Why the bot declines `challenge` while it plays `playing` games; None to accept."""
        if challenge.setup not in self.setups or challenge.setup not in SETUPS:
            return f"setup {challenge.setup} is not played"
        seconds = challenge.time.base + ESTIMATED_MOVES * challenge.time.increment
        if seconds < self.min_game_seconds:
            return f"time control too fast: a game needs {self.min_game_seconds} s or more"
        if self.max_game_seconds is not None and seconds > self.max_game_seconds:
            return f"time control too slow: a game must take {self.max_game_seconds} s or less"
        if challenge.rated and not self.rated:
            return "rated games are not played"
        if playing >= self.max_games:
            return f"already playing {playing} games"
        return None


async def run_bot(
    url: str,
    token: str,
    engine_spec: str,
    *,
    accept: ChallengePolicy | None = None,
    stop: asyncio.Event | None = None,
    client_name: str = "arena-bot",
    report: Callable[[str], None] | None = None,
) -> None:
    """Play as the bot account of `token` on the server at `url` with the engine bot
    `engine_spec` (a registry spec such as `mcts:c=0.8`) until `stop` is set (forever without
    one). Challenges are answered by `accept` (default `ChallengePolicy()`); only those made
    while the bot is connected reach it, as the protocol has no request that lists open
    challenges. A dropped connection is taken up again (its session resumed, or the token used
    again) with backoff, and every game caught up before play goes on. `report` is given a
    plain sentence when the server has not answered several attempts in a row, and when it is
    reached again. Raises BotError when it cannot play at all."""
    player = BotPlayer(
        url, token, engine_spec, accept=accept, client_name=client_name, report=report
    )
    await player.run(stop or asyncio.Event())


def _check_url(url: str) -> None:
    try:
        parse_uri(url)
    except InvalidURI:
        raise BotError(f"{url!r} is not a websocket URL such as ws://host:8765") from None


def _check_spec(spec: str) -> Bot:
    try:
        return make_bot(spec)
    except NotationError as error:
        raise BotError(str(error)) from None


class BotPlayer:
    """A bot account at play: one connection at a time, the thinking that outlives a dropped
    connection, and the challenges answered. `client` is the live connection, if any."""

    def __init__(
        self,
        url: str,
        token: str,
        engine_spec: str,
        *,
        accept: ChallengePolicy | None = None,
        client_name: str = "arena-bot",
        report: Callable[[str], None] | None = None,
    ) -> None:
        _check_url(url)
        if not token:
            raise BotError("the bot token is empty")
        self._prototype = _check_spec(engine_spec)
        self.url = url
        self.token = token
        self.engine_spec = engine_spec
        self.policy = accept if accept is not None else ChallengePolicy()
        self.client_name = client_name
        self.report = report or (lambda text: None)
        self.client: ArenaClient | None = None
        self.name: str | None = None
        self.connections = 0  # connections that logged in, for logs and tests
        self.first_move_seconds = FIRST_MOVE_SECONDS  # what the server's welcome says, once read
        self._connected = asyncio.Condition()  # notified when `client` changes
        self._thinking: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._refusals: dict[tuple[str, int], int] = {}
        self._bots: dict[str, Bot] = {}  # one engine bot per game: bots keep state between moves
        self.log = log.bind(engine=engine_spec)

    @property
    def thinking(self) -> frozenset[tuple[str, int]]:
        """The moves being chosen or delivered now, as (game id, ply)."""
        return frozenset(self._thinking)

    async def run(self, stop: asyncio.Event) -> None:
        """Play until `stop` is set: connect, play, and after a drop connect again."""
        # Compiling the engine before the first game means no clock pays for it.
        await asyncio.to_thread(self._prototype.prepare)
        backoff = Backoff()
        previous: ArenaClient | None = None
        unanswered = 0  # failed attempts to reach the server since it last answered
        try:
            while not stop.is_set():
                try:
                    client = await self._open(previous)
                except ArenaError as error:
                    if error.code is ErrorCode.BAD_CREDENTIALS:
                        raise BotError(f"the server refused the bot token: {error}") from None
                    await self._pause(backoff, stop, error)
                    continue
                except (OSError, ConnectionError, InvalidHandshake, TimeoutError) as error:
                    unanswered += 1
                    if unanswered == UNANSWERED_ATTEMPTS:
                        why = _unanswered(self.url, error)
                        self.report(
                            f"nothing answers at {self.url} ({why}); trying again with "
                            f"backoff, every {backoff.cap:g} s at most"
                        )
                    await self._pause(backoff, stop, error)
                    continue
                if unanswered >= UNANSWERED_ATTEMPTS:
                    self.report(f"connected to {self.url} as {self.name}")
                unanswered = 0
                previous = client
                opened = monotonic()
                await self._play(client, stop)
                if monotonic() - opened >= STABLE_SECONDS:
                    backoff.reset()
                elif not stop.is_set():
                    # Dropped soon after it opened: wait before the next try, so a server that
                    # keeps turning the bot away is not hammered.
                    await self._pause(backoff, stop, None)
        finally:
            thinking = tuple(self._thinking.values())
            for task in thinking:
                task.cancel()
            await asyncio.gather(*thinking, return_exceptions=True)

    async def _pause(
        self, backoff: Backoff, stop: asyncio.Event, error: BaseException | None
    ) -> None:
        """Wait before the next attempt to connect (or until `stop`)."""
        delay = backoff.next()
        if error is not None:
            reason = str(error) or type(error).__name__
            self.log.warning("server_unreachable", error=reason, retry_in=round(delay, 1))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)

    async def _open(self, previous: ArenaClient | None) -> ArenaClient:
        """A logged-in connection whose games are caught up."""
        async with asyncio.timeout(OPEN_SECONDS):
            if previous is None:
                client = await ArenaClient.connect(self.url, self.client_name)
                try:
                    welcome = await client.bot_login(self.token)
                    if welcome.offers is not None and welcome.offers.first_move_ms is not None:
                        self.first_move_seconds = (
                            welcome.offers.first_move_ms / 1000 * FIRST_MOVE_SHARE
                        )
                    for game_id in welcome.games:
                        await client.resync(game_id)
                except BaseException:
                    await client.close()
                    raise
            else:
                client = await ArenaClient.reconnect(
                    self.url, previous, token=self.token, client=self.client_name
                )
        assert client.user is not None
        if client.user.kind is not PlayerKind.BOT:
            await client.close()
            raise BotError(f"the token logs in {client.user.name}, who is not a bot")
        self.name = client.user.name
        self.connections += 1
        self.log = self.log.bind(bot=self.name)
        self.log.info("bot_online", games=sorted(client.games), connection=self.connections)
        return client

    async def _play(self, client: ArenaClient, stop: asyncio.Event) -> None:
        """Serve one connection until it closes or `stop` is set."""
        await self._use(client)
        duties = [
            asyncio.create_task(self._answer_challenges(client)),
            asyncio.create_task(self._move_when_due(client)),
            asyncio.create_task(client.wait_closed()),
            asyncio.create_task(stop.wait()),
        ]
        try:
            done, _ = await asyncio.wait(duties, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # a duty that failed is a bug: let it be seen
        finally:
            await self._use(None)
            for task in duties:
                task.cancel()
            await asyncio.gather(*duties, return_exceptions=True)
            await client.close()
        if not stop.is_set():
            self.log.warning("connection_lost")

    async def _use(self, client: ArenaClient | None) -> None:
        async with self._connected:
            self.client = client
            self._connected.notify_all()

    async def _connection(self, not_this: ArenaClient | None) -> ArenaClient:
        """The live connection, once there is one other than `not_this` (which failed)."""
        async with self._connected:
            await self._connected.wait_for(
                lambda: (
                    self.client is not None
                    and self.client is not not_this
                    and not self.client.closed
                )
            )
            assert self.client is not None
            return self.client

    # Challenges

    async def _answer_challenges(self, client: ArenaClient) -> None:
        while True:
            event = await client.news.get()
            if isinstance(event, ChallengeAdded) and self._mine(event.challenge):
                try:
                    await self._answer(client, event.challenge)
                except ConnectionError:
                    return  # the connection is gone; the challenge stays open for next time

    def _mine(self, challenge: ChallengeInfo) -> bool:
        return self.name is not None and challenge.opponent.name.lower() == self.name.lower()

    async def _answer(self, client: ArenaClient, challenge: ChallengeInfo) -> None:
        playing = sum(1 for view in client.games.values() if self._plays(view))
        reason = self.policy.refusal(challenge, playing)
        context = {
            "challenge_id": challenge.challenge_id,
            "challenger": challenge.challenger.name,
            "setup": challenge.setup,
            "time": f"{challenge.time.base}+{challenge.time.increment}",
        }
        try:
            if reason is not None:
                self.log.info("challenge_declined", reason=reason, **context)
                await client.request(DeclineChallenge(challenge.challenge_id))
                return
            started: GameStarted = await client.request(
                AcceptChallenge(challenge.challenge_id), GameStarted
            )
        except ArenaError as error:
            # Most likely withdrawn before the answer arrived.
            self.log.info("challenge_gone", reason=str(error), **context)
            return
        except ProtocolError as error:
            self.log.error("challenge_unanswered", reason=str(error), **context)
            return
        self.log.info("challenge_accepted", game_id=started.game_id, **context)

    # Moving

    def _plays(self, view: GameView) -> bool:
        return (
            view.status is GameStatus.PLAYING
            and self.name is not None
            and view.colour_of(self.name) is not None
        )

    def _due(self, client: ArenaClient) -> list[GameView]:
        """Games in which it is the bot's turn and no move is being worked on."""
        assert self.name is not None
        return [
            view
            for view in client.games.values()
            if self._plays(view)
            and view.to_move is view.colour_of(self.name)
            and (view.game_id, view.ply) not in self._thinking
            and self._refusals.get((view.game_id, view.ply), 0) < MAX_REFUSALS
        ]

    async def _move_when_due(self, client: ArenaClient) -> None:
        while True:
            await client.wait_for(
                lambda c: c.closed or bool(self._due(c)) or bool(self._ended(c)), timeout=None
            )
            if client.closed:
                return
            for view in self._due(client):
                key = (view.game_id, view.ply)
                task = asyncio.create_task(self._think_and_move(view.copy()))
                self._thinking[key] = task
                task.add_done_callback(functools.partial(self._thought, key))
            for view in self._ended(client):
                del self._bots[view.game_id]
                self.log.info(
                    "game_over",
                    game_id=view.game_id,
                    winner=str(view.winner),
                    termination=str(view.termination),
                )

    def _thought(self, key: tuple[str, int], task: asyncio.Task[None]) -> None:
        self._thinking.pop(key, None)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("move_failed", game_id=key[0], ply=key[1], exc_info=task.exception())

    def _ended(self, client: ArenaClient) -> list[GameView]:
        """Games over whose engine bot is still kept."""
        return [
            view
            for game_id in self._bots
            if (view := client.games.get(game_id)) is not None and view.status is GameStatus.ENDED
        ]

    async def _think_and_move(self, view: GameView) -> None:
        """Choose the move for `view` and deliver it, across reconnections if need be."""
        game_id, ply = view.game_id, view.ply
        context = self.log.bind(game_id=game_id, ply=ply)
        try:
            text = await self._choose(view)
        except Exception:
            context.exception("engine_failed")
            await self._resign(game_id, "the engine failed")
            return
        failed: ArenaClient | None = None
        while True:
            client = await self._connection(failed)
            current = client.games.get(game_id)
            if current is None or current.status is GameStatus.ENDED or current.ply != ply:
                return  # delivered before a drop, or the game went on without it
            try:
                await client.request(PlayMove(game_id, ply, text))
            except ConnectionError:
                failed = client
                continue  # a resend after reconnecting is harmless: (game_id, ply) is checked
            except ArenaError as error:
                if error.code in RETRY:
                    await asyncio.sleep(error.reply.retry_after or 1)
                    continue
                await self._refused(client, view, text, error, context)
                return
            context.info("moved", move=text, connection=self.connections)
            return

    async def _refused(
        self,
        client: ArenaClient,
        view: GameView,
        text: str,
        error: ArenaError,
        context: Any,
    ) -> None:
        """A move the server would not play: catch up with the game, then decide again (or,
        after repeated refusals, no more: an illegal move resigns the game)."""
        key = (view.game_id, view.ply)
        if error.code in (ErrorCode.STALE_PLY, ErrorCode.NOT_YOUR_TURN):
            context.info("move_out_of_date", reason=str(error))
        else:
            self._refusals[key] = self._refusals.get(key, 0) + 1
            context.error("move_refused", move=text, reason=str(error))
            if self._refusals[key] >= MAX_REFUSALS and error.code is ErrorCode.ILLEGAL_MOVE:
                await self._resign(view.game_id, "its moves were refused")
                return
        with contextlib.suppress(ConnectionError, ArenaError):
            await client.resync(view.game_id)

    async def _choose(self, view: GameView) -> str:
        assert self.name is not None
        colour = view.colour_of(self.name)
        assert colour is not None
        position = Position.parse(view.start)
        for text in view.moves:
            position.apply(position.parse_move(text))
        bot = self._bots.get(view.game_id)
        fresh = bot is None
        if bot is None:
            bot = self._bots[view.game_id] = make_bot(self.engine_spec)
        budget = think_budget(view, colour, first_move_seconds=self.first_move_seconds)

        def think() -> str:
            if fresh:
                bot.prepare()
            return str(bot.choose(position, budget).move)

        return await asyncio.to_thread(think)

    async def _resign(self, game_id: str, why: str) -> None:
        client = self.client
        if client is None:
            return
        self.log.error("resigning", game_id=game_id, reason=why)
        with contextlib.suppress(ConnectionError, ArenaError):
            await client.request(Resign(game_id))


def _unanswered(url: str, error: BaseException) -> str:
    """Why an attempt to reach the server at `url` failed, in a person's words."""
    # A server without TLS answers a TLS greeting with garbage (an SSL error here) or by
    # closing the connection (a reset), depending on what it is.
    if url.startswith("wss:") and isinstance(error, (ssl.SSLError, ConnectionResetError)):
        detail = error.reason if isinstance(error, ssl.SSLError) else "connection reset"
        return f"no TLS there: {detail}; a server without TLS has a ws:// URL"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return f"unknown host: {error.strerror}"
    if isinstance(error, TimeoutError):
        return f"no answer within {OPEN_SECONDS:g} s"
    if isinstance(error, InvalidHandshake):
        return f"not a websocket server: {error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def think_budget(
    view: GameView,
    colour: Colour,
    now: float | None = None,
    first_move_seconds: float = FIRST_MOVE_SECONDS,
) -> Budget:
    """The engine's budget for the side `colour` to move in `view`: its clock as the server
    last read it, less the time since then and a margin for the move's trip back; a first
    move gets at most `first_move_seconds`."""
    elapsed = max(0.0, (monotonic() if now is None else now) - view.received)
    own_ms, other_ms = (
        (view.clocks.white, view.clocks.black)
        if colour is Colour.WHITE
        else (view.clocks.black, view.clocks.white)
    )
    own = own_ms / 1000
    if view.ply < 2:
        # A first move is off the clock, but due within the server's first-move window.
        own = min(own, first_move_seconds)
    own = max(0.01, own - elapsed - MARGIN_SECONDS)
    return Budget(
        clock=ClockReading(own=own, opponent=other_ms / 1000, increment=float(view.time.increment))
    )


# The command line


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bot` to an `arena` parser's subcommands."""
    parser = commands.add_parser(
        "bot",
        help="play on a server as a bot account, with one of the engine's bots",
        description="Log in to a server with a bot token, accept the challenges the bot can "
        "play and play them; reconnects by itself after a dropped connection. Ctrl-C stops.",
    )
    _add_options(parser)
    parser.set_defaults(run=run_command)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("ARENA_SERVER"),
        metavar="URL",
        help="the server's websocket URL, e.g. ws://localhost:8765 (default: $ARENA_SERVER)",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="read the bot's token from FILE (from `arena token create NAME --bot`)",
    )
    token.add_argument(
        "--token",
        default=os.environ.get("ARENA_BOT_TOKEN"),
        help="the bot's token (default: $ARENA_BOT_TOKEN; prefer the variable or --token-file: "
        "arguments show in process lists)",
    )
    parser.add_argument(
        "--engine",
        required=True,
        type=_engine,
        metavar="SPEC",
        help="the engine bot and its parameters, e.g. invader or mcts:c=0.8 (see `arena bots`)",
    )
    parser.add_argument(
        "--setup",
        action="append",
        choices=sorted(SETUPS),
        dest="setups",
        help="accept challenges from this setup only (repeat for several; default: all)",
    )
    parser.add_argument(
        "--max-games",
        type=_positive,
        default=4,
        metavar="N",
        help="games to play at once; later challenges are declined (default 4)",
    )
    parser.add_argument(
        "--min-seconds",
        type=_positive,
        default=10,
        metavar="S",
        help="decline time controls where base + 40 * increment is below S seconds (default 10)",
    )
    parser.add_argument(
        "--casual", action="store_true", help="decline rated challenges, play casual games only"
    )


def _engine(text: str) -> str:
    try:
        make_bot(text)
    except NotationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def run_command(args: argparse.Namespace) -> int:
    """Run the bot as parsed by `add_command` until Ctrl-C or SIGTERM; 0 when stopped."""
    if not args.server:
        raise BotError("no server: give --server URL or set ARENA_SERVER")
    _check_url(args.server)
    token = args.token if args.token_file is None else _read_token(args.token_file)
    if not token:
        raise BotError("no bot token: set ARENA_BOT_TOKEN or give --token-file FILE")
    policy = ChallengePolicy(
        setups=frozenset(args.setups or SETUPS),
        min_game_seconds=args.min_seconds,
        rated=not args.casual,
        max_games=args.max_games,
    )
    _configure_logging()

    async def play() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await run_bot(args.server, token, args.engine, accept=policy, stop=stop, report=_say)

    asyncio.run(play())
    return 0


def _say(text: str) -> None:
    print(f"arena bot: {text}", file=sys.stderr, flush=True)


def _read_token(path: Path) -> str:
    try:
        token = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not text"
        raise BotError(f"cannot read the token file {path}: {reason}") from None
    if not token:
        raise BotError(f"the token file {path} is empty")
    return token


def _configure_logging() -> None:
    """Readable lines on a terminal, JSON lines otherwise; to stderr either way."""
    renderer: Any = (
        structlog.dev.ConsoleRenderer()
        if sys.stderr.isatty()
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.format_exc_info,
            renderer,
        ],
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """`arena bot` on its own: `python -m clients.bot --server URL --engine SPEC`."""
    parser = argparse.ArgumentParser(
        prog="arena bot",
        description="Play on an Amazons Arena server as a bot account with an engine bot.",
    )
    _add_options(parser)
    args = parser.parse_args(argv)
    try:
        return run_command(args)
    except (BotError, OSError) as error:
        parser.exit(2, f"arena bot: error: {error}\n")


if __name__ == "__main__":
    sys.exit(main())
