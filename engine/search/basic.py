"""The simple bots, which play any game: `random` (uniform over legal moves) and `mobility`
(the move that leaves the opponent the fewest replies). Both take a faster path through the
Amazons kernels for an Amazons position, and the generic `GameState` interface otherwise."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.amazons import Position, kernels
from engine.game import GameState
from engine.jit import njit
from engine.search.bot import Budget, Decision, now, require_moves

__all__ = ["MobilityBot", "RandomBot", "amazons_position", "best_scored", "pick_best"]


def pick_best(
    scores: npt.NDArray[np.int64] | npt.NDArray[np.float64],
    rng: np.random.Generator,
    tie: float = 0,
) -> int:
    """The index of a best score, drawn at random among those within `tie` of the best."""
    best = np.flatnonzero(scores >= scores.max() - tie)
    return int(best[rng.integers(len(best))])


def best_scored(
    position: Position,
    moves: npt.NDArray[np.int64],
    scores: npt.NDArray[np.int64] | npt.NDArray[np.float64],
    rng: np.random.Generator,
    start: float,
    tie: float = 0,
) -> Decision:
    """A one-ply bot's decision: a move of `moves` (kernel moves of `position`) with a best
    score, drawn by `rng` among those within `tie` of it."""
    index = pick_best(scores, rng, tie)
    move = position.decode(int(moves[index]))
    return Decision(
        move,
        seconds=now() - start,
        nodes=len(moves),
        depth=1,
        score=float(scores[index]),
        pv=[str(move)],
    )


def amazons_position(state: GameState[Any], spec: str) -> Position:
    """The Amazons position a bot is asked to move in: NoMoveError when the game is over,
    TypeError for a state of another game."""
    require_moves(state)
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
    """The move after which the side to move next has the fewest legal moves (ties broken at
    random)."""

    def __init__(self, seed: int = 0) -> None:
        self.spec = f"mobility:seed={seed}"
        self._rng = np.random.default_rng(seed)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        if not isinstance(state, Position):
            require_moves(state)
            return self._choose_by_rules(state, start)
        position = amazons_position(state, self.spec)
        moves = position.move_indices()
        replies = _replies(*position.clone().arrays(), moves)
        return best_scored(position, moves, -replies, self._rng, start)

    def _choose_by_rules(self, state: GameState[Any], start: float) -> Decision:
        """The same choice through the generic interface, for any game."""
        probe = state.clone()
        moves = list(probe.legal_moves)
        replies = np.empty(len(moves), dtype=np.int64)
        for i, move in enumerate(moves):
            probe.apply(move)
            replies[i] = len(probe.legal_moves)
            probe.undo()
        return Decision(
            moves[pick_best(-replies, self._rng)],
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
