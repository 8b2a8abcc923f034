"""The store of live games, as the rest of the server sees it: `GameStore` creates, plays,
resigns, aborts, claims and times out games, each as one atomic commit. It puts together the
stored game (server/stored_game.py), the rules of each action (server/referee.py, pure), the Redis
keys and commit script (server/storage.py) and attendance (server/presence.py), and keeps the
cache that lets the next move of a game skip reading Redis. A game that ends is handed over to
the history store (server/db/) once, and leaves Redis a window later (ENDED_WINDOW_SECONDS);
a game read by id after that is read from the history store. Every clock reading is the
caller's `now` in ms.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
import structlog

from engine.game import GameState
from server import referee
from server.clock import Clock
from server.game_index import BUCKETS, bucket_of, spectators_key
from server.hub import user_channel
from server.outage import Heartbeat, resume
from server.presence import Attendance
from server.protocol import (
    DEFAULT_GAME,
    Colour,
    ErrorCode,
    GameEnded,
    GameEvent,
    GameStarted,
    GameStatus,
    GameSummary,
    MovePlayed,
    Player,
    ProtocolError,
    Spectators,
    Termination,
    TimeControl,
    decode_event,
)
from server.ratings import bump_versions
from server.storage import (
    ARCHIVE,
    ENDED_WINDOW_SECONDS,
    GameStorage,
    channel,
    game_of,
    open_redis,
)
from server.stored_game import COLOURS, StoredGame, rules_of

if TYPE_CHECKING:
    from server.db import Database, FinishedGame, Recorded

__all__ = [
    "ATTENDANCE_MS",
    "CLAIM_GRACE_MS",
    "ENDED_WINDOW_SECONDS",
    "GameStore",
    "StoredGame",
    "channel",
    "game_of",
    "open_redis",
    "warm_engine",
]

log = structlog.get_logger(__name__)

# A player with no connection to a game for this long may be claimed against.
CLAIM_GRACE_MS = 30_000
# A connection's attendance in a game lapses this long after its process last renewed it.
ATTENDANCE_MS = 15_000
RECENT_GAMES = 10_000  # games a process keeps its last commit of
# A process logs a game's state under a new epoch at most this often (see `rebase`): a client
# that claims a version past the game's, once, or a thousand times, costs one.
REBASE_SECONDS = 1.0
# Counts a game's spectators in or out; a count that falls to none is deleted, so that a game
# watched to its end (whose commit deletes its count) leaves none behind when they go.
COUNT_SPECTATOR = """
local count = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
if count <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return count
"""


def warm_engine(setups: Sequence[str], game: str = DEFAULT_GAME) -> None:
    """Run once each engine path a game takes (a setup, reading, applying and writing moves,
    a stored state, the end test), so that compiled kernels are loaded before a player waits
    on them: the first Amazons game of a process otherwise waits about 300 ms for them."""
    rules = rules_of(game)
    for setup in setups:
        state = rules.new_state(setup)
        for _ in range(2):
            if state.is_terminal():
                break
            move = next(iter(state.legal_moves))
            state = state.clone()
            state.apply(state.parse_move(state.format_move(move)))
        rules.state_from_bytes(state.to_bytes()).is_terminal()
        rules.parse_state(state.text())


class GameStore:
    """The live games of one Redis. Methods take the server time `now` in ms and return the
    events they committed (already published on the game's channel), versions set."""

    # Attempts at a commit before giving up: each retry means another process changed the game
    # between our read and our write, which only a burst of actions on one game causes.
    ATTEMPTS = 8
    # Set once this process has its games' rules compiled (or loaded from numba's cache), when
    # it warms them after it listens (server/app.py): until then a new game or a move waits,
    # rather than compile them on the event loop. None: the rules are there when needed.
    rules_ready: asyncio.Event | None = None

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        claim_grace_ms: int = CLAIM_GRACE_MS,
        attendance_ms: int = ATTENDANCE_MS,
        heartbeat: Heartbeat | None = None,
        database: Database | None = None,
        ended_window_ms: int = ENDED_WINDOW_SECONDS * 1000,
    ) -> None:
        """A server process's store has a `heartbeat` (server/outage.py): it gives games back
        the time the servers were away before it charges a move, ends a game on time or lets
        a claim through; and the `database` its ended games are handed over to, and read from
        once they have left Redis, `ended_window_ms` after their hand-over. A store without
        one (a house-bot worker's) leaves the games it ends to a server's sweep
        (`hand_over_leftovers`)."""
        self.redis = redis
        self.database = database
        self.ended_window_ms = ended_window_ms
        self._ratings_moved = False  # an older data folder's, before the first hand-over
        self._handing: set[str] = set()  # games this process is handing over now
        self.heartbeat = heartbeat
        self.claim_grace_ms = claim_grace_ms
        self.attendance_ms = attendance_ms
        self.storage = GameStorage(redis)
        self.index = self.storage.index
        self._count_spectator = redis.register_script(COUNT_SPECTATOR)
        self.attendance = Attendance(
            redis,
            load=self.load,
            commit=self._commit,
            attendance_ms=attendance_ms,
            claim_grace_ms=claim_grace_ms,
        )
        # The games this process committed a move of last, with their states: the next move
        # is checked without reading Redis or the board.
        self._recent: OrderedDict[str, tuple[StoredGame, GameState[Any]]] = OrderedDict()
        self._resumed_to = 0  # the end of the last outage every live game was given back
        self._rebasing: dict[str, asyncio.Future[tuple[StoredGame, bytes | None]]] = {}
        self._rebased: dict[str, float] = {}  # game -> when this process last rebased it

    async def load(self, game_id: str) -> StoredGame:
        """The game `game_id`: from Redis while it is live or in its window after its end, then
        from the history store; NOT_FOUND when neither has it."""
        try:
            return await self.storage.load(game_id)
        except ProtocolError as error:
            if error.code is not ErrorCode.NOT_FOUND or self.database is None:
                raise
        from server.db import finished_game

        found = await finished_game(self.database, game_id)
        if found is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no game {game_id}")
        return _from_history(found)

    async def rebase(self, game_id: str, now: int) -> tuple[StoredGame, bytes | None]:
        """The game's log has lost events that were sent to its followers (Redis replicates
        asynchronously: a master that died before its replica had a commit takes the commit
        with it). Log the game's state as it is now under the next epoch, as one `game_state`
        event, so that every follower, whatever it was sent, takes it over its own, and no
        commit made on what was lost can land (the commit checks the epoch). The game, and
        the frame logged; no frame when this process logged one within REBASE_SECONDS (the
        game's state then carries that epoch) or the game has left Redis."""
        running = self._rebasing.get(game_id)
        if running is None:
            clock = asyncio.get_running_loop().time()
            if clock - self._rebased.get(game_id, -REBASE_SECONDS) < REBASE_SECONDS:
                return await self.load(game_id), None
            self._rebased = {g: t for g, t in self._rebased.items() if clock - t < REBASE_SECONDS}
            self._rebased[game_id] = clock
            running = asyncio.ensure_future(self._rebase(game_id, now))
            self._rebasing[game_id] = running
            running.add_done_callback(lambda _: self._rebasing.pop(game_id, None))
        return await asyncio.shield(running)

    async def _rebase(self, game_id: str, now: int) -> tuple[StoredGame, bytes | None]:
        for _ in range(self.ATTEMPTS):
            try:
                game = await self.storage.load(game_id)
            except ProtocolError as error:
                if error.code is not ErrorCode.NOT_FOUND:
                    raise
                return await self.load(game_id), None  # in the history store: as it ended
            new = replace(game, epoch=game.epoch + 1, version=game.version + 1)
            state = new.snapshot(now)
            if await self._commit(game.version, new, [state], now, before=game):
                log.warning("game_rebased", game_id=game_id, version=new.version, epoch=new.epoch)
                return new, state.to_wire()
        raise ProtocolError(ErrorCode.INTERNAL, f"could not bring game {game_id} up; try again")

    async def _rules(self) -> None:
        """Wait, if need be, for this process's rules (see `rules_ready`)."""
        ready = self.rules_ready
        if ready is not None and not ready.is_set():
            await ready.wait()

    async def create(
        self,
        white: Player,
        black: Player,
        *,
        time: TimeControl,
        rated: bool,
        now: int,
        game: str = DEFAULT_GAME,
        setup: str | None = None,
        start: str | None = None,
        house: tuple[str | None, str | None] = (None, None),
    ) -> GameStarted:
        """Start a game of the registered game `game` from a named setup (or a position text):
        its `game_started`, also published to both players' user channels."""
        await self._rules()
        stored, started = referee.new_game(
            white,
            black,
            time=time,
            rated=rated,
            now=now,
            game=game,
            setup=setup,
            start=start,
            house=house,
        )
        users = (user_channel(white.name), user_channel(black.name))
        if not await self._commit(0, stored, [started], now, also=users):
            raise ProtocolError(ErrorCode.INTERNAL, "could not create the game; try again")
        return started

    async def play(
        self, game_id: str, name: str, ply: int, text: str, now: int, lag_ms: int = 0
    ) -> list[GameEvent]:
        """Play move number `ply` for `name`: its `move_played`, and `game_ended` when the
        move ends the game. A resend of a played move returns its `move_played` again. A move
        that comes after the mover's clock ran out ends the game on time.

        The game this process last committed is tried first without reading Redis; the commit
        checks the version, so a stale copy only costs a retry, and a refusal is always
        decided on the stored game."""
        await self._rules()
        heartbeat = self.heartbeat
        if heartbeat is not None and heartbeat.due(now):
            await heartbeat.beat(now)
        fresh = False
        for _ in range(self.ATTEMPTS):
            recent = None if fresh else self._recent.get(game_id)
            if recent is None:
                game = await self.load(game_id)
                state = game.state()
                fresh = True
            else:
                game, state = recent
                self._recent.move_to_end(game_id)
            if heartbeat is not None and heartbeat.owes(game):
                await self._resume(game_id, now)
                fresh = True  # read it again, given back its time
                continue
            try:
                events = await self._try_move(game, state, name, ply, text, now, lag_ms)
            except ProtocolError:
                if fresh:
                    raise
                events = None
            if events is not None:
                return events
            fresh = True
        raise ProtocolError(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def _try_move(
        self,
        game: StoredGame,
        state: GameState[Any],
        name: str,
        ply: int,
        text: str,
        now: int,
        lag_ms: int,
    ) -> list[GameEvent] | None:
        """The events of the move on `game`, or None when the commit found the game changed."""
        outcome = referee.play(game, state, name, ply, text, now, lag_ms)
        if isinstance(outcome, referee.Resent):
            resent = await self._logged_move(game.game_id, outcome.ply)
            if resent is not None:
                return [resent]
            # Not in the log (a log cut short by hand): refused as any other stale ply.
            outcome = referee.play(game, state, name, ply, text, now, lag_ms, resends=False)
        if isinstance(outcome, referee.TimeUp):
            ended, event = referee.time_up(game, outcome.timeout, now)
            if await self._commit(game.version, ended, [event], now):
                raise ProtocolError(ErrorCode.GAME_OVER, outcome.message)
            return None
        assert isinstance(outcome, referee.Moved)
        if not await self._commit(game.version, outcome.game, outcome.events, now, before=game):
            return None
        if outcome.game.status is GameStatus.PLAYING:
            self._remember(outcome.game, outcome.state)
        return outcome.events

    async def _logged_move(self, game_id: str, ply: int) -> MovePlayed | None:
        """The logged `move_played` of move `ply`."""
        for frame in await self.events_since(game_id, 1):
            event = decode_event(frame)
            if isinstance(event, MovePlayed) and event.ply == ply:
                return event
        return None

    def _remember(self, game: StoredGame, state: GameState[Any]) -> None:
        self._recent[game.game_id] = (game, state)
        self._recent.move_to_end(game.game_id)
        while len(self._recent) > RECENT_GAMES:
            self._recent.popitem(last=False)

    async def resign(self, game_id: str, name: str, now: int) -> list[GameEvent]:
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            ended, event = referee.resign(game, name, now)
            if await self._commit(game.version, ended, [event], now):
                return [event]
        raise ProtocolError(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def abort(self, game_id: str, name: str, now: int) -> list[GameEvent]:
        """Call the game off: allowed until both sides have made their first move."""
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            ended, event = referee.abort(game, name, now)
            if await self._commit(game.version, ended, [event], now):
                return [event]
        raise ProtocolError(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def claim(self, game_id: str, name: str, now: int) -> list[GameEvent]:
        """Win a game the opponent left: allowed once the opponent has been away, with no
        connection, for the claim grace period."""
        for _ in range(self.ATTEMPTS):
            game = await self._current(game_id, now)
            ended, event = referee.claim(game, name, now, self.claim_grace_ms)
            if await self._commit(game.version, ended, [event], now):
                return [event]
        raise ProtocolError(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def attend(
        self, game_id: str, colour: Colour, connection: str, *, present: bool, now: int
    ) -> None:
        """See `Attendance.attend`."""
        await self.attendance.attend(game_id, colour, connection, present=present, now=now)

    async def keep_attending(self, entries: Sequence[tuple[str, Colour, str]], now: int) -> None:
        """See `Attendance.keep_attending`."""
        await self.attendance.keep_attending(entries, now)

    async def lapse_attendance(self, now: int) -> None:
        """See `Attendance.lapse_attendance`."""
        await self.attendance.lapse_attendance(now)

    async def due(self, now: int, limit: int = 100) -> list[str]:
        """Games whose deadline in the index has passed: a clock run out or a first move not
        made, or an entry `expire` puts right."""
        return await self.index.due(now, limit)

    async def expire(self, game_id: str, now: int) -> GameEnded | None:
        """End the game if its time is really up (on time, or aborted when a first move did not
        come); None when it is not (its deadline in the index is then set to the game's own),
        or another process got there first."""
        for _ in range(self.ATTEMPTS):
            try:
                game = await self._current(game_id, now)
            except ProtocolError:
                await self.index.set_deadline(game_id, None)
                return None
            if game.status is GameStatus.ENDED:
                await self.index.set_deadline(game_id, None)
                return None
            timeout = game.clock.timeout(now)
            if timeout is None:
                await self.index.set_deadline(game_id, game.clock.timeout_at())
                if (await self.load(game_id)).version != game.version:
                    # Changed meanwhile: its commit may have brought the deadline forward
                    # before the one just set; look at it again at once.
                    await self.index.set_deadline(game_id, now)
                return None
            ended, event = referee.time_up(game, timeout, now)
            if await self._commit(game.version, ended, [event], now):
                return event
        return None

    async def keep_alive(self, now: int) -> None:
        """Beat this process's heartbeat. When Redis tells of an outage this process has not
        made good, give back its time to every live game owed it: each process that learns of
        an outage does, and each game is given it once."""
        heartbeat = self.heartbeat
        if heartbeat is None:
            raise ValueError("a store without a heartbeat cannot keep one")
        await heartbeat.beat(now)
        if not heartbeat.outages or heartbeat.outages[-1].end <= self._resumed_to:
            return
        latest = heartbeat.outages[-1]
        owed = [game.game_id for game in await self._live() if heartbeat.owes(game)]
        for game_id in owed:
            await self._resume(game_id, now)
        if owed:
            log.warning(
                "clocks_given_back",
                outage_start=latest.start,
                outage_end=latest.end,
                seconds=(latest.end - latest.start) / 1000,
                games=len(owed),
            )
        self._resumed_to = latest.end

    async def _current(self, game_id: str, now: int) -> StoredGame:
        """The stored game, given back first the time of any outage it is owed."""
        heartbeat = self.heartbeat
        if heartbeat is None:
            return await self.load(game_id)
        if heartbeat.due(now):
            await heartbeat.beat(now)
        game = await self.load(game_id)
        return await self._resume(game_id, now) if heartbeat.owes(game) else game

    async def _resume(self, game_id: str, now: int) -> StoredGame:
        """Give the game back what the outages it is owed held its clocks (its `clock` event
        tells the players); the game as it is then."""
        assert self.heartbeat is not None
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            change = resume(game, self.heartbeat.outages, now)
            if change is None:
                return game
            resumed, event = change
            if await self._commit(game.version, resumed, [event], now):
                return resumed
        raise ProtocolError(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def archived(self) -> AsyncIterator[StoredGame]:
        """The ended games an older data folder keeps in Redis (ARCHIVE), oldest first."""
        for game_id in await self.redis.zrange(ARCHIVE, 0, -1):
            with contextlib.suppress(ProtocolError):
                yield await self.storage.load(game_id.decode())

    async def events_since(self, game_id: str, version: int) -> list[bytes]:
        """The logged events after `version`, as frames."""
        return await self.storage.events_since(game_id, version)

    async def games_of(self, name: str) -> list[str]:
        return await self.index.games_of(name)

    async def ended_of(self, game_ids: Sequence[str]) -> set[str]:
        """Those of `game_ids` that are not in play: ended (or never were)."""
        return await self.index.not_live(game_ids)

    async def live_games(self, now: int) -> list[GameSummary]:
        games = await self._live()
        counts = await self.index.spectators([game.game_id for game in games])
        summaries = [game.summary(now, counts[game.game_id]) for game in games]
        return sorted(summaries, key=lambda g: g.game_id)

    async def _live(self) -> list[StoredGame]:
        """The games in play."""
        games = await self.storage.load_many(await self.index.live())
        return [game for game in games.values() if game and game.status is GameStatus.PLAYING]

    async def count_spectator(self, game_id: str, change: int) -> None:
        """Count a spectator of a game in (+1) or out (-1), and tell those who follow the game
        how many watch now."""
        key = spectators_key(bucket_of(game_id))
        count = int(await self._count_spectator(keys=[key], args=[game_id, change]))
        await self.storage.publish(game_id, Spectators(game_id, max(0, count)).to_wire())

    async def repair_index(self, bucket: int) -> int:
        """Put the indexes of bucket `bucket` right from its games (`GameIndex.repair`); how
        many entries were wrong. A server runs it over every bucket in turn."""
        game_ids = await self.index.live(bucket)
        return await self.index.repair(bucket, await self.storage.load_many(game_ids))

    async def move_older_index(self) -> None:
        """Move an older data folder's indexes into their buckets and rebuild every bucket
        from its games: once, as a server starts."""
        moved = await self.index.move_older()
        if moved:
            log.info("game_indexes_moved", entries=moved)
        for bucket in range(BUCKETS):
            await self.repair_index(bucket)

    async def _commit(
        self,
        expected: int,
        game: StoredGame,
        events: Sequence[GameEvent],
        now: int,
        also: Sequence[str] = (),
        before: StoredGame | None = None,
    ) -> bool:
        """Commit through storage (`before`: the game at `expected`, when known); an ended
        game is then handed over (with a database)."""
        done = await self.storage.commit(expected, game, events, also, before)
        # Whatever this process remembered of the game is out of date now (or was already).
        self._recent.pop(game.game_id, None)
        if done and game.status is GameStatus.ENDED:
            log.info(
                "game_ended",
                game_id=game.game_id,
                game=game.game,
                termination=str(game.termination),
                winner=str(game.winner),
                ply=game.ply,
            )
            if self.database is not None:
                try:
                    await self.hand_over(game)
                except Exception:
                    # The game stays on the hand-over set: the next sweep hands it over.
                    log.exception("handover_failed", game_id=game.game_id)
        return done

    async def hand_over(self, game: StoredGame) -> Recorded:
        """Write the ended `game` to the history store (its record, moves and rating changes in
        one transaction keyed by its id), count the change to its players' ratings
        (`server.ratings`), then let it go from Redis (`GameStorage.let_go`: off the hand-over
        set, expiring after the ended window). A process that stops between the steps leaves
        it on the set, and whichever process hands it over again writes nothing twice and
        counts the change again."""
        from server.db import FinishedGame, record_finished_game
        from server.ladder.store import ladder_of

        assert self.database is not None, "a store hands games over only to its database"
        self._handing.add(game.game_id)
        try:
            await self._move_ratings()
            ladder = await ladder_of(self.redis, game.game_id)  # which rates it there
            finished = FinishedGame.of(game, ladder)
            recorded = await record_finished_game(self.database, finished)
            if finished.moves_ratings:
                await bump_versions(self.redis, (finished.white.holder, finished.black.holder))
            await self.storage.let_go(game.game_id, self.ended_window_ms)
        finally:
            self._handing.discard(game.game_id)
        log.info("game_handed_over", game_id=game.game_id, first=recorded.first)
        return recorded

    async def hand_over_leftovers(self) -> int:
        """Hand over the ended games still on the hand-over set: those a process stopped before
        handing over, or a store without a database (a worker's) ended. How many were; one that
        fails is logged and left there for the next sweep, and the others go on."""
        await self._move_ratings()
        # Not those this process is handing over right now: another process's sweep may
        # hand one over again meanwhile, which writes nothing.
        ids = await self.index.waiting_handover()
        ids = [game_id for game_id in ids if game_id not in self._handing]
        handed = 0
        for game_id in ids:
            try:
                await self.hand_over(await self.load(game_id))
            except ProtocolError as error:
                if error.code is not ErrorCode.NOT_FOUND:
                    raise
                # Deleted from Redis by hand: there is nothing left to hand over.
                log.warning("handover_game_missing", game_id=game_id)
                await self.index.handed_over(game_id)
                continue
            except Exception:
                log.exception("handover_failed", game_id=game_id)
                continue
            handed += 1
        return handed

    async def _move_ratings(self) -> None:
        """Copy the ratings and finished games an older data folder keeps in Redis into a
        database that has none, once, before this process hands over a game (which would rate
        from nothing); Redis then forgets its ratings (`move_ratings`)."""
        if self._ratings_moved or self.database is None:
            return
        await self.index.move_older()  # its games to hand over among them
        from server.db.moved_games import move_finished_games
        from server.db.moved_ratings import UNRATED, move_ratings

        # An older folder's games ended and not rated yet are rated when handed over, not
        # copied: marked first, so the move of its finished games leaves them to the hand-over.
        unrated = await self.redis.smembers(UNRATED)
        if unrated:
            await self.index.to_hand_over(g.decode() for g in unrated)
            await self.redis.delete(UNRATED)
        moved = await move_ratings(self.database, self.redis)
        if moved is not None and moved.ratings + moved.points + moved.deleted > 0:
            log.info(
                "ratings_moved",
                ratings=moved.ratings,
                history_points=moved.points,
                redis_keys_deleted=moved.deleted,
            )
        games = await move_finished_games(self.database, self)
        if games:
            log.info("finished_games_moved", games=games)
        self._ratings_moved = True


def _from_history(found: FinishedGame) -> StoredGame:
    """A finished game from the history store as the live store had it, for what reads a game
    by id once it has left Redis (watching, reviewing, analysing it): its moves replayed for
    the side to move and the final state. Its version counts the events every game logs (its
    start, a move each, its end), and its final clocks those the history kept; for a game
    recorded before it kept them, those after its last move, the side to move's at zero when
    it lost on time."""
    record = found.record
    assert record.time is not None
    base, increment = record.time
    rules = rules_of(record.game)
    state = rules.parse_state(record.start)
    for move in record.moves:
        state.apply(state.parse_move(move))
    to_move = COLOURS[state.current_player]
    clocks = tuple((white, black) for white, black in record.clocks)
    termination = Termination(record.termination.replace(" ", "_"))
    if found.final_clocks is not None:
        final = list(found.final_clocks)
    else:
        final = list(clocks[-1] if clocks else (base * 1000, base * 1000))
        if termination is Termination.TIME_FORFEIT:
            final[COLOURS.index(to_move)] = 0
    extra: dict[str, Any] = {"final_clocks": final}
    if found.abort_cause is not None:
        extra.update(abort_cause=found.abort_cause, abort_side=found.abort_side)
    white, black = (
        Player(seat.name, seat.kind, rating)
        for seat, rating in zip(
            (found.white, found.black), (record.white_rating, record.black_rating), strict=True
        )
    )
    return StoredGame(
        game_id=found.game_id,
        white=white,
        black=black,
        start=record.start,
        setup=record.setup,
        time=TimeControl(base, increment),
        rated=bool(record.rated),
        clock=replace(
            Clock.start(base, increment, found.ended, first=to_move), ply=len(record.moves)
        ),
        created=found.created,
        moves=tuple(record.moves),
        move_ms=tuple(round(seconds * 1000) for seconds in record.seconds),
        clocks_after=clocks,
        status=GameStatus.ENDED,
        winner=None if record.winner is None else Colour(record.winner),
        termination=termination,
        ended=found.ended,
        version=len(record.moves) + 2,
        house=(found.white.house, found.black.house),
        current=state.to_bytes(),
        extra=extra,
        game=record.game,
    )
