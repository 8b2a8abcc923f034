"""UCT over the generic `GameState` interface, for a game without kernels of its own: the
`mcts` bot's path for every game but Amazons (whose tree lives in numba, `engine.search.mcts`).

The tree is plain Python nodes; each iteration plays its moves on one working copy of the root
state and takes them all back afterwards, so a playout costs only the game's own `apply` and
`undo`. A drawn playout counts half a win to each side, and so does one cut off after
PLAYOUT_LIMIT moves: a playout that long has wandered far from any game a player would play
(and in Bao into positions whose moves can take seconds to generate).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, Final

from engine.game import GameState
from engine.search.bot import Budget, Decision, now, require_moves
from engine.search.timing import think_time

__all__ = ["GENERIC_MOVES_LEFT", "UctNode", "uct_search"]

# Moves a side is expected still to make in a game the time manager knows nothing about.
GENERIC_MOVES_LEFT: Final = 20
PLAYOUT_LIMIT: Final = 100  # random moves a playout plays at most before it counts as drawn


class UctNode:
    """A node of the tree: the move into it, the player who made it, its children, the moves
    not tried yet (in a random order), and its visits and wins for the player who moved."""

    __slots__ = ("children", "move", "mover", "parent", "untried", "visits", "wins")

    def __init__(
        self, move: object, mover: int, parent: UctNode | None, untried: list[Any]
    ) -> None:
        self.move = move
        self.mover = mover
        self.parent = parent
        self.children: list[UctNode] = []
        self.untried = untried
        self.visits = 0
        self.wins = 0.0

    def best_child(self, c: float) -> UctNode:
        log_n = math.log(self.visits)
        return max(
            self.children,
            key=lambda ch: ch.wins / ch.visits + c * math.sqrt(log_n / ch.visits),
        )

    def most_visited(self) -> UctNode | None:
        return max(self.children, key=lambda ch: ch.visits, default=None)


def _shuffled(state: GameState[Any], rng: random.Random) -> list[Any]:
    moves = list(state.legal_moves)
    rng.shuffle(moves)
    return moves


def _wins(returns: tuple[float, float], player: int) -> float:
    """A finished game's result for `player`: 1 won, 0.5 drawn, 0 lost."""
    mine, theirs = returns[player], returns[1 - player]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def uct_search(
    state: GameState[Any],
    budget: Budget,
    c: float,
    rng: random.Random,
    playouts: int = 0,
    clock: Callable[[], float] = now,
) -> Decision:
    """The most visited root move after UCT iterations with random playouts, until the
    budget's time is spent or, when `playouts` is set, exactly that many iterations."""
    start = clock()
    require_moves(state)
    deadline = start + think_time(budget, GENERIC_MOVES_LEFT)
    work = state.clone()
    root = UctNode(None, 1 - work.current_player, None, _shuffled(work, rng))
    done = 0
    while True:
        if playouts:
            if done >= playouts:
                break
        elif done and clock() >= deadline:
            break
        if len(root.children) == 1 and not root.untried:
            break  # a forced move needs no playouts
        node = root
        played = 0
        while not node.untried and node.children:
            node = node.best_child(c)
            work.apply(node.move)
            played += 1
        if node.untried:
            move = node.untried.pop()
            mover = work.current_player
            work.apply(move)
            played += 1
            child = UctNode(move, mover, node, _shuffled(work, rng))
            node.children.append(child)
            node = child
        ended = work.is_terminal()
        for _ in range(PLAYOUT_LIMIT):
            if ended:
                break
            work.apply(rng.choice(list(work.legal_moves)))
            played += 1
            ended = work.is_terminal()
        result = work.returns() if ended else (0.0, 0.0)
        for _ in range(played):
            work.undo()
        walk: UctNode | None = node
        while walk is not None:
            walk.visits += 1
            walk.wins += _wins(result, walk.mover)
            walk = walk.parent
        done += 1
    best = root.most_visited()
    assert best is not None  # the first iteration always expands a root move
    pv: list[str] = []
    line: UctNode | None = best
    while line is not None and line.visits and len(pv) < 8:
        pv.append(state.format_move(line.move))
        line = line.most_visited()
    return Decision(
        best.move,
        seconds=clock() - start,
        nodes=root.visits,
        depth=len(pv),
        score=best.wins / best.visits,
        pv=pv,
    )
