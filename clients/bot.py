"""The bot runner: an engine (`clients.engines`) as a player on the server. It logs in with a bot
token, answers challenges as its `ChallengePolicy` (`clients.challenges`) says, joins the bot
ladders it is given after every login, moves in each of its games when it is its turn within
the budget the shared policy gives (`engine.search.budget`), and comes back after a dropped
connection without losing track of a game. `arena bot` (`clients.bot_cli`) runs it from the
command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import ssl
from collections.abc import Callable, Sequence
from time import monotonic
from typing import Any

import structlog
from websockets.exceptions import InvalidHandshake, InvalidURI
from websockets.uri import parse_uri

from clients.challenges import ChallengePolicy
from clients.connection import ArenaClient, ArenaError, Backoff, GameView
from clients.engines import (
    Engine,
    EngineError,
    EngineMaker,
    GameSoFar,
    engine_games,
    open_engine,
)
from clients.offers import Offer, OfferKind
from engine.search.bot import Budget
from engine.search.budget import REMOTE_BOT, Turn
from server.protocol import (
    DEFAULT_GAME,
    MAX_REASON_LENGTH,
    AcceptChallenge,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    Colour,
    DeclineChallenge,
    ErrorCode,
    GameStarted,
    GameStatus,
    JoinLadder,
    LadderMembership,
    LeaveLadder,
    ListSeeks,
    Offers,
    PlayerKind,
    PlayMove,
    ProtocolError,
    Resign,
    SeekInfo,
    SeekList,
    Termination,
)
from server.protocol.limits import MAX_ENGINE_LENGTH

__all__ = [
    "DEFAULT_FIRST_MOVE_MS",
    "DEFAULT_FREE_PLIES",
    "BotError",
    "BotPlayer",
    "check_url",
    "run_bot",
    "think_budget",
]

log = structlog.get_logger(__name__)

# A side's first move is off the clock but must come within the server's window; the server
# says how long it is and how many plies are off the clock (`welcome.offers.first_move_ms`,
# `free_plies`). From a server that does not say, the bot plans by the rules protocol.md gives:
# 30 s, and each side's first move.
DEFAULT_FIRST_MOVE_MS = 30_000
DEFAULT_FREE_PLIES = 2
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
OFFER_SECONDS = 2.0  # between looks at whether the bot has room to offer another game
# After an opponent declines the bot's challenge, it is not challenged again for this long.
DECLINED_PAUSE_SECONDS = 60.0


class BotError(ValueError):
    """The bot cannot play at all: a bad server URL, a refused token, an unknown engine."""


async def run_bot(
    url: str,
    token: str,
    engine: str | EngineMaker,
    *,
    accept: ChallengePolicy | None = None,
    stop: asyncio.Event | None = None,
    client_name: str = "arena-bot",
    report: Callable[[str], None] | None = None,
    ladders: Sequence[str] = (),
    offers: Sequence[Offer] = (),
    engine_name: str | None = None,
    ladder_games: int = 1,
) -> None:
    """Play as the bot account of `token` on the server at `url` with `engine` (a spec for
    `open_engine`, such as `mcts:c=0.8`, or a maker of engines) until `stop` is set (forever
    without one). Challenges are answered by `accept` (by default a `ChallengePolicy` of the
    games the engine plays); only those made while the bot is connected reach it, as the
    protocol has no request that lists open challenges. A dropped connection is taken up
    again (its session resumed, or the token used again) with backoff, and every game caught
    up before play goes on. `report` is given a plain sentence when the server has not
    answered several attempts in a row, and when it is reached again. The bot joins the bot
    ladders named in `ladders` after each login (telling them `engine_name`, by default the
    engine's spec, for their standings) and plays the games they start, up to `ladder_games` at
    once on each, and keeps each
    of `offers` (seeks, quick pairing, challenges) open while it has room for another game.
    Raises BotError when it cannot play at all (a ladder it may not join, or an offer the server
    refuses, included)."""
    player = BotPlayer(
        url,
        token,
        engine,
        accept=accept,
        client_name=client_name,
        report=report,
        ladders=ladders,
        offers=offers,
        engine_name=engine_name,
        ladder_games=ladder_games,
    )
    await player.run(stop or asyncio.Event())


def check_url(url: str) -> None:
    """Raise BotError unless `url` is a websocket URL."""
    try:
        parse_uri(url)
    except InvalidURI:
        raise BotError(f"{url!r} is not a websocket URL such as ws://host:8765") from None


def _engines(engine: str | EngineMaker) -> EngineMaker:
    if not isinstance(engine, str):
        return engine
    try:
        return open_engine(engine)
    except EngineError as error:
        raise BotError(str(error)) from None


class BotPlayer:
    """A bot account at play: one connection at a time, the thinking that outlives a dropped
    connection, and the challenges answered. `client` is the live connection, if any."""

    def __init__(
        self,
        url: str,
        token: str,
        engine: str | EngineMaker,
        *,
        accept: ChallengePolicy | None = None,
        client_name: str = "arena-bot",
        report: Callable[[str], None] | None = None,
        ladders: Sequence[str] = (),
        offers: Sequence[Offer] = (),
        engine_name: str | None = None,
        ladder_games: int = 1,
    ) -> None:
        check_url(url)
        if not token:
            raise BotError("the bot token is empty")
        self._new_engine = _engines(engine)
        self._prototype = self._new_engine()
        self.url = url
        self.token = token
        self._engine_name = engine_name
        self._name_engine()
        if accept is None:
            games = engine_games(engine) if isinstance(engine, str) else {DEFAULT_GAME}
            accept = ChallengePolicy(games=frozenset(games))
        self.policy = accept
        self.client_name = client_name
        self.ladders = tuple(ladders)  # joined again after every login
        self.ladder_games = ladder_games  # games at once the bot asks each ladder for
        self.offers = tuple(offers)  # kept open while the bot has room for a game
        self.report = report or (lambda text: None)
        self.client: ArenaClient | None = None
        self.name: str | None = None
        self.connections = 0  # connections that logged in, for logs and tests
        # The server's first-move rules, as its welcome says once read.
        self.first_move_ms = DEFAULT_FIRST_MOVE_MS
        self.free_plies = DEFAULT_FREE_PLIES
        self._connected = asyncio.Condition()  # notified when `client` changes
        self._thinking: dict[tuple[str, int], asyncio.Task[None]] = {}
        # The moves whose engine is choosing now: (game id, ply) -> monotonic time it began.
        self._choosing: dict[tuple[str, int], float] = {}
        self._refusals: dict[tuple[str, int], int] = {}
        self._engines: dict[str, Engine] = {}  # one per game: engines keep state between moves
        # The games there were when the bot joined quick pairing, while it waits there.
        self._pairing_since: frozenset[str] | None = None
        self._challenged: dict[str, str] = {}  # the bot's open challenges: id -> opponent
        self._declined_until: dict[str, float] = {}  # by opponent (lowercase): monotonic time

    def _name_engine(self) -> None:
        """Name the engine as it names itself (a program, once it has said its name), in the
        log and to the ladders alike."""
        self.engine_spec = self._prototype.name
        # What the bot tells the ladders it joins it plays with (their standings show it).
        self.engine_name = (self._engine_name or self.engine_spec)[:MAX_ENGINE_LENGTH]
        self.log = log.bind(engine=self.engine_spec)

    @property
    def thinking(self) -> frozenset[tuple[str, int]]:
        """The moves being chosen or delivered now, as (game id, ply)."""
        return frozenset(self._thinking)

    async def run(self, stop: asyncio.Event) -> None:
        """Play until `stop` is set: connect, play, and after a drop connect again."""
        # Compiling the engine before the first game means no clock pays for it; a program
        # shows here, before any challenge is accepted, that it starts and shakes hands.
        try:
            await self._prototype.prepare()
        except EngineError as error:
            raise BotError(str(error)) from None
        finally:
            await self._prototype.close()
        self._name_engine()
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
            engines = list(self._engines.values())
            self._engines.clear()
            await asyncio.gather(*(engine.close() for engine in engines), return_exceptions=True)

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
                    if welcome.offers is not None:
                        self._heed(welcome.offers)
                    await client.catch_up(welcome.games)
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
        try:
            await self._join_ladders(client)
        except BaseException:
            await client.close()
            raise
        self.name = client.user.name
        self.connections += 1
        self.log = self.log.bind(bot=self.name)
        self.log.info("bot_online", games=sorted(client.games), connection=self.connections)
        return client

    async def _join_ladders(self, client: ArenaClient) -> None:
        """Join the bot's ladders on a new connection (a membership ends with the connection
        that joined). A ladder the server refuses stops the bot."""
        for ladder in self.ladders:
            try:
                joined = await client.request(
                    JoinLadder(ladder, games=self.ladder_games, engine=self.engine_name),
                    LadderMembership,
                )
                why = _ladder_refusal(self.policy, joined)
                if why is not None:
                    await client.request(LeaveLadder(ladder), LadderMembership)
            except ArenaError as error:
                if error.code in RETRY:
                    raise
                raise BotError(f"cannot join ladder {ladder}: {error.reply.message}") from None
            if why is not None:
                raise BotError(f"cannot join ladder {ladder}: {why}")
            self.log.info("ladder_joined", ladder=ladder)

    async def _play(self, client: ArenaClient, stop: asyncio.Event) -> None:
        """Serve one connection until it closes or `stop` is set."""
        await self._use(client)
        self._pairing_since = None  # a connection's place in quick pairing ends with it
        duties = [
            asyncio.create_task(self._answer_challenges(client)),
            asyncio.create_task(self._move_when_due(client)),
            asyncio.create_task(client.wait_closed()),
            asyncio.create_task(stop.wait()),
        ]
        if self.offers:
            duties.append(asyncio.create_task(self._make_offers(client)))
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
            elif isinstance(event, ChallengeRemoved) and event.challenge_id in self._challenged:
                self._answered(event)

    def _answered(self, event: ChallengeRemoved) -> None:
        """One of the bot's challenges was closed: a declined one is not made again for a
        while."""
        opponent = self._challenged.pop(event.challenge_id)
        if event.outcome is not ChallengeOutcome.DECLINED:
            return
        self._declined_until[opponent.lower()] = monotonic() + DECLINED_PAUSE_SECONDS
        because = f": {event.reason}" if event.reason else ""
        self.log.info("challenge_declined_by", opponent=opponent, reason=event.reason)
        self.report(
            f"{opponent} declined the challenge{because}; "
            f"challenging again in {DECLINED_PAUSE_SECONDS:.0f} s"
        )

    # Offers

    def _paired(self, client: ArenaClient, before: frozenset[str]) -> bool:
        """Whether a game on the terms of one of the bot's quick pairings has started since
        the games `before` (ended ones count: a quick game may be over by now)."""
        wanted = {
            (offer.game, offer.setup, offer.time, offer.rated)
            for offer in self.offers
            if offer.kind is OfferKind.QUICK_PAIR
        }
        return any(
            (view.game, view.setup, view.time, view.rated) in wanted
            for game_id, view in client.games.items()
            if game_id not in before
        )

    async def _make_offers(self, client: ArenaClient) -> None:
        """Keep each of the bot's offers open while it has room for another game."""
        try:
            if any(offer.kind is OfferKind.SEEK for offer in self.offers):
                # Following the seek list shows the bot its own open seeks.
                await client.request(ListSeeks(), SeekList)
            while True:
                await asyncio.sleep(await self._offer_round(client))
        except ConnectionError:
            return  # the connection is gone: offers are made again on the next

    async def _offer_round(self, client: ArenaClient) -> float:
        """Make the offers not open now, as many as the bot has room for (its game limit less
        its games and its open offers); the seconds until the next look."""
        assert self.name is not None
        me = self.name.lower()
        playing = [view for view in client.games.values() if self._plays(view)]
        if self._pairing_since is not None and self._paired(client, self._pairing_since):
            self._pairing_since = None  # out of the pool
        open_offers: list[SeekInfo | ChallengeInfo] = [
            s for s in client.core.seeks.values() if s.player.name.lower() == me
        ]
        open_offers += [
            c for c in client.core.challenges.values() if c.challenger.name.lower() == me
        ]
        room = (
            self.policy.max_games
            - len(playing)
            - len(open_offers)
            - (self._pairing_since is not None)
        )
        opponents = {p.name.lower() for view in playing for p in (view.white, view.black)}
        for offer in self.offers:
            if room <= 0:
                break
            if any(offer.made(made) for made in open_offers) or (
                offer.kind is OfferKind.QUICK_PAIR and self._pairing_since is not None
            ):
                continue
            if offer.opponent is not None and (
                offer.opponent.lower() in opponents
                or self._declined_until.get(offer.opponent.lower(), 0.0) > monotonic()
            ):
                continue
            try:
                reply = await client.request(offer.request())
            except ArenaError as error:
                if error.code not in RETRY:
                    raise BotError(
                        f"the server refused the bot's {offer}: {error.reply.message}"
                    ) from None
                self.log.warning("offer_refused", offer=str(offer), reason=str(error))
                return float(error.reply.retry_after or OFFER_SECONDS)
            room -= 1
            if isinstance(reply, ChallengeAdded) and offer.opponent is not None:
                self._challenged[reply.challenge.challenge_id] = offer.opponent
            if offer.kind is OfferKind.QUICK_PAIR:
                self._pairing_since = frozenset(client.games)
            self.log.info("offer_made", offer=str(offer))
        return OFFER_SECONDS

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
                await client.request(
                    DeclineChallenge(challenge.challenge_id, reason[:MAX_REASON_LENGTH])
                )
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
        """Games in which it is the bot's turn and no move is being worked on. A game whose last
        move ended it by the rules is not due, though its `game_ended` may not have come yet:
        there is no move to choose."""
        assert self.name is not None
        return [
            view
            for view in client.games.values()
            if self._plays(view)
            and view.to_move is view.colour_of(self.name)
            and (view.game_id, view.ply) not in self._thinking
            and self._refusals.get((view.game_id, view.ply), 0) < MAX_REFUSALS
            and not view.position().is_terminal()
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
                task = asyncio.create_task(self._think_and_move(view))
                self._thinking[key] = task
                task.add_done_callback(functools.partial(self._thought, key))
            for view in self._ended(client):
                self._name_lateness(view)
                # A move still being chosen is of no use now; its program is ended with it.
                unfinished = [t for (g, _), t in self._thinking.items() if g == view.game_id]
                for task in unfinished:
                    task.cancel()
                await asyncio.gather(*unfinished, return_exceptions=True)
                # Dropped once closed: a close cut short (the bot stopping) is done again as
                # the bot stops.
                await self._engines[view.game_id].close()
                del self._engines[view.game_id]
                self.log.info(
                    "game_over",
                    game_id=view.game_id,
                    winner=str(view.winner),
                    termination=str(view.termination),
                )

    def _name_lateness(self, view: GameView) -> None:
        """Log the engine's failure when the server's clock ran out on a move it was still
        choosing: the server flags a bot before the runner gives up on its engine, so this is
        the only word of it."""
        lost = (
            view.termination is Termination.TIME_FORFEIT
            and self.name is not None
            and view.winner is not None
            and view.winner is not view.colour_of(self.name)
        )
        for (game_id, ply), since in list(self._choosing.items()):
            if game_id != view.game_id:
                continue
            del self._choosing[game_id, ply]
            if lost:
                self.log.error(
                    "engine_failed",
                    game_id=game_id,
                    ply=ply,
                    reason=f"engine {self.engine_spec} gave no move within "
                    f"{monotonic() - since:.1f} s at ply {ply}: the server's clock ran out "
                    "first, and the game was lost on time",
                )

    def _thought(self, key: tuple[str, int], task: asyncio.Task[None]) -> None:
        self._thinking.pop(key, None)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("move_failed", game_id=key[0], ply=key[1], exc_info=task.exception())

    def _ended(self, client: ArenaClient) -> list[GameView]:
        """Games over whose engine is still kept."""
        return [
            view
            for game_id in self._engines
            if (view := client.games.get(game_id)) is not None and view.status is GameStatus.ENDED
        ]

    async def _think_and_move(self, view: GameView) -> None:
        """Choose the move for `view` and deliver it, across reconnections if need be."""
        game_id, ply = view.game_id, view.ply
        context = self.log.bind(game_id=game_id, ply=ply)
        self._choosing[game_id, ply] = monotonic()
        try:
            text = await self._choose(view)
        except EngineError as error:
            # The engine's own account is the whole story (a program's illegal move, its
            # silence, its death): one line, no traceback.
            context.error("engine_failed", reason=str(error))
            await self._resign(game_id, str(error))
            return
        except Exception:
            context.exception("engine_failed")
            await self._resign(game_id, "the engine failed")
            return
        finally:
            self._choosing.pop((game_id, ply), None)
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

    def _heed(self, offers: Offers) -> None:
        """Plan by the first-move rules the server announces."""
        if offers.first_move_ms is not None:
            self.first_move_ms = offers.first_move_ms
        if offers.free_plies is not None:
            self.free_plies = offers.free_plies

    async def _choose(self, view: GameView) -> str:
        assert self.name is not None
        colour = view.colour_of(self.name)
        assert colour is not None
        engine = self._engines.get(view.game_id)
        if engine is None:
            engine = self._engines[view.game_id] = self._new_engine()
            await engine.prepare()
        # Read after the engine is ready, so the budget counts the time it took to start.
        budget = think_budget(
            view, colour, first_move_ms=self.first_move_ms, free_plies=self.free_plies
        )
        game = GameSoFar(view.game, view.setup, view.start, view.moves, view.position())
        return await engine.choose(game, budget)

    async def _resign(self, game_id: str, why: str) -> None:
        client = self.client
        if client is None:
            return
        self.log.error("resigning", game_id=game_id, reason=why)
        with contextlib.suppress(ConnectionError, ArenaError):
            await client.request(Resign(game_id))


def _ladder_refusal(policy: ChallengePolicy, joined: LadderMembership) -> str | None:
    """Why the bot, which plays the games and setups `policy` accepts, cannot play those of the
    ladder it `joined` (it would lose every one). None when it can, or when the server does not
    say what the ladder plays. The ladder's clock is the bot's choice: joining chose it."""
    if joined.game is None or joined.setup is None or joined.time is None:
        return None
    why = policy.board_refusal(joined.game, joined.setup)
    if why is None:
        return None
    terms = f"{joined.game} {joined.setup} {joined.time.base}+{joined.time.increment}"
    return f"its games are {terms}, and {why}"


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
    first_move_ms: int = DEFAULT_FIRST_MOVE_MS,
    free_plies: int = DEFAULT_FREE_PLIES,
) -> Budget:
    """The engine's budget for the side `colour` to move in `view`, by the remote bot's policy
    (`engine.search.budget.REMOTE_BOT`): its clock as the server last read it, less the time
    since then and a margin for the move's trip back; a move within the first `free_plies` is
    off the clock and planned by the first-move window `first_move_ms`, counted from when the
    window opened (a bot that joins a game mid-window, from its `game_state`, has only what is
    left of it)."""
    now = monotonic() if now is None else now
    elapsed = max(0.0, now - view.received)
    first_move = view.ply < free_plies
    window_left = view.first_move_left(now) if first_move else None
    if window_left is not None:
        elapsed = max(elapsed, first_move_ms / 1000 - window_left)
    own_ms, other_ms = (
        (view.clocks.white, view.clocks.black)
        if colour is Colour.WHITE
        else (view.clocks.black, view.clocks.white)
    )
    turn = Turn(
        own_ms=own_ms,
        opponent_ms=other_ms,
        increment_ms=view.time.increment * 1000,
        first_move_ms=first_move_ms if first_move else None,
        elapsed=elapsed,
    )
    return REMOTE_BOT.budget(turn)
