"""The game-agnostic interface that bots, search and the server see, and the registry of games.

A game registers by name and makes states; a state knows whose turn it is, its legal moves,
how to apply and undo them, and the result. Moves are the game's own immutable values, read and
written as text by the state. Games add a richer API of their own on top. The server reaches a
game only through this module: its `GameInfo` says what the server needs to hold it (player
names, how long a game and its texts can get).
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar

from engine.errors import NotationError

__all__ = [
    "GameInfo",
    "GameRules",
    "GameState",
    "MoveList",
    "game_names",
    "get_game",
    "register",
]

M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is: its name, players and the utilities a finished game can give, its named
    start positions, and bounds on its games: `player_names` name the players by index (the
    protocol's colours for two-player games), `max_plies` is the most moves any game of it can
    last, and `max_move_text` / `max_position_text` the longest move and position text it
    writes."""

    name: str
    players: int
    zero_sum: bool
    min_utility: float
    max_utility: float
    setups: tuple[str, ...]
    default_setup: str
    player_names: tuple[str, ...]
    max_plies: int
    max_move_text: int
    max_position_text: int

    def __post_init__(self) -> None:
        if len(self.player_names) != self.players:
            raise ValueError(
                f"game {self.name!r} has {self.players} players but names "
                f"{len(self.player_names)}: {', '.join(self.player_names)}"
            )
        if self.default_setup not in self.setups:
            raise ValueError(
                f"game {self.name!r}: default setup {self.default_setup!r} is not one of "
                f"its setups {', '.join(self.setups)}"
            )


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
        """The state as one line of text that `GameRules.parse_state` reads back."""
        ...

    def to_bytes(self) -> bytes:
        """The state (not the moves that led to it) in a compact form that
        `GameRules.state_from_bytes` reads back: cheaper than `text`, for storage."""
        ...


class GameRules(Protocol[M]):
    """A registered game: describes itself and makes states."""

    @property
    def info(self) -> GameInfo: ...

    def new_state(self, setup: str | None = None) -> GameState[M]:
        """A start position by setup name (the default setup when None)."""
        ...

    def parse_state(self, text: str) -> GameState[M]:
        """Read position text; a NotationError names what is wrong with it."""
        ...

    def state_from_bytes(self, data: bytes) -> GameState[M]:
        """Read what `GameState.to_bytes` wrote; a NotationError names what is wrong."""
        ...


# Games by name: "module:attribute" imported on first use, or the game itself once registered.
_REGISTRY: dict[str, str | GameRules[object]] = {
    "amazons": "engine.amazons.game:AMAZONS",
    "bao": "engine.bao.game:BAO",
}


def game_names() -> list[str]:
    return sorted(_REGISTRY)


def register(game: GameRules[object]) -> None:
    """Add a game to the registry under its `info.name` (a game of the test suite, or one a
    program brings along); registering the same game again is harmless, another game of a
    taken name a ValueError."""
    name = game.info.name
    known = _REGISTRY.get(name)
    if known is not None and known is not game and get_game(name) is not game:
        raise ValueError(f"a game called {name!r} is already registered")
    _REGISTRY[name] = game


def get_game(name: str) -> GameRules[object]:
    """The registered game called `name`."""
    try:
        entry = _REGISTRY[name]
    except KeyError:
        raise NotationError(
            f"unknown game {name!r}: registered games are {', '.join(game_names())}"
        ) from None
    if not isinstance(entry, str):
        return entry
    module, attribute = entry.split(":")
    game: GameRules[object] = getattr(importlib.import_module(module), attribute)
    _REGISTRY[name] = game
    return game
