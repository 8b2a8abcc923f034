"""A game as a client knows it, as one immutable value: who plays, the start, every move, the
clocks, the first move's window, the event version, the outcome (with why it was aborted), and
the position as a state of the registered game. `GameView.open` makes one from `game_started`
or `game_state`; `GameView.apply` is the one reducer that takes it from one version to the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.errors import NotationError
from engine.game import GameState, get_game
from engine.records import GameRecord
from server.protocol import (
    DEFAULT_GAME,
    AbortCause,
    Clocks,
    ClockUpdate,
    Colour,
    GameEnded,
    GameEvent,
    GameSnapshot,
    GameStarted,
    GameStatus,
    MovePlayed,
    Offers,
    Player,
    Presence,
    Termination,
    TimeControl,
    colour_of,
    colour_to_move,
)

__all__ = ["GameView"]

# The game a frame is about when it does not say (servers before games were named).
# The colour of each player index of the engine's states: index 0 moves first in the standard
# setups and plays White.
COLOURS = (Colour.WHITE, Colour.BLACK)
# How many plies from the start are each side's first move, off the clock, when the server's
# offers do not say (docs/protocol.md, Server rules).
FREE_PLIES = 2


@dataclass(frozen=True)
class GameView:
    """A game as this client knows it, built from the server's events. `received` is when the
    view last changed (the `now` given to the client core, monotonic seconds): the running
    clock has been running since about then, which `clocks` (read by the server as the event
    left) does not show. `away` are the sides whose players are gone from the game.

    `first_move_by` is when the side to move's window for its first move closes (monotonic
    seconds, as `received`): the server's `first_move_left` in a `game_state`, else the window
    the server offers (`first_move_ms`, kept from the offers the view was opened with) from
    the event that opened it (the game's start, the first move, a `clock` event). None once
    both sides have moved, once the game is over, or when this client cannot know it. An
    aborted game has `abort_cause` and `abort_side` when the server said why."""

    game_id: str
    white: Player
    black: Player
    start: str
    time: TimeControl
    rated: bool
    clocks: Clocks
    setup: str | None = None
    moves: tuple[str, ...] = ()
    version: int = 0
    status: GameStatus = GameStatus.PLAYING
    winner: Colour | None = None
    termination: Termination | None = None
    game: str = DEFAULT_GAME
    away: frozenset[Colour] = frozenset()
    received: float = 0.0
    first_move_by: float | None = None
    abort_cause: AbortCause | None = None
    abort_side: Colour | None = None
    # Each first move's window in ms and the plies that have one, as the server offers say
    # (no window: not told).
    first_move_ms: int | None = None
    free_plies: int = FREE_PLIES
    # The epoch of the last `game_state` (docs/protocol.md): one of a later epoch replaces
    # the view whatever its version.
    epoch: int = 0
    # The side to move as the server or the position says (None: read from `start`).
    _to_move: Colour | None = field(default=None, repr=False)
    # The position after `moves`, when it has been worked out (never handed out: see position).
    _state: GameState[object] | None = field(default=None, compare=False, repr=False)

    @property
    def ply(self) -> int:
        """The number of moves played."""
        return len(self.moves)

    @property
    def to_move(self) -> Colour:
        """The side to move next."""
        if self._to_move is not None:
            return self._to_move
        return colour_to_move(self.start, self.ply)

    def first_move_left(self, now: float) -> float | None:
        """The seconds the side to move has left at `now` (monotonic) to make its first move,
        never below zero; None when no first move is awaited or its window is not known."""
        if self.first_move_by is None:
            return None
        return max(0.0, self.first_move_by - now)

    def colour_of(self, name: str) -> Colour | None:
        """The colour the user `name` (any case) plays here, or None for someone else."""
        return colour_of(self.white, self.black, name)

    def player(self, colour: Colour) -> Player:
        return self.white if colour is Colour.WHITE else self.black

    def position(self) -> GameState[object]:
        """The position after every move, as a new state of the registered game `game` (the
        view is not changed by what is done to it). Raises a ValueError naming the problem when
        the game is not registered here or a move cannot be read in it."""
        if self._state is None:
            object.__setattr__(self, "_state", _replay(self.game, self.start, self.moves))
        assert self._state is not None
        return self._state.clone()

    def record(self) -> GameRecord:
        """The game as a game record (docs/records.md) as far as this client knows it, for
        review: who played, the start, the moves, the outcome."""
        return GameRecord(
            game=self.game,
            start=self.start,
            white=self.white.name,
            black=self.black.name,
            game_id=self.game_id,
            rated=self.rated,
            white_rating=self.white.rating,
            black_rating=self.black.rating,
            moves=list(self.moves),
            winner=None if self.winner is None else str(self.winner),
            termination=str(self.termination or "").replace("_", " "),
            setup=self.setup,
            time=[self.time.base, self.time.increment],
        )

    @classmethod
    def open(
        cls,
        event: GameStarted | GameSnapshot,
        now: float,
        previous: GameView | None = None,
        offers: Offers | None = None,
    ) -> GameView:
        """The view a `game_started` or `game_state` gives, replacing `previous` (whose
        presence it keeps: neither event says who is away). `offers` are the server's, for the
        first moves' window (by default the one `previous` knew)."""
        game = event.game
        first_move_ms = previous.first_move_ms if previous is not None else None
        free_plies = previous.free_plies if previous is not None else FREE_PLIES
        if offers is not None:
            first_move_ms = offers.first_move_ms
            free_plies = FREE_PLIES if offers.free_plies is None else offers.free_plies
        cause = side = None
        if isinstance(event, GameSnapshot):
            moves = tuple(event.moves)
            status, winner, termination = event.status, event.winner, event.termination
            cause, side = event.abort_cause, event.abort_side
            left = event.first_move_left
            first_move_by = None if left is None else now + left / 1000
        else:
            moves, status, winner, termination = (), GameStatus.PLAYING, None, None
            window = first_move_ms if free_plies > 0 else None
            first_move_by = None if window is None else now + window / 1000
        state = _try_replay(game, event.start, moves)
        to_move = event.to_move
        if to_move is None and state is not None:
            to_move = COLOURS[state.current_player]
        return cls(
            event.game_id,
            event.white,
            event.black,
            event.start,
            event.time,
            event.rated,
            event.clocks,
            event.setup,
            moves,
            event.version,
            status,
            winner,
            termination,
            game,
            away=previous.away if previous is not None else frozenset(),
            received=now,
            first_move_by=first_move_by,
            abort_cause=cause,
            abort_side=side,
            first_move_ms=first_move_ms,
            free_plies=free_plies,
            epoch=event.epoch if isinstance(event, GameSnapshot) else 0,
            _to_move=to_move,
            _state=state,
        )

    def apply(self, event: GameEvent, now: float) -> GameView:
        """The view after `event`, the game's next version (the caller checks the version and,
        for a move, its ply). An event of a kind this client does not know only moves the
        version on."""
        changed = replace(self, version=event.version, received=now)
        if isinstance(event, MovePlayed):
            played = changed._played(event.move, event.clocks, event.to_move)
            return replace(played, first_move_by=played._window_from(now))
        if isinstance(event, GameEnded):
            return replace(
                changed,
                status=GameStatus.ENDED,
                winner=event.winner,
                termination=event.termination,
                clocks=event.clocks,
                first_move_by=None,
                abort_cause=event.abort_cause,
                abort_side=event.abort_side,
            )
        if isinstance(event, ClockUpdate):
            # In the first moves the server starts the window again with it (after an outage).
            return replace(changed, clocks=event.clocks, first_move_by=changed._window_from(now))
        if isinstance(event, Presence):
            away = self.away - {event.side} if event.online else self.away | {event.side}
            return replace(changed, away=away)
        return changed

    def _window_from(self, now: float) -> float | None:
        """When a first move's window opened at `now` closes; None when none is open."""
        playing = self.status is GameStatus.PLAYING
        if self.first_move_ms is None or self.ply >= self.free_plies or not playing:
            return None
        return now + self.first_move_ms / 1000

    def _played(self, move: str, clocks: Clocks, to_move: Colour | None) -> GameView:
        """The view with `move` added: the side to move next as the server says, else as the
        position says, else the other side."""
        state = None
        if self._state is not None:
            state = self._state.clone()
            try:
                state.apply(state.parse_move(move))
            except ValueError:
                state = None  # `position` names the problem when asked
        if to_move is None and state is not None:
            to_move = COLOURS[state.current_player]
        if to_move is None:
            to_move = Colour.BLACK if self.to_move is Colour.WHITE else Colour.WHITE
        return replace(
            self, moves=(*self.moves, move), clocks=clocks, _to_move=to_move, _state=state
        )


def _replay(game: str, start: str, moves: tuple[str, ...]) -> GameState[object]:
    """The state after `moves` from `start`; a ValueError names a move that cannot be read."""
    state = get_game(game).parse_state(start)
    for ply, text in enumerate(moves, 1):
        try:
            state.apply(state.parse_move(text))
        except ValueError as error:
            raise NotationError(f"move {ply} {text!r}: {error}") from None
    return state


def _try_replay(game: str, start: str, moves: tuple[str, ...]) -> GameState[object] | None:
    try:
        return _replay(game, start, moves)
    except ValueError:
        return None
