"""The server's Fischer clock for one game, with lichess-style lag compensation, as a plain value:
every reading takes the server time `now` in int milliseconds, so any server process can rebuild
it from storage (`to_dict` / `from_dict`) and get the same answer.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from server.protocol import Colour

__all__ = [
    "BOT_ALLOWANCE_MS",
    "FIRST_MOVE_MS",
    "FREE_PLIES",
    "MAX_GRACE_MS",
    "Clock",
    "LagPolicy",
    "LateMoveError",
    "Timeout",
    "now_ms",
]

# Lichess's LagTracker numbers, converted from centiseconds. The max gain per move is
# min(1 s, 0.4% of the estimated game length + 150 ms), where the game length counts 40 moves of
# increment: short games get less, so lag cannot buy a large share of a bullet clock.
MAX_GAIN_CAP_MS = 1000
MAX_GAIN_FLOOR_MS = 150
MAX_GAIN_MS_PER_GAME_SECOND = 4
ESTIMATED_MOVES = 40
# The round trip the server measures misses the time the client and server spend handling the
# move, so each move's gain allows that much more than the round trip.
PROCESSING_LAG_MS = 140
START_QUOTA_MOVES = 3
MAX_QUOTA_MOVES = 7

# A bot's flat allowance per move: one round trip on a nearby connection plus the processing
# time a human is also allowed, which is what a well-connected human gains per move.
BOT_ALLOWANCE_MS = 200

# However large the quota, the server waits at most this long past zero before flagging.
MAX_GRACE_MS = 2000

# Long enough for a player who has just been paired to find the board; short enough that a
# no-show does not hold the opponent for long.
FIRST_MOVE_MS = 30_000

# The clock's opening: plies 0 and 1 are each side's first move.
FREE_PLIES = 2


class Timeout(StrEnum):
    """What happens when the side to move runs out of time. The values are the protocol's
    terminations."""

    ABORTED = "aborted"  # a first move did not come in time; nobody wins
    TIME_FORFEIT = "time_forfeit"  # the side to move loses


class LateMoveError(ValueError):
    """A move came after the mover's time was up. The move is refused and the game ends with
    `timeout`: lost on time by `side`, or aborted when it was a first move."""

    def __init__(self, side: Colour, timeout: Timeout) -> None:
        self.side = side
        self.timeout = timeout
        if timeout is Timeout.ABORTED:
            message = f"{side} did not make its first move in time"
        else:
            message = f"{side} ran out of time"
        super().__init__(message)


def _max_gain_ms(base_s: int, increment_s: int) -> int:
    if base_s < 0 or increment_s < 0:
        raise ValueError(f"a time control cannot be negative, got {base_s}+{increment_s}")
    game_s = base_s + ESTIMATED_MOVES * increment_s
    return min(MAX_GAIN_CAP_MS, game_s * MAX_GAIN_MS_PER_GAME_SECOND + MAX_GAIN_FLOOR_MS)


@dataclass(frozen=True)
class LagPolicy:
    """How much of one side's move time is given back for lag.

    With a quota (humans), a move's credit is its lag, up to the quota; the move then refills the
    quota by `min(max_gain_ms, lag + 140)`, up to 7 times `max_gain_ms`. A `flat` policy (bots)
    credits the first `max_gain_ms` of every move and ignores the lag.
    """

    max_gain_ms: int
    flat: bool = False

    def __post_init__(self) -> None:
        if self.max_gain_ms < 0:
            raise ValueError(f"max_gain_ms cannot be negative, got {self.max_gain_ms}")

    @classmethod
    def for_time_control(cls, base_s: int, increment_s: int) -> LagPolicy:
        """A human's policy for a game of `base_s` seconds plus `increment_s` per move."""
        return cls(_max_gain_ms(base_s, increment_s))

    @classmethod
    def for_bot(cls, base_s: int, increment_s: int) -> LagPolicy:
        """A bot's flat allowance, never more per move than a human's quota could gain."""
        return cls(min(BOT_ALLOWANCE_MS, _max_gain_ms(base_s, increment_s)), flat=True)

    @property
    def start_quota_ms(self) -> int:
        return self.max_gain_ms if self.flat else START_QUOTA_MOVES * self.max_gain_ms

    @property
    def max_quota_ms(self) -> int:
        return self.max_gain_ms if self.flat else MAX_QUOTA_MOVES * self.max_gain_ms

    def gain(self, lag_ms: int) -> int:
        """What a move with this lag adds to the quota."""
        if self.flat:
            return self.max_gain_ms
        return min(self.max_gain_ms, lag_ms + PROCESSING_LAG_MS)

    def compensate(self, quota_ms: int, lag_ms: int, elapsed_ms: int) -> tuple[int, int]:
        """The credit for a move that took `elapsed_ms` with `lag_ms` of lag, and the quota
        after it."""
        if lag_ms < 0:
            raise ValueError(f"lag cannot be negative, got {lag_ms} ms")
        claimed = self.max_gain_ms if self.flat else lag_ms
        # Never more than the time that passed: the credit pays back lag, it does not add time.
        credit = min(claimed, quota_ms, elapsed_ms)
        quota_after = min(quota_ms + self.gain(lag_ms) - credit, self.max_quota_ms)
        return credit, quota_after


@dataclass(frozen=True)
class Clock:
    """Both sides' time in one game. `white_ms` and `black_ms` are what each side had when the
    current turn started at server time `turn_start`; the clock of `to_move` runs from then on,
    once `ply` (the moves played) has passed the first moves.

    Rules, in the order a game meets them:

    - **First moves.** Each side's first move (plies 0 and 1) is off the clock: nothing is charged
      and no increment is added. The side to move has `first_move_ms` to make it, or the game is
      aborted (`Timeout.ABORTED`); nobody loses a game they never started. White's clock starts
      running when Black's first move is played.
    - **Charging a move.** The mover is charged the time since its turn started less a lag
      credit, `charged = elapsed - credit`, then the increment is added if time remains. A move
      that would leave no time is refused and the mover loses on time (`LateMoveError` with
      `Timeout.TIME_FORFEIT`).
    - **Lag credit** (`LagPolicy`): a human gets back the measured round trip `lag`, up to a
      quota that each move refills by `min(max gain, lag + 140 ms)`. The max gain is
      `min(1000, 4 * (base_s + 40 * increment_s) + 150)` ms; the quota starts at 3 and is capped
      at 7 max gains (lichess's `LagTracker`, in ms). A bot gets a flat allowance instead: the
      first 200 ms of every move are free, whatever its lag, so a bot author can rely on one
      number.
    - **Flagging.** The side to move has flagged once `now >= deadline() + grace()`, where the
      deadline is when its clock reads zero and the grace is `min(quota, 2 s)` (lichess's
      `outOfTime(withGrace)`), so a move already on its way over a slow link is not beaten by the
      server's own timer.
    - **Outages.** While no server process is up, nobody can move, so no clock may run: the
      server gives the side to move back the time the outage held it (`delayed`), and a first
      move's window starts again (server/outage.py).
    """

    white_ms: int
    black_ms: int
    to_move: Colour
    turn_start: int
    ply: int
    increment_ms: int
    first_move_ms: int
    white_quota_ms: int
    black_quota_ms: int
    white_lag: LagPolicy
    black_lag: LagPolicy

    def __post_init__(self) -> None:
        for name in (
            "white_ms",
            "black_ms",
            "ply",
            "increment_ms",
            "first_move_ms",
            "white_quota_ms",
            "black_quota_ms",
        ):
            value = getattr(self, name)
            if value < 0:
                raise ValueError(f"clock {name} cannot be negative, got {value}")

    @classmethod
    def start(
        cls,
        base_s: int,
        increment_s: int,
        now: int,
        *,
        white: LagPolicy | None = None,
        black: LagPolicy | None = None,
        first_move_ms: int = FIRST_MOVE_MS,
        first: Colour = Colour.WHITE,
    ) -> Clock:
        """A new game's clock: `base_s` seconds each plus `increment_s` per move, `first` to
        make its first move from `now`. A side without a policy gets the human one for the time
        control."""
        human = LagPolicy.for_time_control(base_s, increment_s)
        white = human if white is None else white
        black = human if black is None else black
        return cls(
            white_ms=base_s * 1000,
            black_ms=base_s * 1000,
            to_move=first,
            turn_start=now,
            ply=0,
            increment_ms=increment_s * 1000,
            first_move_ms=first_move_ms,
            white_quota_ms=white.start_quota_ms,
            black_quota_ms=black.start_quota_ms,
            white_lag=white,
            black_lag=black,
        )

    @property
    def running(self) -> bool:
        """Whether the clock of `to_move` is running: both sides have made their first move."""
        return self.ply >= FREE_PLIES

    def elapsed(self, now: int) -> int:
        """How long the side to move has been thinking."""
        # Server processes' clocks may disagree by a few ms; a turn never takes negative time.
        return max(0, now - self.turn_start)

    def _ms(self, side: Colour) -> int:
        return self.white_ms if side is Colour.WHITE else self.black_ms

    def quota(self, side: Colour) -> int:
        """The lag credit `side` has in reserve."""
        return self.white_quota_ms if side is Colour.WHITE else self.black_quota_ms

    def lag_policy(self, side: Colour) -> LagPolicy:
        return self.white_lag if side is Colour.WHITE else self.black_lag

    def remaining(self, side: Colour, now: int) -> int:
        """What `side`'s clock reads at `now`, never below zero. Lag credit is not counted until
        a move comes in."""
        if side is self.to_move and self.running:
            return max(0, self._ms(side) - self.elapsed(now))
        return self._ms(side)

    def deadline(self) -> int:
        """The server time at which the side to move's time is up: when its clock reads zero,
        or in the first moves when its first-move time ends."""
        if self.running:
            return self.turn_start + self._ms(self.to_move)
        return self.turn_start + self.first_move_ms

    def first_move_left(self, now: int) -> int | None:
        """The ms the side to move has left at `now` to make its first move (never more than
        the window, nor below zero); None once both sides have moved."""
        if self.running:
            return None
        return max(0, min(self.first_move_ms, self.deadline() - now))

    def grace(self) -> int:
        """How long past the deadline the side to move may still be saved by a move already on
        its way; none for a first move."""
        if self.running:
            return min(self.quota(self.to_move), MAX_GRACE_MS)
        return 0

    def timeout_at(self) -> int:
        """The first server time at which `timeout` is not None: when the server should look at
        the game if no move comes."""
        return self.deadline() + self.grace()

    def timeout(self, now: int) -> Timeout | None:
        """How the game ends if the side to move has not moved by `now`, or None while it still
        may."""
        if now < self.timeout_at():
            return None
        return Timeout.TIME_FORFEIT if self.running else Timeout.ABORTED

    def flagged(self, now: int) -> bool:
        """Whether the side to move has lost on time by `now`."""
        return self.timeout(now) is Timeout.TIME_FORFEIT

    def charge(
        self, now: int, lag_ms: int, next_to_move: Colour | None = None
    ) -> tuple[Clock, int]:
        """The clock after the side to move plays at `now` with `lag_ms` of measured lag, and the
        lag credit in ms the move got back. The clock of `next_to_move` (by default the other
        side: a game whose turns alternate) starts at `now`.

        Raises LateMoveError when the move came too late: after `timeout_at()`, or charged all
        of the mover's remaining time (which then reads zero). The move must be refused and the
        game ended with the error's `timeout`.
        """
        side = self.to_move
        timeout = self.timeout(now)
        if timeout is not None:
            raise LateMoveError(side, timeout)
        following = side.other if next_to_move is None else next_to_move
        if not self.running:
            if lag_ms < 0:
                raise ValueError(f"lag cannot be negative, got {lag_ms} ms")
            return replace(self, to_move=following, turn_start=now, ply=self.ply + 1), 0
        elapsed = self.elapsed(now)
        credit, quota = self.lag_policy(side).compensate(self.quota(side), lag_ms, elapsed)
        left = self._ms(side) - (elapsed - credit)
        if left <= 0:
            raise LateMoveError(side, Timeout.TIME_FORFEIT)
        left += self.increment_ms
        white_ms, white_quota, black_ms, black_quota = (
            (left, quota, self.black_ms, self.black_quota_ms)
            if side is Colour.WHITE
            else (self.white_ms, self.white_quota_ms, left, quota)
        )
        # Built whole rather than by dataclasses.replace, which costs twice as much: every move
        # pays for it.
        after = Clock(
            white_ms,
            black_ms,
            following,
            now,
            self.ply + 1,
            self.increment_ms,
            self.first_move_ms,
            white_quota,
            black_quota,
            self.white_lag,
            self.black_lag,
        )
        return after, credit

    def delayed(self, held_ms: int) -> Clock:
        """The clock with its turn started `held_ms` later: time in which the side to move
        could not move (no server was up) is not charged, and the deadline moves on with it."""
        if held_ms < 0:
            raise ValueError(f"a clock cannot be held back a negative time, got {held_ms} ms")
        if held_ms == 0:
            return self
        return replace(self, turn_start=self.turn_start + held_ms)

    def to_dict(self) -> dict[str, int]:
        """The clock as plain ints, for storage; `from_dict` reads it back."""
        return {
            "white_ms": self.white_ms,
            "black_ms": self.black_ms,
            "to_move": _SIDE_INDEX[self.to_move],
            "turn_start": self.turn_start,
            "ply": self.ply,
            "increment_ms": self.increment_ms,
            "first_move_ms": self.first_move_ms,
            "white_quota_ms": self.white_quota_ms,
            "black_quota_ms": self.black_quota_ms,
            "white_max_gain_ms": self.white_lag.max_gain_ms,
            "white_flat": int(self.white_lag.flat),
            "black_max_gain_ms": self.black_lag.max_gain_ms,
            "black_flat": int(self.black_lag.flat),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, int | str | bytes]) -> Clock:
        """The clock `to_dict` wrote. Values may also be the decimal strings or bytes a Redis
        hash returns. Raises ValueError for a missing or bad value."""

        def number(key: str) -> int:
            try:
                return int(data[key])
            except KeyError:
                raise ValueError(f"stored clock has no {key!r}") from None
            except ValueError:
                raise ValueError(f"stored clock {key!r} is not an int: {data[key]!r}") from None

        def flag(key: str) -> bool:
            value = number(key)
            if value not in (0, 1):
                raise ValueError(f"stored clock {key!r} must be 0 or 1, got {value}")
            return value == 1

        to_move = number("to_move")
        if to_move not in (0, 1):
            raise ValueError(
                f"stored clock 'to_move' must be 0 (white) or 1 (black), got {to_move}"
            )
        return cls(
            white_ms=number("white_ms"),
            black_ms=number("black_ms"),
            to_move=_SIDES[to_move],
            turn_start=number("turn_start"),
            ply=number("ply"),
            increment_ms=number("increment_ms"),
            first_move_ms=number("first_move_ms"),
            white_quota_ms=number("white_quota_ms"),
            black_quota_ms=number("black_quota_ms"),
            white_lag=LagPolicy(number("white_max_gain_ms"), flag("white_flat")),
            black_lag=LagPolicy(number("black_max_gain_ms"), flag("black_flat")),
        )


def now_ms() -> int:
    """Server time in ms: the wall clock, so every server process of one Redis agrees (their
    clocks are kept in step by NTP; `Clock.elapsed` never counts a turn as negative)."""
    return int(time.time() * 1000)


# Stored as the engine numbers its players: White 0, Black 1.
_SIDES = (Colour.WHITE, Colour.BLACK)
_SIDE_INDEX = {side: index for index, side in enumerate(_SIDES)}
