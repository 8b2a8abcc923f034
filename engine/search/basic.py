"""The simple bots: `random` (uniform over legal moves, any game) and `mobility` (the Amazons
move that leaves the opponent the fewest replies)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from numba import njit

from engine.amazons import Position, kernels
from engine.game import GameState
from engine.search.bot import Budget, Decision, now, require_moves

__all__ = ["MobilityBot", "RandomBot", "amazons_position"]


def amazons_position(state: GameState[Any], spec: str) -> Position:
    if not isinstance(state, Position):
        raise TypeError(f"bot {spec!r} plays only amazons, not {type(state).__name__}")
    return state


class RandomBot:
    """Uniform over the legal moves."""

    def __init__(self, seed: int = 0) -> None:
        self.spec = f"random:seed={seed}"
        self._rng = np.random.default_rng(seed)
        self._py = random.Random(seed)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        require_moves(state)
        if isinstance(state, Position):
            move: object = state.random_move(self._rng)
        else:
            move = self._py.choice(list(state.legal_moves))
        return Decision(move, seconds=now() - start, nodes=1)

    def prepare(self) -> None:
        Position.setup("6x6").random_move(0)


class MobilityBot:
    """The move after which the opponent has the fewest legal moves (ties broken at random)."""

    def __init__(self, seed: int = 0) -> None:
        self.spec = f"mobility:seed={seed}"
        self._rng = np.random.default_rng(seed)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        require_moves(state)
        position = amazons_position(state, self.spec)
        moves = np.empty(position.count_moves(), dtype=np.int64)
        board, mob, amazons, meta, zob = position.clone().arrays()
        kernels.generate_moves(board, amazons, meta, moves)
        replies = _replies(board, mob, amazons, meta, zob, moves)
        best = np.flatnonzero(replies == replies.min())
        move = int(moves[best[self._rng.integers(len(best))]])
        return Decision(
            position.decode(move),
            seconds=now() - start,
            nodes=len(moves),
            depth=1,
            score=-float(replies.min()),
        )

    def prepare(self) -> None:
        MobilityBot().choose(Position.setup("6x6"), Budget(seconds=1.0))


@njit(cache=True)
def _replies(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    moves: np.ndarray,
) -> np.ndarray:
    """The opponent's number of legal moves after each of `moves`."""
    out = np.empty(moves.shape[0], dtype=np.int64)
    for i in range(moves.shape[0]):
        m = int(moves[i])
        kernels.make_move(board, mob, amazons, meta, zob, m)
        out[i] = kernels.count_moves(board, mob, amazons, meta)
        kernels.unmake_move(board, mob, amazons, meta, zob, m)
    return out
