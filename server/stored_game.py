"""A game as the server stores it (`StoredGame`): players, the registered game and its start,
moves with their times and clocks, the clock, status and outcome; its msgpack codec, and the
views the protocol sends of it (snapshot, summary) and the game record. The game's rules are
reached through `engine.game`'s registry by the stored game's name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Final

import msgpack

from engine.game import GameRules, GameState, get_game
from engine.records import GameRecord, utc_date
from server.clock import Clock
from server.protocol import (
    DEFAULT_GAME,
    AbortCause,
    Clocks,
    Colour,
    GameSnapshot,
    GameStatus,
    GameSummary,
    Player,
    PlayerKind,
    Termination,
    TimeControl,
    colour_of,
)
from server.protocol.limits import MAX_MOVE_LENGTH, MAX_PLY, MAX_POSITION_LENGTH

__all__ = ["COLOURS", "StoredGame", "rules_of"]

# Games stored before games had names are Amazons; so are messages that name none.
# The protocol's colour of each player index of a two-player game: the first seat is White.
COLOURS: Final = (Colour.WHITE, Colour.BLACK)


@functools.cache
def rules_of(game: str) -> GameRules[Any]:
    """The registered game `game`, which the server can hold: two players, and games and
    texts within the protocol's bounds. A ValueError names what does not fit."""
    rules: GameRules[Any] = get_game(game)
    info = rules.info
    if info.players != len(COLOURS):
        raise ValueError(
            f"game {game!r} has {info.players} players: the server holds two-player games"
        )
    for what, most, limit in (
        ("plies", info.max_plies, MAX_PLY),
        ("characters of move text", info.max_move_text, MAX_MOVE_LENGTH),
        ("characters of position text", info.max_position_text, MAX_POSITION_LENGTH),
    ):
        if most > limit:
            raise ValueError(
                f"game {game!r} may need {most} {what}: the protocol carries at most {limit}"
            )
    return rules


def _player(data: dict[str, Any]) -> Player:
    return Player(data["name"], PlayerKind(data["kind"]), data.get("rating"))


def _player_data(player: Player) -> dict[str, Any]:
    return {"name": player.name, "kind": str(player.kind), "rating": player.rating}


@dataclass(frozen=True)
class StoredGame:
    """A game as stored: players, the game's name and start, moves with the time each took and
    the clocks after it, the clock (whose `to_move` is the side to move), status and outcome.
    `version` is the number of events in its log; `current` is the state after the moves as
    the game's compact bytes (`GameState.to_bytes`, b"" before a move)."""

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
    current: bytes = b""
    extra: dict[str, Any] = field(default_factory=dict)
    game: str = DEFAULT_GAME
    # Raised each time the game's log is found to have lost events its followers saw (a
    # failover of its Redis master): a client takes a state of a later epoch over its own.
    epoch: int = 0

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> Colour:
        """The side to move (in an ended game, the side that was to move)."""
        return self.clock.to_move

    @property
    def rules(self) -> GameRules[Any]:
        return rules_of(self.game)

    def with_move(
        self, move: str, ms: int, clocks: tuple[int, int], clock: Clock, current: bytes
    ) -> StoredGame:
        """The game after one more move, charged `ms`, with the clocks after it, the new clock
        and state, and one more event. Built whole rather than by dataclasses.replace,
        which costs twice as much: every move pays for it."""
        return StoredGame(
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
            game=self.game,
        )

    def state(self) -> GameState[Any]:
        """The state after the moves played."""
        if self.current:
            return self.rules.state_from_bytes(self.current)
        return self.rules.parse_state(self.start)

    def state_at(self, ply: int) -> GameState[Any]:
        """The state after the first `ply` moves."""
        state = self.rules.parse_state(self.start)
        for text in self.moves[:ply]:
            state.apply(state.parse_move(text))
        return state

    def player(self, colour: Colour) -> Player:
        return self.white if colour is Colour.WHITE else self.black

    def colour_of(self, name: str) -> Colour | None:
        """The colour `name` plays here, or None for a spectator."""
        return colour_of(self.white, self.black, name)

    def clocks(self, now: int) -> Clocks:
        return Clocks(*self.clock_readings(now))

    def clock_readings(self, now: int) -> tuple[int, int]:
        """(White's, Black's) remaining ms at `now`."""
        return self.clock.remaining(Colour.WHITE, now), self.clock.remaining(Colour.BLACK, now)

    def final_clocks(self) -> Clocks:
        return Clocks(*self.extra.get("final_clocks", (0, 0)))

    @property
    def abort_cause(self) -> AbortCause | None:
        """Why an aborted game was aborted; None for any other game, and for one aborted
        before servers kept why."""
        cause = self.extra.get("abort_cause")
        return None if cause is None else AbortCause(cause)

    @property
    def abort_side(self) -> Colour | None:
        """The side that called an aborted game off or made no first move in time."""
        side = self.extra.get("abort_side")
        return None if side is None else Colour(side)

    def snapshot(self, now: int) -> GameSnapshot:
        playing = self.status is GameStatus.PLAYING
        return GameSnapshot(
            self.game_id,
            self.version,
            white=self.white,
            black=self.black,
            start=self.start,
            time=self.time,
            rated=self.rated,
            moves=self.moves,
            clocks=self.clocks(now) if playing else self.final_clocks(),
            to_move=self.to_move,
            status=self.status,
            setup=self.setup,
            winner=self.winner,
            termination=self.termination,
            game=self.game,
            abort_cause=self.abort_cause,
            abort_side=self.abort_side,
            first_move_left=self.clock.first_move_left(now) if playing else None,
            epoch=self.epoch,
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
            game=self.game,
        )

    def record(self) -> GameRecord:
        """The game as a game record (docs/records.md), for review and export."""
        return GameRecord(
            game=self.game,
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

    def to_bytes(self) -> bytes:
        doc = {
            "game_id": self.game_id,
            "game": self.game,
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
            "epoch": self.epoch,
        }
        data: bytes = msgpack.packb(doc)
        return data

    @classmethod
    def from_bytes(cls, data: bytes) -> StoredGame:
        """Read what `to_bytes` wrote, and the documents of earlier servers: those name no
        game (they are Amazons) and may keep the current state as position text."""
        doc = msgpack.unpackb(data)
        game = doc.get("game", DEFAULT_GAME)
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
            current=_state_bytes(game, doc["current"]),
            extra=doc["extra"],
            epoch=doc.get("epoch", 0),
            game=game,
        )


def _state_bytes(game: str, stored: bytes | str) -> bytes:
    """A stored game's current state as the game's bytes: games stored by earlier versions of
    the server keep it as position text."""
    if isinstance(stored, bytes):
        return stored
    return rules_of(game).parse_state(stored).to_bytes() if stored else b""
