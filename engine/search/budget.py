"""The budget policy: how a player turns the game clock a server reports into the engine's
`Budget` for one move. `arena bot` (a bot account playing over the network) and `arena worker`
(the house bots) both plan by `TimePolicy.budget`; what differs between them is data, the named
policies `REMOTE_BOT` and `HOUSE_BOT`, never a second copy of the rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.search.bot import Budget, ClockReading

__all__ = ["HOUSE_BOT", "MIN_SECONDS", "REMOTE_BOT", "TimePolicy", "Turn"]

# The least time a move is planned for, however late it is: a move sent at once may still
# arrive within the server's allowance.
MIN_SECONDS = 0.01


@dataclass(frozen=True, slots=True)
class Turn:
    """The mover's turn as its clock was last read: what each side's clock said and the
    increment, in ms; `elapsed` seconds since the reading that it does not include. For a
    first move (off the clock, but due within the server's first-move window) `first_move_ms`
    is that window, counted from the start of the turn; None once the clock runs."""

    own_ms: int
    opponent_ms: int
    increment_ms: int
    first_move_ms: int | None = None
    elapsed: float = 0.0


@dataclass(frozen=True, slots=True)
class TimePolicy:
    """How much of its time a player gives its engine for one move.

    The time left is the clock's reading less the time since and `margin` seconds kept back for
    the move's way to the server. A first move is planned as if the clock read at most
    `first_move_share` of the first-move window. Without `first_move_cap`, every move is a
    clock budget and the engine's time manager (`engine.search.timing`) decides; with it, a
    first move is a fixed think of that time at most.

    `strength` (0 to 1) scales the time the engine gets and the increment it expects: a house
    bot of strength s out of 10 thinks s/10 of what the time manager would spend.
    """

    margin: float
    first_move_share: float
    first_move_cap: float | None = None

    def __post_init__(self) -> None:
        if self.margin < 0:
            raise ValueError(f"the margin cannot be negative, got {self.margin} s")
        if not 0 < self.first_move_share <= 1:
            raise ValueError(f"the first-move share must be in (0, 1], not {self.first_move_share}")
        if self.first_move_cap is not None and self.first_move_cap <= 0:
            raise ValueError(f"the first-move cap must be positive, not {self.first_move_cap} s")

    def budget(self, turn: Turn, strength: float = 1.0) -> Budget:
        """The engine's budget for the move of `turn`."""
        if not 0 < strength <= 1:
            raise ValueError(f"strength must be in (0, 1], not {strength}")
        own = turn.own_ms / 1000
        first_move = turn.first_move_ms is not None
        if turn.first_move_ms is not None:
            own = min(own, turn.first_move_ms / 1000 * self.first_move_share)
        left = max(MIN_SECONDS, (own - turn.elapsed - self.margin) * strength)
        if first_move and self.first_move_cap is not None:
            return Budget(seconds=min(self.first_move_cap * strength, left))
        return Budget(
            clock=ClockReading(
                own=left,
                opponent=turn.opponent_ms / 1000,
                increment=turn.increment_ms / 1000 * strength,
            )
        )


# A bot account playing over the network (`arena bot`): 0.3 s kept back for the move's trip to
# the server (the server's flat bot allowance, `welcome.offers.bot_allowance_ms`, is a second
# net), and first moves planned on half the first-move window, by the time manager.
REMOTE_BOT = TimePolicy(margin=0.3, first_move_share=0.5)

# A house bot (`arena worker`), which reads the clock from Redis next to the server: 0.1 s kept
# back for the queue and the round trip to Redis; a first move thinks a fixed 2 s at full
# strength, less when the first quarter of the first-move window is nearly gone (a request
# reclaimed late from a worker that died).
HOUSE_BOT = TimePolicy(margin=0.1, first_move_share=0.25, first_move_cap=2.0)
