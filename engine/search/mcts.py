"""Monte Carlo tree search (UCT), the `mcts` bot: random playouts to the end of the game. For
Amazons the tree is in flat arrays and the iterations in numba; any other game is searched
through the generic interface (`engine.search.uct`).

Each iteration descends by UCT through nodes whose moves have all been tried, tries one new move
(untried moves are taken in a random order kept as a stride through the move index, so nodes
store no move lists), plays out, and backs the result up. Python runs the iterations in batches
and stops at the deadline.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.amazons import Position, kernels
from engine.game import GameState
from engine.jit import njit
from engine.search.bot import Budget, Decision, now, require_moves
from engine.search.timing import move_time
from engine.search.uct import uct_search

__all__ = ["MctsBot", "Tree", "drive", "init_node", "link_child", "seed_state", "uct_child"]

# Columns of the node table.
MOVE, PARENT, FIRST, NEXT, TRIED, TOTAL, STEP, OFFSET, VISITS = range(9)
COLUMNS = 9
BATCH_SECONDS = 0.004  # how long one numba batch may run before the deadline is checked


@njit(cache=True)
def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


@njit(cache=True, inline="always")
def init_node(nodes: np.ndarray, index: int, move: int, parent: int, total: int) -> None:
    """The columns every tree's node has: reached by `move` from `parent`, with `total` moves
    of its own, no child yet and no visit."""
    nodes[index, MOVE] = move
    nodes[index, PARENT] = parent
    nodes[index, FIRST] = -1
    nodes[index, NEXT] = -1
    nodes[index, TRIED] = 0
    nodes[index, TOTAL] = total
    nodes[index, VISITS] = 0


@njit(cache=True)
def _init_node(
    nodes: np.ndarray, index: int, move: int, parent: int, total: int, rng: np.ndarray
) -> None:
    """A node and the random order in which its moves will be tried."""
    init_node(nodes, index, move, parent, total)
    step = 1
    if total > 1:
        step = 1 + kernels.random_below(rng, total - 1)
        while _gcd(step, total) != 1:
            step = 1 + kernels.random_below(rng, total - 1)
    nodes[index, STEP] = step
    nodes[index, OFFSET] = kernels.random_below(rng, total) if total > 0 else 0


@njit(cache=True, inline="always")
def uct_child(nodes: np.ndarray, wins: np.ndarray, node: int, c: float) -> int:
    """The child of `node` with the best upper confidence bound (every child visited)."""
    log_n = math.log(nodes[node, VISITS])
    best = -1
    best_value = -1.0
    child = nodes[node, FIRST]
    while child >= 0:
        n = nodes[child, VISITS]
        value = wins[child] / n + c * math.sqrt(log_n / n)
        if value > best_value:
            best_value = value
            best = child
        child = nodes[child, NEXT]
    return best


@njit(cache=True, inline="always")
def link_child(nodes: np.ndarray, wins: np.ndarray, node: int, child: int) -> None:
    """Make the freshly initialised `child` the newest tried child of `node`."""
    wins[child] = 0.0
    nodes[child, NEXT] = nodes[node, FIRST]
    nodes[node, FIRST] = child
    nodes[node, TRIED] += 1


@njit(cache=True)
def new_tree(
    nodes: np.ndarray,
    wins: np.ndarray,
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    rng: np.ndarray,
) -> int:
    """Make node 0 the root for this position; return the tree size (1)."""
    _init_node(nodes, 0, -1, -1, kernels.count_moves(board, mob, amazons, meta), rng)
    wins[0] = 0.0
    return 1


@njit(cache=True)
def iterate(
    nodes: np.ndarray,
    wins: np.ndarray,
    size: int,
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    iterations: int,
    c: float,
) -> tuple[int, int]:
    """Run up to `iterations` iterations from the root position given by the arrays (left
    unchanged). Return (new tree size, iterations done): fewer when the table is full."""
    b = board.copy()
    m = mob.copy()
    a = amazons.copy()
    t = meta.copy()
    weights = np.empty(8 * amazons.shape[1], dtype=np.int64)
    root_side = meta[kernels.SIDE]
    capacity = nodes.shape[0]
    for done in range(iterations):
        if size >= capacity:
            return size, done
        b[:] = board
        m[:] = mob
        a[:] = amazons
        t[:] = meta
        node = 0
        depth = 0
        while nodes[node, TOTAL] > 0:
            tried = nodes[node, TRIED]
            if tried < nodes[node, TOTAL]:
                r = (nodes[node, OFFSET] + tried * nodes[node, STEP]) % nodes[node, TOTAL]
                kernels.ray_weights(b, m, a, t, weights)
                move = kernels.nth_move(b, m, a, t, weights, r)
                kernels.make_move(b, m, a, t, zob, move)
                child = size
                size += 1
                _init_node(nodes, child, move, node, kernels.count_moves(b, m, a, t), rng)
                link_child(nodes, wins, node, child)
                node = child
                depth += 1
                break
            best = uct_child(nodes, wins, node, c)
            kernels.make_move(b, m, a, t, zob, nodes[best, MOVE])
            node = best
            depth += 1
        if nodes[node, TOTAL] == 0:
            winner = 1 - t[kernels.SIDE]
        else:
            winner = kernels.random_playout(b, m, a, t, zob, rng)
        # The mover into a node at odd depth is the root's side to move.
        while node >= 0:
            nodes[node, VISITS] += 1
            mover = root_side if depth % 2 == 1 else 1 - root_side
            if winner == mover:
                wins[node] += 1.0
            node = nodes[node, PARENT]
            depth -= 1
    return size, iterations


@dataclass(slots=True)
class Tree:
    """The node table (see the column names above) and each node's wins, from the view of the
    player who made the move into it."""

    nodes: npt.NDArray[np.int64]
    wins: npt.NDArray[np.float64]
    size: int = 0

    @classmethod
    def empty(cls, capacity: int = 1 << 15) -> Tree:
        return cls(np.zeros((capacity, COLUMNS), np.int64), np.zeros(capacity, np.float64))

    def grow(self) -> None:
        capacity = 2 * self.nodes.shape[0]
        nodes = np.zeros((capacity, COLUMNS), np.int64)
        nodes[: self.size] = self.nodes[: self.size]
        wins = np.zeros(capacity, np.float64)
        wins[: self.size] = self.wins[: self.size]
        self.nodes, self.wins = nodes, wins

    def children(self, node: int) -> list[int]:
        found = []
        child = int(self.nodes[node, FIRST])
        while child >= 0:
            found.append(child)
            child = int(self.nodes[child, NEXT])
        return found

    def most_visited(self, node: int) -> int | None:
        children = self.children(node)
        if not children:
            return None
        return max(children, key=lambda ch: (int(self.nodes[ch, VISITS]), -ch))

    def decision(self, position: Position, start: float) -> Decision:
        """The most visited root move, with the playouts, win rate and principal variation."""
        best = self.most_visited(0)
        assert best is not None
        visits = int(self.nodes[best, VISITS])
        line = position.clone()
        pv_text = []
        for move in self.principal_variation():
            pv_text.append(str(line.decode(move)))
            line.apply_index(move)
        return Decision(
            position.decode(int(self.nodes[best, MOVE])),
            seconds=now() - start,
            nodes=int(self.nodes[0, VISITS]),
            depth=len(pv_text),
            score=float(self.wins[best] / visits) if visits else None,
            pv=pv_text,
        )

    def principal_variation(self, limit: int = 8) -> list[int]:
        moves: list[int] = []
        node = self.most_visited(0)
        while node is not None and len(moves) < limit and self.nodes[node, VISITS] > 0:
            moves.append(int(self.nodes[node, MOVE]))
            node = self.most_visited(node)
        return moves


class MctsBot:
    """UCT with uniformly random playouts to the end of the game, for any game."""

    def __init__(self, c: float = 0.8, playouts: int = 0, seed: int = 0) -> None:
        self.spec = f"mcts:c={c},playouts={playouts},seed={seed}"
        self.c = c
        self.playouts = playouts
        self._rng = np.array([seed_state(seed)], dtype=np.uint64)
        self._py = random.Random(seed)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        require_moves(state)
        if not isinstance(state, Position):
            return uct_search(state, budget, self.c, self._py, self.playouts)
        position = state
        deadline = start + move_time(budget, position)
        tree = search(position, self.c, self._rng, deadline, self.playouts)
        return tree.decision(position, start)

    def prepare(self) -> None:
        MctsBot(playouts=16).choose(Position.setup("6x6"), Budget(seconds=1.0))


def search(
    position: Position, c: float, rng: npt.NDArray[np.uint64], deadline: float, playouts: int = 0
) -> Tree:
    """Grow a UCT tree from `position` until `deadline` (perf_counter seconds) or, when
    `playouts` is set, that many iterations, whichever comes first."""
    board, mob, amazons, meta, zob = position.clone().arrays()
    tree = Tree.empty()
    tree.size = new_tree(tree.nodes, tree.wins, board, mob, amazons, meta, rng)

    def run(batch: int) -> int:
        tree.size, ran = iterate(
            tree.nodes, tree.wins, tree.size, board, mob, amazons, meta, zob, rng, batch, c
        )
        if ran < batch:
            tree.grow()
        return int(ran)

    drive(run, deadline, 1 if tree.nodes[0, TOTAL] == 1 else playouts)
    return tree


def drive(
    run: Callable[[int], int],
    deadline: float,
    limit: int = 0,
    clock: Callable[[], float] = now,
) -> int:
    """Call `run(batch)` (which runs up to `batch` iterations and returns how many it ran)
    in batches of about BATCH_SECONDS until the deadline or, when `limit` is set, exactly
    `limit` iterations with no regard to the clock; return the iterations run. The first batch
    always runs. `clock` times the batches: the thread's CPU clock (time.thread_time) leaves
    out the time a loaded machine keeps the search waiting."""
    if limit > 0:
        # A fixed number of iterations, whatever the clock says: the search then repeats exactly.
        done = 0
        while done < limit:
            done += run(min(1024, limit - done))
        return done
    done = 0
    batch = 8
    longest = 0.0
    while True:
        started = clock()
        ran = run(batch)
        done += ran
        elapsed = clock() - started
        longest = max(longest, elapsed)
        per_iteration = max(elapsed, 1e-7) / max(ran, 1)
        # Some iterations cost far more than the average (a node being ranked): plan for half
        # of what is left, and stop once less is left than the slowest batch took.
        left = deadline - now()
        if left < longest or left < 2 * per_iteration:
            return done
        batch = max(1, int(min(BATCH_SECONDS, left / 2) / per_iteration))


def seed_state(seed: int) -> int:
    # splitmix64 of the seed: a well-mixed, non-zero xorshift state.
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFF_FFFF_FFFF_FFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFF_FFFF_FFFF_FFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFF_FFFF_FFFF_FFFF
    return (z ^ (z >> 31)) or 1
