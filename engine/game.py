"""The game-agnostic interface that bots, search and the server see, and the registry of games.

A game registers by name and makes states; a state knows whose turn it is, its legal moves,
how to apply and undo them, and the result. Moves are the game's own immutable values, read and
written as text by the state. Games add a richer API of their own on top.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar

from engine.errors import NotationError

__all__ = ["Game", "GameInfo", "GameState", "MoveList", "game_names", "get_game"]

M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is: its name, players and the utilities a finished game can give."""

    name: str
    players: int
    zero_sum: bool
    min_utility: float
    max_utility: float
    setups: tuple[str, ...]
    default_setup: str


class MoveList(Collection[M_co], Protocol):
    """The legal moves of a state: sized, iterable, with membership tests."""

    def __iter__(self) -> Iterator[M_co]: ...


class GameState(Protocol[M]):
    """A position of some game, with the moves that led to it."""

    @property
    def current_player(self) -> int:
        """Index of the player to move (0 moves first in the standard setups)."""
        ...

    @property
    def legal_moves(self) -> MoveList[M]: ...

    def apply(self, move: M) -> None:
        """Play a move, raising a ValueError subclass that names the problem if it is illegal."""
        ...

    def undo(self) -> M:
        """Take back the last move and return it."""
        ...

    def clone(self) -> Self: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> tuple[float, float]:
        """Each player's utility: the result once terminal, zeros before."""
        ...

    def parse_move(self, text: str) -> M:
        """Read move text and check the move is legal here."""
        ...

    def format_move(self, move: M) -> str: ...

    def text(self) -> str:
        """The state as one line of text that `Game.parse_state` reads back."""
        ...


class Game(Protocol[M]):
    """A registered game: describes itself and makes states."""

    @property
    def info(self) -> GameInfo: ...

    def new_state(self, setup: str | None = None) -> GameState[M]:
        """A start position by setup name (the default setup when None)."""
        ...

    def parse_state(self, text: str) -> GameState[M]: ...


# Games by name, as "module:attribute", imported on first use.
_REGISTRY: dict[str, str] = {
    "amazons": "engine.amazons.game:AMAZONS",
}


def game_names() -> list[str]:
    return sorted(_REGISTRY)


def get_game(name: str) -> Game[object]:
    """The registered game called `name`."""
    try:
        module, attribute = _REGISTRY[name].split(":")
    except KeyError:
        raise NotationError(
            f"unknown game {name!r}: registered games are {', '.join(game_names())}"
        ) from None
    game: Game[object] = getattr(importlib.import_module(module), attribute)
    return game
