"""A finished ladder game and the tallies of them: each bot's score against each other bot (the
cross table) and over all its games. Amazons has no draws, so a score is wins and losses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Result", "Score", "cross_table", "scores"]


@dataclass(frozen=True)
class Result:
    """A finished ladder game: `white` against `black`, by name, and whether White won; where
    known, its `game_id` and when it `ended` (server ms)."""

    white: str
    black: str
    white_won: bool
    game_id: str = ""
    ended: int | None = None

    def __post_init__(self) -> None:
        if self.white == self.black:
            raise ValueError(f"{self.white} cannot have played itself")

    @property
    def winner(self) -> str:
        return self.white if self.white_won else self.black

    @property
    def loser(self) -> str:
        return self.black if self.white_won else self.white


@dataclass(frozen=True)
class Score:
    """Games won and lost."""

    wins: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses

    @property
    def fraction(self) -> float:
        """The share of the games won, from 0 to 1; 0 before any game."""
        return self.wins / self.games if self.games else 0.0

    def __add__(self, other: Score) -> Score:
        return Score(self.wins + other.wins, self.losses + other.losses)


_WIN, _LOSS = Score(1, 0), Score(0, 1)


def cross_table(results: Iterable[Result]) -> dict[str, dict[str, Score]]:
    """`table[a][b]`: `a`'s score against `b`, for every two bots that have played."""
    table: dict[str, dict[str, Score]] = {}
    for result in results:
        against = table.setdefault(result.winner, {})
        against[result.loser] = against.get(result.loser, Score()) + _WIN
        against = table.setdefault(result.loser, {})
        against[result.winner] = against.get(result.winner, Score()) + _LOSS
    return table


def scores(results: Iterable[Result]) -> dict[str, Score]:
    """Each bot's score over all its games."""
    return {name: sum(against.values(), Score()) for name, against in cross_table(results).items()}
