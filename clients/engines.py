"""Engines for bot clients: what chooses a bot's moves, behind one interface (`Engine`), so the
bot runner (`clients.bot`) drives the engine's own bots in this process and a program of any
language (`clients.program`) alike. `open_engine` turns the `--engine` spec into a maker of
engines; `GameSoFar` is what an engine is asked about.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.errors import NotationError
from engine.game import GameState, game_names, get_game
from engine.search.bot import Bot, Budget
from engine.search.registry import BOTS, make_bot

__all__ = [
    "Engine",
    "EngineError",
    "EngineMaker",
    "GameSoFar",
    "InProcessEngine",
    "engine_games",
    "open_engine",
]


class EngineError(ValueError):
    """An engine that cannot be had: an unknown spec, a bad parameter."""


@dataclass(frozen=True, slots=True)
class GameSoFar:
    """A game an engine is asked to move in: the registered game's name, its setup (None for a
    start position of its own), the start as position text, the moves played since in move
    text, and `state`, the position they lead to (the engine's to read, not to change)."""

    game: str
    setup: str | None
    start: str
    moves: tuple[str, ...]
    state: GameState[Any]

    @classmethod
    def new(cls, game: str, setup: str | None = None) -> GameSoFar:
        """A game of `game` at the start of `setup` (its default setup when None)."""
        rules = get_game(game)
        state = rules.new_state(setup)
        return cls(game, setup or rules.info.default_setup, state.text(), (), state)

    @property
    def legal_moves(self) -> tuple[str, ...]:
        """Every legal move of the side to move, in move text, in the order the rules give
        them."""
        return tuple(self.state.format_move(move) for move in self.state.legal_moves)

    def after(self, move: str) -> GameSoFar:
        """The game once `move` (legal here, or a ValueError names why not) is played."""
        state = self.state.clone()
        played = state.parse_move(move)
        state.apply(played)
        return GameSoFar(
            self.game, self.setup, self.start, (*self.moves, state.format_move(played)), state
        )


class Engine(Protocol):
    """What chooses the moves of one game. One engine plays one game from its first move to
    its last, so it may keep what it learns between moves; the runner makes a new one for
    every game and closes it when the game ends.

    `choose` may take as long as the budget allows and is awaited: an engine that computes in
    this process runs in a thread, one that talks to a program waits on its pipes, and the
    runner's connection is served meanwhile either way.
    """

    @property
    def name(self) -> str:
        """The engine as its spec names it, for logs (`mcts:c=0.8`)."""
        ...

    async def prepare(self) -> None:
        """Get ready to choose (compile kernels, start a program), so no clock pays for it."""
        ...

    async def choose(self, game: GameSoFar, budget: Budget) -> str:
        """The move text for the side to move in `game`, chosen within `budget`."""
        ...

    async def close(self) -> None:
        """Let go of what the engine holds (a program is ended); it chooses no more moves.
        Never raises: the runner calls it as a game ends, whatever state the engine is in."""
        ...


# Makes a fresh engine for each game; the runner takes any (`BotPlayer(url, token, maker)`).
EngineMaker = Callable[[], Engine]


class InProcessEngine:
    """One of the engine's own bots (`engine.search.registry`), thinking in a worker thread of
    this process."""

    def __init__(self, spec: str) -> None:
        try:
            self._bot: Bot = make_bot(spec)
        except NotationError as error:
            raise EngineError(str(error)) from None
        self._spec = spec

    @property
    def name(self) -> str:
        return self._spec

    async def prepare(self) -> None:
        await asyncio.to_thread(self._bot.prepare)

    async def choose(self, game: GameSoFar, budget: Budget) -> str:
        def think() -> str:
            return game.state.format_move(self._bot.choose(game.state, budget).move)

        return await asyncio.to_thread(think)

    async def close(self) -> None:
        """Nothing to let go of: the bot is garbage once the runner drops it."""


def open_engine(spec: str) -> EngineMaker:
    """A maker of engines for `spec` (a bot of the registry with its parameters, such as
    `invader` or `mcts:c=0.8`); raises EngineError, with the reason in one line, when the
    spec names no engine."""
    InProcessEngine(spec)  # checks the spec once, here, rather than at the first game
    return lambda: InProcessEngine(spec)


def engine_games(spec: str) -> frozenset[str]:
    """The games registered here that the engine `spec` plays (its bot's `BotType.games`)."""
    bot_type = BOTS[spec.strip().partition(":")[0]]
    return frozenset(name for name in game_names() if bot_type.plays(name))
