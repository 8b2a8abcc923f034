"""`openspiel-mcts`: OpenSpiel's C++ MCTS bot with random rollouts, as a sparring partner.

OpenSpiel splits a move into three actions (amazon, destination, arrow); each gets a third of
the time. Its states cannot be set from a board, so the game is replayed from the setup.
Available when the open-spiel package is installed; never needed at run time.
"""

from __future__ import annotations

import importlib.util
import random
from typing import Any

from engine.amazons import SETUPS, Move, Square
from engine.game import GameState
from engine.search.basic import amazons_position
from engine.search.bot import Budget, Decision, now
from engine.search.timing import think_time

__all__ = ["OpenSpielMctsBot", "cell", "openspiel_available", "square"]

BOARD_SIZES = {SETUPS["6x6"]: 6, SETUPS["8x8"]: 8, SETUPS["10x10"]: 10}


def openspiel_available() -> bool:
    return importlib.util.find_spec("pyspiel") is not None


class OpenSpielMctsBot:
    """pyspiel.MCTSBot, UCT with one random rollout per simulation, at equal time per move."""

    def __init__(self, c: float = 2.0, simulations: int = 0, seed: int = 0) -> None:
        if not openspiel_available():
            raise ValueError("bot 'openspiel-mcts' needs open-spiel: pip install open-spiel")
        import pyspiel

        self.spec = f"openspiel-mcts:c={c},simulations={simulations},seed={seed}"
        self._simulations = simulations
        self._pyspiel: Any = pyspiel
        self._c = c
        self._seed = seed
        self._bots: dict[tuple[int, float], Any] = {}
        self._random = random.Random(seed)

    def _bot(self, size: int, seconds: float) -> tuple[Any, Any]:
        pyspiel = self._pyspiel
        game = pyspiel.load_game("amazons", {"board_size": size})
        # A positive wall-clock limit makes OpenSpiel ignore the simulation count.
        wall_clock = -1.0 if self._simulations else seconds
        key = (size, round(wall_clock, 4))
        if key not in self._bots:
            evaluator = pyspiel.RandomRolloutEvaluator(1, self._seed)
            self._bots[key] = pyspiel.MCTSBot(
                game,
                evaluator,
                self._c,
                self._simulations or 10**9,
                1000,  # memory cap in MB
                True,  # solve
                self._seed,
                False,
                pyspiel.ChildSelectionPolicy.UCT,
                wall_clock,
            )
        return game, self._bots[key]

    def prepare(self) -> None:
        """Nothing to compile: OpenSpiel is native code."""

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        position = amazons_position(state, self.spec)
        start_position = position.clone()
        while start_position.ply:
            start_position.undo()
        size = BOARD_SIZES.get(start_position.text())
        if size is None:
            raise ValueError(
                "openspiel-mcts plays only games from the 6x6, 8x8 and 10x10 setups, not from "
                f"{start_position.text()!r}"
            )
        seconds = think_time(budget, moves_left=30) / 3
        game, bot = self._bot(size, seconds)
        spiel_state = game.new_initial_state()
        for move in position.move_stack:
            for sq in (move.origin, move.target, move.arrow):
                spiel_state.apply_action(cell(sq, size))
        actions = []
        simulations = 0
        for _ in range(3):
            root = bot.mcts_search(spiel_state)
            simulations += root.explore_count
            best = root.best_child()
            # No child when no simulation finished in time (a busy machine, a near-empty
            # clock): a random legal action then, as a rollout would take.
            action = (
                best.action
                if best is not None
                else self._random.choice(spiel_state.legal_actions())
            )
            actions.append(action)
            spiel_state.apply_action(action)
        move = Move(*(square(a, size) for a in actions))
        return Decision(move, seconds=now() - start, nodes=simulations)


def cell(square: Square, size: int) -> int:
    """OpenSpiel's cell index of a square: row 0 is the top rank."""
    return (size - 1 - square.rank) * size + square.file


def square(cell: int, size: int) -> Square:
    return Square(cell % size, size - 1 - cell // size)
