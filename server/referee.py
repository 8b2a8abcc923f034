"""The rules of a live game's life, as pure functions: a stored game (and its state) and a
player's action in, the stored game after it and the events to log out, or a refusal
(`ProtocolError`). Nothing here waits on Redis or reads a clock: the time is the caller's `now`
in ms, and the store (server/games.py) commits what these decide.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import IllegalMoveError, NotationError
from engine.game import GameState
from server.clock import Clock, LagPolicy, LateMoveError, Timeout
from server.protocol import (
    DEFAULT_GAME,
    AbortCause,
    Clocks,
    Colour,
    ErrorCode,
    GameEnded,
    GameEvent,
    GameStarted,
    GameStatus,
    MovePlayed,
    Player,
    PlayerKind,
    Presence,
    ProtocolError,
    Termination,
    TimeControl,
)
from server.stored_game import COLOURS, StoredGame, rules_of

__all__ = [
    "Moved",
    "Resent",
    "TimeUp",
    "abort",
    "claim",
    "end",
    "new_game",
    "play",
    "player_colour",
    "presence",
    "require_playing",
    "resign",
    "start_clock",
    "time_up",
]


@dataclass(frozen=True, slots=True)
class Moved:
    """A move made: the game after it (ended when the move ended it), its state, and the
    events to log (`move_played`, then `game_ended` if it ended)."""

    game: StoredGame
    state: GameState[Any]
    events: list[GameEvent]


@dataclass(frozen=True, slots=True)
class Resent:
    """The move is move `ply`, already played by the same player: a client resending a move
    whose reply it lost gets that move's logged `move_played` again."""

    ply: int


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The move came after the mover's time was up: the game ends with `timeout` and the move
    is refused with `message`."""

    timeout: Timeout
    message: str


def player_colour(game: StoredGame, name: str) -> Colour:
    """The colour `name` plays in `game`; refused for anyone else."""
    colour = game.colour_of(name)
    if colour is None:
        raise ProtocolError(ErrorCode.NOT_A_PLAYER, f"{name} does not play in game {game.game_id}")
    return colour


def require_playing(game: StoredGame) -> None:
    if game.status is GameStatus.ENDED:
        raise ProtocolError(
            ErrorCode.GAME_OVER, f"game {game.game_id} is over ({game.termination})"
        )


def start_clock(time: TimeControl, white: Player, black: Player, first: Colour, now: int) -> Clock:
    """A new game's clock, `first` to move: machine players (external and house bots) get the
    bots' flat lag allowance, people the quota."""

    def policy(player: Player) -> LagPolicy | None:
        if player.kind in (PlayerKind.BOT, PlayerKind.HOUSE):
            return LagPolicy.for_bot(time.base, time.increment)
        return None

    return Clock.start(
        time.base, time.increment, now, white=policy(white), black=policy(black), first=first
    )


def new_game(
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
) -> tuple[StoredGame, GameStarted]:
    """A new game of the registered game `game` from a named setup (or a position text), and
    its `game_started`. A ValueError names an unknown game, setup or a bad position."""
    rules = rules_of(game)
    if start is None:
        if setup is None:
            raise ValueError("a game needs a setup or a start position")
        state = rules.new_state(setup)
    else:
        state = rules.parse_state(start)
    first = COLOURS[state.current_player]
    stored = StoredGame(
        game_id=secrets.token_urlsafe(6),
        white=white,
        black=black,
        start=state.text() if start is None else start,
        setup=setup,
        time=time,
        rated=rated,
        clock=start_clock(time, white, black, first, now),
        created=now,
        house=house,
        version=1,
        game=game,
    )
    started = GameStarted(
        stored.game_id,
        1,
        white=white,
        black=black,
        start=stored.start,
        time=time,
        rated=rated,
        clocks=stored.clocks(now),
        setup=setup,
        to_move=first,
        game=game,
    )
    return stored, started


def play(
    game: StoredGame,
    state: GameState[Any],
    name: str,
    ply: int,
    text: str,
    now: int,
    lag_ms: int = 0,
    *,
    resends: bool = True,
) -> Moved | Resent | TimeUp:
    """Move number `ply`, written `text`, by `name` at `now` with `lag_ms` of measured lag, in
    `game` whose state after its moves is `state` (left as it is: the move is played on a
    copy). With `resends`, a move already played by the same player is `Resent`; without,
    refused as a stale ply."""
    colour = player_colour(game, name)
    if resends and ply < game.ply and _resends(game, colour, ply, text):
        return Resent(ply)
    require_playing(game)
    if ply != game.ply:
        raise ProtocolError(
            ErrorCode.STALE_PLY,
            f"ply {ply} is not the next move's number: {game.ply} moves have been played",
        )
    if colour is not game.to_move:
        raise ProtocolError(ErrorCode.NOT_YOUR_TURN, f"it is {game.to_move}'s turn to move")
    try:
        move = state.parse_move(text)
    except (NotationError, IllegalMoveError) as error:
        raise ProtocolError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
    after = state.clone()
    after.apply(move)
    try:
        clock, credit = game.clock.charge(now, lag_ms, COLOURS[after.current_player])
    except LateMoveError as late:
        return TimeUp(late.timeout, _late(late.timeout, colour))
    readings = (clock.remaining(Colour.WHITE, now), clock.remaining(Colour.BLACK, now))
    written = after.format_move(move)
    played = game.with_move(
        written,
        max(0, game.clock.elapsed(now) - credit),
        readings,
        clock,
        after.to_bytes(),
    )
    events: list[GameEvent] = [
        MovePlayed(
            game.game_id,
            played.version,
            ply=ply,
            move=written,
            clocks=Clocks(*readings),
            lag_credit=credit,
            to_move=clock.to_move,
        )
    ]
    if after.is_terminal():
        # A game over with nobody ahead has not ended by its rules: it reached the ply cap.
        winner = _winner(after)
        why = Termination.PLY_CAP if winner is None else Termination.NO_LEGAL_MOVE
        played, ended = _finish(played, why, winner, now, readings)
        events.append(ended)
    return Moved(played, after, events)


def _resends(game: StoredGame, colour: Colour, ply: int, text: str) -> bool:
    """Whether `text` by the player of `colour` is move `ply` as it was played."""
    state = game.state_at(ply)
    if COLOURS[state.current_player] is not colour:
        return False
    try:
        return state.format_move(state.parse_move(text)) == game.moves[ply]
    except (NotationError, IllegalMoveError):
        return False


def _winner(state: GameState[Any]) -> Colour | None:
    """The player a finished state's returns favour; None for a draw."""
    white, black = state.returns()
    if white == black:
        return None
    return Colour.WHITE if white > black else Colour.BLACK


def _late(timeout: Timeout, colour: Colour) -> str:
    if timeout is Timeout.ABORTED:
        return f"the game was aborted: {colour} did not make a first move in time"
    return f"{colour} ran out of time"


def _finish(
    game: StoredGame,
    termination: Termination,
    winner: Colour | None,
    now: int,
    clocks: tuple[int, int],
    aborted: tuple[AbortCause, Colour] | None = None,
) -> tuple[StoredGame, GameEnded]:
    """The game ended at `now` with the clocks reading `clocks`, one event later; an aborted
    game keeps why and by which side (`aborted`), for its watchers later."""
    extra = {**game.extra, "final_clocks": list(clocks)}
    cause, side = aborted or (None, None)
    if aborted is not None:
        extra.update(abort_cause=str(cause), abort_side=str(side))
    ended = replace(
        game,
        version=game.version + 1,
        status=GameStatus.ENDED,
        termination=termination,
        winner=winner,
        ended=now,
        extra=extra,
    )
    event = GameEnded(
        ended.game_id,
        ended.version,
        termination=termination,
        clocks=Clocks(*clocks),
        winner=winner,
        abort_cause=cause,
        abort_side=side,
    )
    return ended, event


def end(
    game: StoredGame,
    termination: Termination,
    winner: Colour | None,
    now: int,
    aborted: tuple[AbortCause, Colour] | None = None,
) -> tuple[StoredGame, GameEnded]:
    """The game ended at `now` for a reason other than a move: the clocks stop where they
    read, the side to move's at zero when it lost on time."""
    clocks = game.clock_readings(now)
    if termination is Termination.TIME_FORFEIT:
        clocks = (0, clocks[1]) if game.to_move is Colour.WHITE else (clocks[0], 0)
    return _finish(game, termination, winner, now, clocks, aborted)


def time_up(game: StoredGame, timeout: Timeout, now: int) -> tuple[StoredGame, GameEnded]:
    """The side to move let its time run out: aborted in the first moves, else lost on time."""
    if timeout is Timeout.ABORTED:
        aborted = (AbortCause.NO_FIRST_MOVE, game.to_move)
        return end(game, Termination.ABORTED, None, now, aborted)
    return end(game, Termination.TIME_FORFEIT, game.to_move.other, now)


def resign(game: StoredGame, name: str, now: int) -> tuple[StoredGame, GameEnded]:
    colour = player_colour(game, name)
    require_playing(game)
    return end(game, Termination.RESIGNATION, colour.other, now)


def abort(game: StoredGame, name: str, now: int) -> tuple[StoredGame, GameEnded]:
    """Call the game off: allowed until both sides have made their first move."""
    colour = player_colour(game, name)
    require_playing(game)
    if game.ply >= 2:
        raise ProtocolError(
            ErrorCode.FORBIDDEN, "too late to abort: both sides have moved; resign instead"
        )
    return end(game, Termination.ABORTED, None, now, (AbortCause.CALLED_OFF, colour))


def claim(game: StoredGame, name: str, now: int, grace_ms: int) -> tuple[StoredGame, GameEnded]:
    """Win a game the opponent left: allowed once the opponent has been away, with no
    connection, for `grace_ms`."""
    colour = player_colour(game, name)
    require_playing(game)
    since = game.extra.get("away", {}).get(str(colour.other))
    if since is None:
        raise ProtocolError(ErrorCode.CONFLICT, "your opponent is connected")
    wait = since + grace_ms - now
    if wait > 0:
        raise ProtocolError(
            ErrorCode.CONFLICT,
            f"your opponent may still come back: claim in {wait / 1000:.0f} s",
            retry_after=max(1, -(-wait // 1000)),
        )
    return end(game, Termination.ABANDONED, colour, now)


def presence(
    game: StoredGame, colour: Colour, *, online: bool, now: int, grace_ms: int
) -> tuple[StoredGame, Presence] | None:
    """The player of `colour` came back (`online`) or left at `now`; None when the game has
    ended or already knew. The opponent may claim `grace_ms` after a player left."""
    away = dict(game.extra.get("away", {}))
    if game.status is GameStatus.ENDED or (str(colour) in away) != online:
        return None
    if online:
        del away[str(colour)]
    else:
        away[str(colour)] = now
    changed = replace(game, version=game.version + 1, extra={**game.extra, "away": away})
    event = Presence(
        game.game_id,
        changed.version,
        side=colour,
        online=online,
        claim_after=None if online else grace_ms,
    )
    return changed, event
