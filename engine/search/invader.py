"""`invader`, the strongest bot: MCTS whose playouts stop after a few random moves and score
the evaluation, with progressive widening over moves ordered by the evaluation, and exact play
once every region is settled.

A node is expanded once it has been visited `expand` times: its moves are ranked (every queen
step scored by the evaluation, then the arrows of the best `queens` of them) and the best `keep`
are stored; children are added in that order as the node's visits grow (about 2 + sqrt(n)).
In a settled position the side to move wins if it can make more moves than the opponent, so
the bot plays a move that keeps its own longest sequence of moves intact, found by a depth-first
search. An `endgame` hook, when set, is asked first (the CGT solver plugs in there).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from engine.amazons import SETUPS, Move, Position, kernels
from engine.game import GameState
from engine.search.basic import amazons_position
from engine.search.bot import Budget, Decision, now, require_moves
from engine.search.evaluation import evaluate, make_scratch
from engine.search.mcts import (
    FIRST,
    MOVE,
    NEXT,
    PARENT,
    TOTAL,
    TRIED,
    VISITS,
    Tree,
    drive,
    link_child,
    moves_left,
    seed_state,
    uct_child,
)
from engine.search.timing import think_time

__all__ = ["Endgame", "InvaderBot", "longest_sequence"]

# Columns of the node table beyond the ones shared with `mcts`: where a node's ranked moves
# start in the move pool (-1 until ranked) and how many there are.
LIST = 6
LENGTH = 7

Endgame = Callable[[Position], Move | None]
# Nodes of the settled-position search per second of budget, measured low on 10x10 regions.
FILL_NODES_PER_SECOND = 5_000
SETTLED_SAMPLE = "W1xx2B/xxxxxxx w"


@njit(cache=True)
def _init_node(nodes: np.ndarray, index: int, move: int, parent: int, total: int) -> None:
    nodes[index, MOVE] = move
    nodes[index, PARENT] = parent
    nodes[index, FIRST] = -1
    nodes[index, NEXT] = -1
    nodes[index, TRIED] = 0
    nodes[index, TOTAL] = total
    nodes[index, LIST] = -1
    nodes[index, LENGTH] = 0
    nodes[index, VISITS] = 0


@njit(cache=True)
def rank_moves(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    queens: int,
    keep: int,
    out: np.ndarray,
) -> int:
    """Write up to `keep` good moves of the side to move into `out`, best first; return how
    many. Queen steps are scored by the evaluation with the amazon moved and no arrow yet; the
    arrows of the best `queens` steps are then scored one by one."""
    side = meta[kernels.SIDE]
    stride = meta[kernels.STRIDE]
    dirs = kernels.directions(stride)
    count = meta[kernels.COUNT + side]
    steps = 0
    for i in range(count):
        a = amazons[side, i]
        for d in range(8):
            t = a + dirs[d]
            while board[t] == kernels.EMPTY:
                steps += 1
                t += dirs[d]
    origins = np.empty(steps, dtype=np.int64)
    targets = np.empty(steps, dtype=np.int64)
    slots = np.empty(steps, dtype=np.int64)
    scores = np.empty(steps, dtype=np.float64)
    n = 0
    for i in range(count):
        a = amazons[side, i]
        piece = board[a]
        for d in range(8):
            t = a + dirs[d]
            while board[t] == kernels.EMPTY:
                board[a] = kernels.EMPTY
                board[t] = piece
                amazons[side, i] = t
                scores[n] = evaluate(board, amazons, meta, scratch)
                amazons[side, i] = a
                board[t] = kernels.EMPTY
                board[a] = piece
                origins[n] = a
                targets[n] = t
                slots[n] = i
                n += 1
                t += dirs[d]
    best_steps = np.argsort(-scores)[: min(queens, n)]
    arrows = 0
    for j in best_steps:
        board[origins[j]] = kernels.EMPTY
        for e in range(8):
            x = targets[j] + dirs[e]
            while board[x] == kernels.EMPTY:
                arrows += 1
                x += dirs[e]
        board[origins[j]] = side + 1
    moves = np.empty(arrows, dtype=np.int64)
    move_scores = np.empty(arrows, dtype=np.float64)
    m = 0
    for j in best_steps:
        o = origins[j]
        t = targets[j]
        board[o] = kernels.EMPTY
        for e in range(8):
            x = t + dirs[e]
            while board[x] == kernels.EMPTY:
                moves[m] = kernels.encode(o, t, x)
                m += 1
                x += dirs[e]
        board[o] = side + 1
    for k in range(arrows):
        kernels.make_move(board, mob, amazons, meta, zob, moves[k])
        move_scores[k] = -evaluate(board, amazons, meta, scratch)
        kernels.unmake_move(board, mob, amazons, meta, zob, moves[k])
    order = np.argsort(-move_scores)
    kept = min(keep, arrows)
    for k in range(kept):
        out[k] = moves[order[k]]
    return kept


@njit(cache=True)
def _playout(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    weights: np.ndarray,
    scratch: np.ndarray,
    cutoff: int,
    slope: float,
) -> float:
    """Play up to `cutoff` random moves, then turn the evaluation into White's chance to win
    (a game that ends on the way counts exactly)."""
    for _ in range(cutoff):
        move = kernels.draw_move(board, mob, amazons, meta, rng, weights)
        if move < 0:
            break
        kernels.make_move(board, mob, amazons, meta, zob, move)
    side = meta[kernels.SIDE]
    if not kernels.has_moves(board, amazons, meta):
        chance = 0.0
    else:
        chance = 1.0 / (1.0 + math.exp(-slope * evaluate(board, amazons, meta, scratch)))
    return chance if side == 0 else 1.0 - chance


@njit(cache=True)
def iterate(
    nodes: np.ndarray,
    wins: np.ndarray,
    pool: np.ndarray,
    sizes: np.ndarray,
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    scratch: np.ndarray,
    iterations: int,
    params: np.ndarray,
) -> int:
    """Run up to `iterations` iterations from the root position the arrays hold (left as they
    are); return how many ran: fewer when the node table or the move pool is full, or when an
    iteration ranked a node's moves.
    sizes = [nodes used, pool entries used]; params = [c, cutoff, slope, expand, queens, keep,
    widen]."""
    c = params[0]
    cutoff = int(params[1])
    slope = params[2]
    expand = int(params[3])
    queens = int(params[4])
    keep = int(params[5])
    widen = params[6]
    b = board.copy()
    m = mob.copy()
    a = amazons.copy()
    t = meta.copy()
    weights = np.empty(8 * amazons.shape[1], dtype=np.int64)
    ranked = np.empty(keep, dtype=np.int64)
    for done in range(iterations):
        if sizes[0] + 1 >= nodes.shape[0] or sizes[1] + keep >= pool.shape[0]:
            return done
        b[:] = board
        m[:] = mob
        a[:] = amazons
        t[:] = meta
        node = 0
        ranked_one = False
        while True:
            if nodes[node, TOTAL] == 0:
                break
            if node != 0 and nodes[node, VISITS] < expand:
                break
            if nodes[node, LIST] < 0:
                length = rank_moves(b, m, a, t, zob, scratch, queens, keep, ranked)
                nodes[node, LIST] = sizes[1]
                nodes[node, LENGTH] = length
                pool[sizes[1] : sizes[1] + length] = ranked[:length]
                sizes[1] += length
                ranked_one = True
            allowed = min(nodes[node, LENGTH], 2 + int(widen * math.sqrt(nodes[node, VISITS])))
            tried = nodes[node, TRIED]
            if tried < allowed:
                move = pool[nodes[node, LIST] + tried]
                kernels.make_move(b, m, a, t, zob, move)
                child = sizes[0]
                sizes[0] += 1
                _init_node(nodes, child, move, node, kernels.count_moves(b, m, a, t))
                link_child(nodes, wins, node, child)
                node = child
                break
            best = uct_child(nodes, wins, node, c)
            kernels.make_move(b, m, a, t, zob, nodes[best, MOVE])
            node = best
        # Each node keeps the result for the player who moved into it: the side not to move
        # there. Walking up, that player alternates.
        mover = 1 - t[kernels.SIDE]
        if nodes[node, TOTAL] == 0:
            white = 0.0 if t[kernels.SIDE] == 0 else 1.0
        else:
            white = _playout(b, m, a, t, zob, rng, weights, scratch, cutoff, slope)
        while node >= 0:
            nodes[node, VISITS] += 1
            wins[node] += white if mover == 0 else 1.0 - white
            mover = 1 - mover
            node = nodes[node, PARENT]
        if ranked_one:
            # Ranking costs as much as many playouts: end the batch so the caller sees the
            # clock before another one starts.
            return done + 1
    return iterations


@njit(cache=True)
def _reach(board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, side: int) -> int:
    """Empty squares king-connected to `side`'s amazons: a bound on the moves it has left."""
    stride = meta[kernels.STRIDE]
    dirs = kernels.directions(stride)
    seen = np.zeros(board.shape[0], dtype=np.bool_)
    stack = np.empty(board.shape[0], dtype=np.int64)
    top = 0
    for i in range(meta[kernels.COUNT + side]):
        stack[top] = amazons[side, i]
        seen[amazons[side, i]] = True
        top += 1
    count = 0
    while top > 0:
        top -= 1
        sq = stack[top]
        for d in range(8):
            p = sq + dirs[d]
            if board[p] == kernels.EMPTY and not seen[p]:
                seen[p] = True
                count += 1
                stack[top] = p
                top += 1
    return count


@njit(cache=True)
def _longest(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    side: int,
    depth: int,
    best: np.ndarray,
    budget: np.ndarray,
) -> int:
    """Depth-first search for the longest run of moves `side` can make alone (the opponent
    passing). best = [longest found, its first move]; budget[0] counts down nodes."""
    meta[kernels.SIDE] = side
    total = kernels.count_moves(board, mob, amazons, meta)
    if depth > best[0]:
        best[0] = depth
    if total == 0 or budget[0] <= 0:
        return depth
    if depth + _reach(board, amazons, meta, side) <= best[0]:
        return depth
    budget[0] -= 1
    moves = np.empty(total, dtype=np.int64)
    kernels.generate_moves(board, amazons, meta, moves)
    longest = depth
    for i in range(total):
        meta[kernels.SIDE] = side
        kernels.make_move(board, mob, amazons, meta, zob, moves[i])
        found = _longest(board, mob, amazons, meta, zob, side, depth + 1, best, budget)
        meta[kernels.SIDE] = 1 - side
        kernels.unmake_move(board, mob, amazons, meta, zob, moves[i])
        if found > longest:
            longest = found
            if depth == 0 and found >= best[0]:
                best[1] = moves[i]
        if budget[0] <= 0 or best[0] == depth + _reach(board, amazons, meta, side):
            break
    return longest


def longest_sequence(position: Position, side: int, nodes: int) -> tuple[int, int, bool]:
    """(the most moves `side` can make if the opponent passed, the first of them as a kernel
    move or -1, whether that is proven: the search ended or reached the empty-square bound)."""
    board, mob, amazons, meta, zob = position.clone().arrays()
    best = np.array([-1, -1], dtype=np.int64)
    budget = np.array([nodes], dtype=np.int64)
    _longest(board, mob, amazons, meta, zob, side, 0, best, budget)
    bound = int(_reach(board, amazons, meta, side))
    return int(best[0]), int(best[1]), budget[0] > 0 or best[0] == bound


class InvaderBot:
    """MCTS with evaluation cut-off playouts, ordered progressive widening and exact play in
    settled positions."""

    def __init__(
        self,
        c: float = 0.3,
        cutoff: int = 2,
        slope: float = 0.3,
        expand: int = 4,
        queens: int = 12,
        keep: int = 40,
        widen: float = 1.0,
        playouts: int = 0,
        seed: int = 0,
        endgame: Endgame | None = None,
    ) -> None:
        self.spec = (
            f"invader:c={c},cutoff={cutoff},slope={slope},expand={expand},queens={queens},"
            f"keep={keep},widen={widen},playouts={playouts},seed={seed}"
        )
        self.params = np.array([c, cutoff, slope, expand, queens, keep, widen], dtype=np.float64)
        self.playouts = playouts
        self.endgame = endgame
        self._rng = np.array([seed_state(seed)], dtype=np.uint64)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        require_moves(state)
        position = amazons_position(state, self.spec)
        if self.endgame is not None:
            move = self.endgame(position)
            if move is not None:
                return Decision(move, seconds=now() - start)
        seconds = think_time(budget, moves_left=moves_left(position))
        if _settled(position):
            return self._fill(position, start, seconds)
        deadline = start + seconds
        return self.search(position, deadline).decision(position, start)

    def prepare(self) -> None:
        for text in (SETUPS["6x6"], SETTLED_SAMPLE):
            InvaderBot(playouts=16).choose(Position.parse(text), Budget(seconds=1.0))

    def search(self, position: Position, deadline: float) -> Tree:
        board, mob, amazons, meta, zob = position.clone().arrays()
        tree = Tree.empty()
        pool = np.zeros(1 << 16, dtype=np.int64)
        sizes = np.array([1, 0], dtype=np.int64)
        tree.nodes[0] = 0
        tree.nodes[0, [FIRST, NEXT, LIST, PARENT, MOVE]] = -1
        tree.nodes[0, TOTAL] = kernels.count_moves(board, mob, amazons, meta)
        scratch = make_scratch(board)
        keep = int(self.params[5])

        def run(batch: int) -> int:
            nonlocal pool
            ran = int(
                iterate(
                    tree.nodes,
                    tree.wins,
                    pool,
                    sizes,
                    board,
                    mob,
                    amazons,
                    meta,
                    zob,
                    self._rng,
                    scratch,
                    batch,
                    self.params,
                )
            )
            if ran < batch:
                if sizes[0] + 1 >= tree.nodes.shape[0]:
                    tree.size = int(sizes[0])
                    tree.grow()
                if sizes[1] + keep >= pool.shape[0]:
                    pool = np.concatenate([pool, np.zeros_like(pool)])
            return ran

        limit = 1 if tree.nodes[0, TOTAL] == 1 else self.playouts
        drive(run, deadline, limit)
        tree.size = int(sizes[0])
        return tree

    def _fill(self, position: Position, start: float, seconds: float) -> Decision:
        """Settled: keep the longest run of own moves (the opponent's is out of reach)."""
        side = position.current_player
        nodes = 100 + int(FILL_NODES_PER_SECOND * seconds / 2)
        own, move, proven = longest_sequence(position, side, nodes)
        other, _, _ = longest_sequence(position, 1 - side, nodes)
        return Decision(
            position.decode(move),
            seconds=now() - start,
            depth=own,
            score=float(own - other),
            pv=["exact fill" if proven else "best fill found"],
        )


def _settled(position: Position) -> bool:
    return all(region.white == () or region.black == () for region in position.regions())
