"""What a bot is: given a state and a time budget, return a move and say what it did.

Bots are anytime (they stop at their deadline with the best move so far), deterministic for a
given seed, and see games only through the generic `GameState` interface unless they know the game.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.game import GameState

__all__ = ["Bot", "Budget", "ClockReading", "Decision", "NoMoveError"]


class NoMoveError(ValueError):
    """A bot was asked to move in a position where the game is over."""


@dataclass(frozen=True, slots=True)
class ClockReading:
    """A game clock seen by the side to move: seconds left for each side and the increment."""

    own: float
    opponent: float
    increment: float = 0.0


@dataclass(frozen=True, slots=True)
class Budget:
    """How long a bot may think: a fixed number of seconds for this move, or a game clock
    (the bot's time manager then decides)."""

    seconds: float | None = None
    clock: ClockReading | None = None

    def __post_init__(self) -> None:
        if (self.seconds is None) == (self.clock is None):
            raise ValueError("a budget is either seconds per move or a clock, exactly one")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds per move must be positive, not {self.seconds}")


@dataclass(slots=True)
class Decision:
    """A bot's move and an account of the search behind it."""

    move: object
    seconds: float = 0.0
    nodes: int = 0  # nodes searched, or playouts
    depth: int = 0
    score: float | None = None  # evaluation (side to move's view) or win rate in [0, 1]
    pv: Sequence[str] = field(default_factory=list)


class Bot(Protocol):
    """A player. `spec` is the name with parameters that makes it again (`mcts:c=0.8`)."""

    @property
    def spec(self) -> str: ...

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        """Pick a move for the side to move within the budget; raise NoMoveError when the
        game is over."""
        ...

    def prepare(self) -> None:
        """Compile or load whatever the bot needs, so that no clock pays for it; leaves the
        bot's random state as it was."""
        ...


def require_moves(state: GameState[Any]) -> None:
    if state.is_terminal():
        raise NoMoveError(f"no move to choose: the game is over in {state.text()!r}")


def now() -> float:
    return time.perf_counter()
