"""Live games in Redis: creating a game, playing, resigning, aborting, claiming and timing out,
each as one atomic commit that checks the game's event version, appends the events to the
game's log, publishes them, and keeps the indexes (deadlines, live games, house-bot requests)
in step. Every rule is the engine's; every clock reading is the caller's `now` in ms.
"""

from __future__ import annotations

import contextlib
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack
import redis.asyncio as aioredis
import structlog

from engine.amazons import Move, Position
from engine.errors import IllegalMoveError, NotationError
from engine.records import GameRecord, utc_date
from server.clock import Clock, LagPolicy, LateMoveError, Side, Timeout
from server.hub import user_channel
from server.lane import LaneRedis
from server.protocol import (
    Clocks,
    Colour,
    ErrorCode,
    GameEnded,
    GameEvent,
    GameSnapshot,
    GameStarted,
    GameStatus,
    GameSummary,
    MovePlayed,
    Player,
    PlayerKind,
    Presence,
    ProtocolError,
    Termination,
    TimeControl,
    colour_of,
    colour_to_move,
    decode_event,
)
from server.ratings import UNRATED, settle

__all__ = [
    "AI_STREAM",
    "ATTENDANCE_MS",
    "CLAIM_GRACE_MS",
    "Game",
    "GameStore",
    "channel",
    "open_redis",
    "warm_engine",
]

log = structlog.get_logger(__name__)

# Keys. Per-game keys share the hash tag {g:ID} so one game lives in one cluster slot.
LIVE = "games:live"  # set of live game ids
DEADLINES = "games:deadlines"  # sorted set: game id -> server ms when it must be looked at
ARCHIVE = "games:archive"  # sorted set: game id -> server ms when it ended
AI_STREAM = "ai:requests"  # stream of house-bot move requests
# A player with no connection to a game for this long may be claimed against.
CLAIM_GRACE_MS = 30_000
REDIS_CONNECTIONS = 64  # a process's connections to Redis; more commands wait their turn
REDIS_WAIT_SECONDS = 10
RECENT_GAMES = 10_000  # games a process keeps its last commit of
# A connection's attendance in a game lapses this long after its process last renewed it.
ATTENDANCE_MS = 15_000
SPECTATORS = "games:spectators"  # hash: game id -> spectators connected


def open_redis(url: str, connections: int = REDIS_CONNECTIONS) -> aioredis.Redis:
    """A client for the server's Redis: the short commands of the hot paths go through a lane
    of their own (server.lane), and the pool of the others makes a command wait for a free
    connection (up to REDIS_WAIT_SECONDS) rather than fail when all are busy."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=connections, timeout=REDIS_WAIT_SECONDS, protocol=2
    )
    return LaneRedis.from_pool(pool)


def game_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:game"


def events_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:events"


def online_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:online"


def user_games_key(name: str) -> str:
    return f"user-games:{name.lower()}"


def channel(game_id: str) -> str:
    """The pub/sub channel a game's events are published on."""
    return f"game:{game_id}"


def game_of(channel_name: str) -> str | None:
    """The game whose events `channel_name` carries (see `channel`), or None."""
    game_id = channel_name.removeprefix("game:")
    return game_id if game_id != channel_name else None


# One commit: check the version, store the game, append and publish its new events, and keep
# the indexes in step, all or nothing.
COMMIT = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'version', ARGV[3])
local game_id = ARGV[4]
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[3], game_id)
else
  redis.call('ZADD', KEYS[3], ARGV[5], game_id)
end
if ARGV[6] == '1' then
  redis.call('SADD', KEYS[4], game_id)
  redis.call('SADD', KEYS[6], game_id)
  redis.call('SADD', KEYS[7], game_id)
else
  redis.call('SREM', KEYS[4], game_id)
  redis.call('SREM', KEYS[6], game_id)
  redis.call('SREM', KEYS[7], game_id)
  redis.call('ZADD', KEYS[8], ARGV[9], game_id)
  redis.call('HDEL', KEYS[9], game_id)
  if ARGV[10] == '1' then redis.call('SADD', KEYS[10], game_id) end
end
if ARGV[7] ~= '' then
  redis.call('XADD', KEYS[5], '*', 'game_id', game_id, 'ply', ARGV[7])
end
for i = 11, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[i])
  for name in string.gmatch(ARGV[8], '%S+') do
    redis.call('PUBLISH', name, ARGV[i])
  end
end
return 1
"""


def _player(data: dict[str, Any]) -> Player:
    return Player(data["name"], PlayerKind(data["kind"]), data.get("rating"))


def _player_data(player: Player) -> dict[str, Any]:
    return {"name": player.name, "kind": str(player.kind), "rating": player.rating}


@dataclass(frozen=True)
class Game:
    """A game as stored: players, start, moves with the time each took and the clocks after
    it, the clock, status and outcome. `version` is the number of events in its log."""

    game_id: str
    white: Player
    black: Player
    start: str
    setup: str | None
    time: TimeControl
    rated: bool
    clock: Clock
    created: int
    moves: tuple[str, ...] = ()
    move_ms: tuple[int, ...] = ()  # time charged for each move
    clocks_after: tuple[tuple[int, int], ...] = ()  # (white, black) ms after each move
    status: GameStatus = GameStatus.PLAYING
    winner: Colour | None = None
    termination: Termination | None = None
    ended: int | None = None
    version: int = 0
    house: tuple[str | None, str | None] = (None, None)  # bot specs of house players
    current: bytes = b""  # the position after the moves, Position.to_bytes (b"" before one)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ply(self) -> int:
        return len(self.moves)

    def with_move(
        self, move: str, ms: int, clocks: tuple[int, int], clock: Clock, current: bytes
    ) -> Game:
        """The game after one more move, charged `ms`, with the clocks after it, the new clock
        and position, and one more event. Built whole rather than by dataclasses.replace,
        which costs twice as much: every move pays for it."""
        return Game(
            game_id=self.game_id,
            white=self.white,
            black=self.black,
            start=self.start,
            setup=self.setup,
            time=self.time,
            rated=self.rated,
            clock=clock,
            created=self.created,
            moves=(*self.moves, move),
            move_ms=(*self.move_ms, ms),
            clocks_after=(*self.clocks_after, clocks),
            status=self.status,
            winner=self.winner,
            termination=self.termination,
            ended=self.ended,
            version=self.version + 1,
            house=self.house,
            current=current,
            extra=self.extra,
        )

    @property
    def to_move(self) -> Colour:
        return colour_to_move(self.start, self.ply)

    def position(self) -> Position:
        """The position after the moves played."""
        return Position.from_bytes(self.current) if self.current else Position.parse(self.start)

    def position_at(self, ply: int) -> Position:
        """The position after the first `ply` moves."""
        position = Position.parse(self.start)
        for text in self.moves[:ply]:
            position.apply(position.parse_move(text))
        return position

    def player(self, colour: Colour) -> Player:
        return self.white if colour is Colour.WHITE else self.black

    def colour_of(self, name: str) -> Colour | None:
        """The colour `name` plays here, or None for a spectator."""
        return colour_of(self.white, self.black, name)

    def clocks(self, now: int) -> Clocks:
        return Clocks(*self.clock_readings(now))

    def clock_readings(self, now: int) -> tuple[int, int]:
        """(White's, Black's) remaining ms at `now`."""
        return self.clock.remaining(Side.WHITE, now), self.clock.remaining(Side.BLACK, now)

    def snapshot(self, now: int) -> GameSnapshot:
        return GameSnapshot(
            self.game_id,
            self.version,
            white=self.white,
            black=self.black,
            start=self.start,
            time=self.time,
            rated=self.rated,
            moves=self.moves,
            clocks=self.clocks(now) if self.status is GameStatus.PLAYING else self.final_clocks(),
            to_move=self.to_move,
            status=self.status,
            setup=self.setup,
            winner=self.winner,
            termination=self.termination,
        )

    def summary(self, now: int, spectators: int) -> GameSummary:
        return GameSummary(
            self.game_id,
            self.white,
            self.black,
            self.setup or "",
            self.time,
            self.rated,
            self.clocks(now),
            self.to_move,
            self.ply,
            spectators,
        )

    def record(self) -> GameRecord:
        """The game as a game record (docs/records.md), for review and export."""
        return GameRecord(
            game="amazons",
            start=self.start,
            white=self.white.name,
            black=self.black.name,
            game_id=self.game_id,
            date=utc_date(self.created / 1000),
            rated=self.rated,
            white_rating=self.white.rating,
            black_rating=self.black.rating,
            moves=list(self.moves),
            seconds=[ms / 1000 for ms in self.move_ms],
            nodes=[0] * self.ply,
            winner=None if self.winner is None else str(self.winner),
            termination=str(self.termination or "").replace("_", " "),
            setup=self.setup,
            time=[self.time.base, self.time.increment],
            clocks=[list(c) for c in self.clocks_after],
        )

    def final_clocks(self) -> Clocks:
        return Clocks(*self.extra.get("final_clocks", (0, 0)))

    def to_bytes(self) -> bytes:
        doc = {
            "game_id": self.game_id,
            "white": _player_data(self.white),
            "black": _player_data(self.black),
            "start": self.start,
            "setup": self.setup,
            "time": [self.time.base, self.time.increment],
            "rated": self.rated,
            "clock": self.clock.to_dict(),
            "created": self.created,
            # msgpack writes tuples as arrays: no copies of lists that grow with every move.
            "moves": self.moves,
            "move_ms": self.move_ms,
            "clocks_after": self.clocks_after,
            "status": str(self.status),
            "winner": None if self.winner is None else str(self.winner),
            "termination": None if self.termination is None else str(self.termination),
            "ended": self.ended,
            "version": self.version,
            "house": list(self.house),
            "current": self.current,
            "extra": self.extra,
        }
        data: bytes = msgpack.packb(doc)
        return data

    @classmethod
    def from_bytes(cls, data: bytes) -> Game:
        doc = msgpack.unpackb(data)
        return cls(
            game_id=doc["game_id"],
            white=_player(doc["white"]),
            black=_player(doc["black"]),
            start=doc["start"],
            setup=doc["setup"],
            time=TimeControl(*doc["time"]),
            rated=doc["rated"],
            clock=Clock.from_dict(doc["clock"]),
            created=doc["created"],
            moves=tuple(doc["moves"]),
            move_ms=tuple(doc["move_ms"]),
            clocks_after=tuple((w, b) for w, b in doc["clocks_after"]),
            status=GameStatus(doc["status"]),
            winner=None if doc["winner"] is None else Colour(doc["winner"]),
            termination=None if doc["termination"] is None else Termination(doc["termination"]),
            ended=doc["ended"],
            version=doc["version"],
            house=(doc["house"][0], doc["house"][1]),
            current=_position_bytes(doc["current"]),
            extra=doc["extra"],
        )


def warm_engine(setups: Sequence[str]) -> None:
    """Run once each engine path a game takes (a setup, reading and applying moves, a stored
    position, the end test), so that the compiled kernels are loaded before a player waits on
    them: the first game of a process otherwise waits about 300 ms for them."""
    for setup in setups:
        position = Position.setup(setup)
        for ply in range(2):
            move = position.random_move(ply)
            if move is None:
                break
            position.apply(position.parse_move(str(move)))
        Position.from_bytes(position.to_bytes()).is_terminal()
        Position.parse(position.text())


def _position_bytes(stored: bytes | str) -> bytes:
    """A stored game's position as `Position.to_bytes`: games stored by earlier versions of
    the server keep it as position text."""
    if isinstance(stored, bytes):
        return stored
    return Position.parse(stored).to_bytes() if stored else b""


def _refuse(code: ErrorCode, message: str) -> ProtocolError:
    return ProtocolError(code, message)


def _other(colour: Colour) -> Colour:
    return Colour.BLACK if colour is Colour.WHITE else Colour.WHITE


def _ended(game: Game) -> GameEnded:
    assert game.termination is not None
    return GameEnded(
        game.game_id,
        game.version,
        termination=game.termination,
        clocks=game.final_clocks(),
        winner=game.winner,
    )


class GameStore:
    """The live games of one Redis. Methods take the server time `now` in ms and return the
    events they committed (already published on the game's channel), versions set."""

    # Attempts at a commit before giving up: each retry means another process changed the game
    # between our read and our write, which only a burst of actions on one game causes.
    ATTEMPTS = 8

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        claim_grace_ms: int = CLAIM_GRACE_MS,
        attendance_ms: int = ATTENDANCE_MS,
    ) -> None:
        self.redis = redis
        self.claim_grace_ms = claim_grace_ms
        self.attendance_ms = attendance_ms
        # The games this process committed a move of last, with their positions: the next
        # move is checked without reading Redis or the board.
        self._recent: OrderedDict[str, tuple[Game, Position]] = OrderedDict()
        self._commit_script = redis.register_script(COMMIT)

    async def load(self, game_id: str) -> Game:
        data = await self.redis.hget(game_key(game_id), "doc")
        if data is None:
            raise _refuse(ErrorCode.NOT_FOUND, f"no game {game_id}")
        return Game.from_bytes(data)

    async def create(
        self,
        white: Player,
        black: Player,
        *,
        time: TimeControl,
        rated: bool,
        now: int,
        setup: str | None = None,
        start: str | None = None,
        house: tuple[str | None, str | None] = (None, None),
    ) -> GameStarted:
        """Start a game from a named setup (or a position text): its `game_started`, also
        published to both players' user channels."""
        if start is None:
            if setup is None:
                raise ValueError("a game needs a setup or a start position")
            start = Position.setup(setup).text()
        game = Game(
            game_id=secrets.token_urlsafe(6),
            white=white,
            black=black,
            start=start,
            setup=setup,
            time=time,
            rated=rated,
            clock=start_clock(time, white, black, start, now),
            created=now,
            house=house,
            version=1,
        )
        started = GameStarted(
            game.game_id,
            1,
            white=white,
            black=black,
            start=start,
            time=time,
            rated=rated,
            clocks=game.clocks(now),
            setup=setup,
            to_move=game.to_move,
        )
        users = (user_channel(white.name), user_channel(black.name))
        if not await self._commit(0, game, [started], now, also=users):
            raise _refuse(ErrorCode.INTERNAL, "could not create the game; try again")
        return started

    async def play(
        self, game_id: str, name: str, ply: int, text: str, now: int, lag_ms: int = 0
    ) -> list[GameEvent]:
        """Play move number `ply` for `name`: its `move_played`, and `game_ended` when the
        opponent is left without a move. A resend of a played move returns its `move_played`
        again. A move that comes after the mover's clock ran out ends the game on time.

        The game this process last committed is tried first without reading Redis; the commit
        checks the version, so a stale copy only costs a retry, and a refusal is always
        decided on the stored game."""
        fresh = False
        for _ in range(self.ATTEMPTS):
            game = None if fresh else self._recent_game(game_id)
            if game is None:
                game = await self.load(game_id)
                fresh = True
            try:
                events = await self._try_move(game, name, ply, text, now, lag_ms)
            except ProtocolError:
                if fresh:
                    raise
                events = None
            if events is not None:
                return events
            fresh = True
        raise _refuse(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def _try_move(
        self, game: Game, name: str, ply: int, text: str, now: int, lag_ms: int
    ) -> list[GameEvent] | None:
        """The events of the move on `game`, or None when the commit found the game changed."""
        colour = self._player_colour(game, name)
        if ply < game.ply:
            resent = await self._resent(game, colour, ply, text)
            if resent is not None:
                return [resent]
        self._require_playing(game)
        if ply != game.ply:
            raise _refuse(
                ErrorCode.STALE_PLY,
                f"ply {ply} is not the next move's number: {game.ply} moves have been played",
            )
        if colour is not game.to_move:
            raise _refuse(ErrorCode.NOT_YOUR_TURN, f"it is {game.to_move}'s turn to move")
        position = self._position(game)
        try:
            move = position.parse_move(text)
        except (NotationError, IllegalMoveError) as error:
            raise _refuse(ErrorCode.ILLEGAL_MOVE, str(error)) from None
        try:
            clock, credit = game.clock.charge(now, lag_ms)
        except LateMoveError as late:
            if await self._time_up(game, late.timeout, now):
                raise _refuse(ErrorCode.GAME_OVER, _late(late.timeout, colour)) from None
            return None
        position.apply(move)
        after = (clock.remaining(Side.WHITE, now), clock.remaining(Side.BLACK, now))
        played = game.with_move(
            str(move),
            max(0, game.clock.elapsed(now) - credit),
            after,
            clock,
            position.to_bytes(),
        )
        events: list[GameEvent] = [
            MovePlayed(
                game.game_id,
                played.version,
                ply=ply,
                move=str(move),
                clocks=Clocks(*after),
                lag_credit=credit,
            )
        ]
        if position.is_terminal():
            played = _finish(
                replace(played, version=played.version + 1),
                Termination.NO_LEGAL_MOVE,
                colour,
                now,
                after,
            )
            events.append(_ended(played))
        if not await self._commit(game.version, played, events, now):
            return None
        if played.status is GameStatus.PLAYING:
            self._remember(played, position)
        return events

    def _recent_game(self, game_id: str) -> Game | None:
        recent = self._recent.get(game_id)
        return None if recent is None else recent[0]

    def _position(self, game: Game) -> Position:
        """A working copy of the game's position: from this process's cache when it made the
        last commit, else read from the stored text."""
        recent = self._recent.get(game.game_id)
        if recent is not None and recent[0].version == game.version:
            self._recent.move_to_end(game.game_id)
            return recent[1].clone()
        return game.position()

    def _remember(self, game: Game, position: Position) -> None:
        self._recent[game.game_id] = (game, position)
        self._recent.move_to_end(game.game_id)
        while len(self._recent) > RECENT_GAMES:
            self._recent.popitem(last=False)

    async def resign(self, game_id: str, name: str, now: int) -> list[GameEvent]:
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            colour = self._player_colour(game, name)
            self._require_playing(game)
            ended = await self._end(game, Termination.RESIGNATION, _other(colour), now)
            if ended is not None:
                return [ended]
        raise _refuse(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def abort(self, game_id: str, name: str, now: int) -> list[GameEvent]:
        """Call the game off: allowed until both sides have made their first move."""
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            self._player_colour(game, name)
            self._require_playing(game)
            if game.ply >= 2:
                raise _refuse(
                    ErrorCode.FORBIDDEN, "too late to abort: both sides have moved; resign instead"
                )
            ended = await self._end(game, Termination.ABORTED, None, now)
            if ended is not None:
                return [ended]
        raise _refuse(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def attend(
        self, game_id: str, colour: Colour, connection: str, *, present: bool, now: int
    ) -> None:
        """Record a connection of the player of `colour` coming or going; the game hears
        `presence` when the player's last connection goes or the first comes back. Each
        connection's attendance lapses unless its process renews it (`keep_attending`), so the
        connections of a process that died stop counting."""
        key = online_key(game_id)
        field = f"{colour}:{connection}"
        if present:
            await self.redis.hset(key, field, now + self.attendance_ms)
        else:
            await self.redis.hdel(key, field)
        online = any(
            name.startswith(f"{colour}:") and until > now
            for name, until in (await self._attendance(game_id)).items()
        )
        await self._presence(game_id, colour, online=online, now=now)

    async def keep_attending(self, entries: Sequence[tuple[str, Colour, str]], now: int) -> None:
        """Renew the attendance of this process's connections: (game id, colour, connection)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id, colour, connection in entries:
                pipe.hset(online_key(game_id), f"{colour}:{connection}", now + self.attendance_ms)
            await pipe.execute()

    async def lapse_attendance(self, now: int) -> None:
        """Drop attendances no process renewed (their server died); a player left with none
        is away."""
        live = [g.decode() for g in await self.redis.smembers(LIVE)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in live:
                pipe.hgetall(online_key(game_id))
            tables = await pipe.execute()
        for game_id, fields in zip(live, tables, strict=True):
            attendance = {name.decode(): int(until) for name, until in fields.items()}
            lapsed = [name for name, until in attendance.items() if until <= now]
            if not lapsed:
                continue
            await self.redis.hdel(online_key(game_id), *lapsed)
            for colour in {Colour(name.split(":")[0]) for name in lapsed}:
                if not any(
                    name.startswith(f"{colour}:") and until > now
                    for name, until in attendance.items()
                ):
                    await self._presence(game_id, colour, online=False, now=now)

    async def _attendance(self, game_id: str) -> dict[str, int]:
        fields = await self.redis.hgetall(online_key(game_id))
        return {name.decode(): int(until) for name, until in fields.items()}

    async def _presence(self, game_id: str, colour: Colour, *, online: bool, now: int) -> None:
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            away = dict(game.extra.get("away", {}))
            if game.status is GameStatus.ENDED or (str(colour) in away) != online:
                return
            if online:
                del away[str(colour)]
            else:
                away[str(colour)] = now
            changed = replace(game, version=game.version + 1, extra={**game.extra, "away": away})
            event = Presence(
                game_id,
                changed.version,
                side=colour,
                online=online,
                claim_after=None if online else self.claim_grace_ms,
            )
            if await self._commit(game.version, changed, [event], now):
                return

    async def claim(self, game_id: str, name: str, now: int) -> list[GameEvent]:
        """Win a game the opponent left: allowed once the opponent has been away, with no
        connection, for the claim grace period."""
        for _ in range(self.ATTEMPTS):
            game = await self.load(game_id)
            colour = self._player_colour(game, name)
            self._require_playing(game)
            since = game.extra.get("away", {}).get(str(_other(colour)))
            if since is None:
                raise _refuse(ErrorCode.CONFLICT, "your opponent is connected")
            wait = since + self.claim_grace_ms - now
            if wait > 0:
                raise ProtocolError(
                    ErrorCode.CONFLICT,
                    f"your opponent may still come back: claim in {wait / 1000:.0f} s",
                    retry_after=max(1, -(-wait // 1000)),
                )
            ended = await self._end(game, Termination.ABANDONED, colour, now)
            if ended is not None:
                return [ended]
        raise _refuse(ErrorCode.INTERNAL, f"game {game_id} is too busy; try again")

    async def due(self, now: int, limit: int = 100) -> list[str]:
        """Live games whose deadline has passed: a clock run out or a first move not made."""
        found = await self.redis.zrangebyscore(DEADLINES, "-inf", now, start=0, num=limit)
        return [g.decode() if isinstance(g, bytes) else g for g in found]

    async def expire(self, game_id: str, now: int) -> GameEnded | None:
        """End the game if its time is really up (on time, or aborted when a first move did not
        come); None when it is not, or another process got there first."""
        for _ in range(self.ATTEMPTS):
            try:
                game = await self.load(game_id)
            except ProtocolError:
                await self.redis.zrem(DEADLINES, game_id)
                return None
            if game.status is GameStatus.ENDED:
                await self.redis.zrem(DEADLINES, game_id)
                return None
            timeout = game.clock.timeout(now)
            if timeout is None:
                return None
            ended = await self._time_up(game, timeout, now)
            if ended is not None:
                return ended
        return None

    async def archived(self, since: int = 0) -> AsyncIterator[Game]:
        """Ended games, oldest first, that ended at or after server time `since` (ms)."""
        ids = await self.redis.zrangebyscore(ARCHIVE, since, "+inf")
        for game_id in ids:
            with contextlib.suppress(ProtocolError):
                yield await self.load(game_id.decode())

    async def events_since(self, game_id: str, version: int) -> list[bytes]:
        """The logged events after `version`, as frames."""
        frames: list[bytes] = await self.redis.lrange(events_key(game_id), version, -1)
        return frames

    async def games_of(self, name: str) -> list[str]:
        found = await self.redis.smembers(user_games_key(name))
        return sorted(g.decode() if isinstance(g, bytes) else g for g in found)

    async def live_games(self, now: int) -> list[GameSummary]:
        ids = [g.decode() for g in await self.redis.smembers(LIVE)]
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hget(game_key(game_id), "doc")
            docs = await pipe.execute()
        counts = await self.redis.hmget(SPECTATORS, ids)
        games = []
        for data, count in zip(docs, counts, strict=True):
            if data is not None:
                game = Game.from_bytes(data)
                if game.status is GameStatus.PLAYING:
                    games.append(game.summary(now, max(0, int(count or 0))))
        return sorted(games, key=lambda g: g.game_id)

    async def count_spectator(self, game_id: str, change: int) -> None:
        await self.redis.hincrby(SPECTATORS, game_id, change)

    def _player_colour(self, game: Game, name: str) -> Colour:
        colour = game.colour_of(name)
        if colour is None:
            raise _refuse(ErrorCode.NOT_A_PLAYER, f"{name} does not play in game {game.game_id}")
        return colour

    @staticmethod
    def _require_playing(game: Game) -> None:
        if game.status is GameStatus.ENDED:
            raise _refuse(ErrorCode.GAME_OVER, f"game {game.game_id} is over ({game.termination})")

    async def _resent(self, game: Game, colour: Colour, ply: int, text: str) -> MovePlayed | None:
        """The `move_played` of move `ply` when `text` is that move by the same player: a
        client resending a move whose reply it lost."""
        if colour_to_move(game.start, ply) is not colour:
            return None
        try:
            move = Move.parse(text)
        except NotationError:
            return None
        if str(move) != game.moves[ply]:
            return None
        for frame in await self.events_since(game.game_id, 1):
            event = decode_event(frame)
            if isinstance(event, MovePlayed) and event.ply == ply:
                return event
        return None

    async def _time_up(self, game: Game, timeout: Timeout, now: int) -> GameEnded | None:
        """End the game of a side to move that let its time run out: aborted in the first
        moves, else lost on time."""
        if timeout is Timeout.ABORTED:
            return await self._end(game, Termination.ABORTED, None, now)
        return await self._end(game, Termination.TIME_FORFEIT, _other(game.to_move), now)

    async def _end(
        self, game: Game, termination: Termination, winner: Colour | None, now: int
    ) -> GameEnded | None:
        clocks = game.clock_readings(now)
        if termination is Termination.TIME_FORFEIT:
            clocks = (0, clocks[1]) if game.to_move is Colour.WHITE else (clocks[0], 0)
        ended = _finish(replace(game, version=game.version + 1), termination, winner, now, clocks)
        event = _ended(ended)
        return event if await self._commit(game.version, ended, [event], now) else None

    async def _commit(
        self,
        expected: int,
        game: Game,
        events: Sequence[GameEvent],
        now: int,
        also: Sequence[str] = (),
    ) -> bool:
        live = game.status is GameStatus.PLAYING
        side = 0 if game.to_move is Colour.WHITE else 1
        house_turn = live and game.house[side] is not None
        done = await self._commit_script(
            keys=[
                game_key(game.game_id),
                events_key(game.game_id),
                DEADLINES,
                LIVE,
                AI_STREAM,
                user_games_key(game.white.name),
                user_games_key(game.black.name),
                ARCHIVE,
                SPECTATORS,
                UNRATED,
            ],
            args=[
                expected,
                game.to_bytes(),
                game.version,
                game.game_id,
                game.clock.timeout_at() if live else "",
                "1" if live else "0",
                game.ply if house_turn else "",
                " ".join((channel(game.game_id), *also)),
                now,
                "1" if game.rated else "0",
                *(event.to_wire() for event in events),
            ],
        )
        # Whatever this process remembered of the game is out of date now (or was already).
        self._recent.pop(game.game_id, None)
        if done and not live:
            log.info(
                "game_ended",
                game_id=game.game_id,
                termination=str(game.termination),
                winner=str(game.winner),
                ply=game.ply,
            )
            if game.rated:
                await self.rate(game)
        return bool(done)

    async def rate(self, game: Game) -> None:
        """Update the players' ratings for an ended rated game, once."""
        await settle(
            self.redis,
            game.game_id,
            game.white.name,
            game.black.name,
            game.winner,
            (game.white.kind, game.black.kind),
        )

    async def rate_leftovers(self) -> None:
        """Rate ended games whose ending process stopped before rating them."""
        for game_id in await self.redis.smembers(UNRATED):
            game = await self.load(game_id.decode())
            await self.rate(game)


def start_clock(time: TimeControl, white: Player, black: Player, start: str, now: int) -> Clock:
    """A new game's clock: machine players (external and house bots) get the bots' flat lag
    allowance, people the quota."""

    def policy(player: Player) -> LagPolicy | None:
        if player.kind in (PlayerKind.BOT, PlayerKind.HOUSE):
            return LagPolicy.for_bot(time.base, time.increment)
        return None

    clock = Clock.start(time.base, time.increment, now, white=policy(white), black=policy(black))
    first = colour_to_move(start, 0)
    return clock if first is Colour.WHITE else replace(clock, to_move=Side.BLACK)


def _late(timeout: Timeout, colour: Colour) -> str:
    if timeout is Timeout.ABORTED:
        return f"the game was aborted: {colour} did not make a first move in time"
    return f"{colour} ran out of time"


def _finish(
    game: Game,
    termination: Termination,
    winner: Colour | None,
    now: int,
    clocks: tuple[int, int],
) -> Game:
    extra = {**game.extra, "final_clocks": list(clocks)}
    return replace(
        game,
        status=GameStatus.ENDED,
        termination=termination,
        winner=winner,
        ended=now,
        extra=extra,
    )
