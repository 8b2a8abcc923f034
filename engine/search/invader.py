"""`invader`, the strongest bot: MCTS whose playouts stop after a few random moves and score
the evaluation, with progressive widening over moves ordered by the evaluation, implicit
minimax backups of the evaluation, and exact play in the endgame. The evaluation is
Lieberum's terms (engine.search.evaluation) with weights fitted to game results (`FITTED`,
from `arena fit`), or with Lieberum's own (`fitted=0`).

A node is expanded once it has been visited `expand` times: its moves are ranked (every queen
step scored by the evaluation with its arrow shot back where it came from, then the other
arrows of the best `queens` steps and the arrows that shut a rival amazon in) and the best
`keep` are stored with their scores; the root ranks every move and keeps `root`. Children are
added in that order as the node's visits grow (about 2 + widen sqrt(n)).
Each node also holds an implicit minimax value (Lanctot, Winands, Pepels and Sturtevant 2014):
a new child's is its ranking score as a win chance, a parent's is 1 - its best reply's, and
selection weighs it against the playouts' win rate by `mix`. Scores become win chances
1 / (1 + e^(-slope (x - par))) with a par of `komi` times the root's value two plies on (its
best move among the four the ranking puts first, after the opponent's best ranked reply), so
that a search well ahead or behind still sees which moves gain and which lose.
In a settled position the side to move wins if it can make more moves than the opponent, so
the bot plays a move that keeps its own longest sequence of moves intact, found by a depth-first
search. Before that, once the contested regions are small (`exact` empty squares in all), the
exact endgame player (engine.cgt.player: regions' values from the endgame database or the CGT
solver, perfect play in their sum) is given half of the move's time; it answers when it can
play exactly and the search runs when it cannot. Any other `endgame` hook may take its place.
With `playouts` fixed nothing reads the clock: the endgame player and the settled search get as
much work as that many playouts stand for, counted in region positions and nodes, so a seeded
game replays exactly whatever the time.
A move's search starts from the last search's tree (`reuse=1`): the subtree under the node one
or two plies down that holds the new position (the move played and the reply, or the move alone
when the same bot plays the next ply) becomes the root, its visits and wins kept, its values
taken again from the new par; the root's list of moves is widened to the root's full ranking.
A position the tree does not hold (another game, a reply never searched) gets a fresh tree.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.amazons import SETUPS, Move, Position, kernels
from engine.cgt.player import ExactEndgame
from engine.errors import NotationError
from engine.game import GameState
from engine.jit import njit
from engine.search.basic import amazons_position
from engine.search.bot import Budget, Decision, now
from engine.search.evaluation import LIEBERUM, make_scratch, weighted_evaluate
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
    init_node,
    link_child,
    seed_state,
)
from engine.search.timing import move_time

__all__ = ["Endgame", "InvaderBot", "ValuedTree", "longest_sequence"]

# Columns of the node table beyond the ones shared with `mcts`: where a node's ranked moves
# start in the move pool (-1 until ranked) and how many there are.
LIST = 6
LENGTH = 7

# An exact endgame player: a move for the position within the seconds or the new region
# positions given (None: no limit), or None.
Endgame = Callable[[Position, float | None, int | None], Move | None]
ENDGAME_SHARE = 0.5  # of a move's time, for the endgame player; the search has the rest
# With `playouts` fixed, the time they stand for (invader's playouts in a second on 6x6) and the
# region positions the endgame solver searches in a second on 6x6 endgames: measured 30,500 and
# 52,000 on 2026-11-25 on a 2-core AMD EPYC.
PLAYOUTS_PER_SECOND = 30_000
REGION_POSITIONS_PER_SECOND = 50_000
# Nodes of the settled-position search per second of budget, measured low on 10x10 regions.
FILL_NODES_PER_SECOND = 5_000
SETTLED_SAMPLE = "W1xx2B/xxxxxxx w"
ENDGAME_SAMPLE = "B2W/xxxx/2xx b"  # one small contested region, for the endgame player
# A rival amazon with at most this many free neighbours can be shut in by one arrow or two.
SHUT_IN = 2
ALL = 1 << 30  # as `queens`: the arrows of every queen step
PAR_CANDIDATES = 4  # root moves whose best replies set the par
# The evaluation's terms weighted as by a logistic regression of game results on them, divided
# by the default slope, so that at that slope a score becomes the regression's win chance:
# `arena fit docs/data/fit-games.jsonl.gz` prints them (docs/experiments.md).
FITTED = np.array([2.97, 0.33, 0.17, 0.33, 0.58, 0.08, -0.02, -0.16, 0.47, 0.28])


@njit(cache=True)
def _init_node(nodes: np.ndarray, index: int, move: int, parent: int, total: int) -> None:
    """A node whose moves are not ranked yet."""
    init_node(nodes, index, move, parent, total)
    nodes[index, LIST] = -1
    nodes[index, LENGTH] = 0


@njit(cache=True, inline="always")
def _shutting_arrows(
    board: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    dirs: tuple[int, ...],
    origin: int,
    target: int,
    hot: np.ndarray,
    moves: np.ndarray,
    m: int,
) -> int:
    """With the amazon moved from `origin` to `target` on `board`: write to moves[m:] each
    arrow from `target`, other than back onto `origin`, onto a free neighbour of a rival amazon
    left with at most SHUT_IN free neighbours, and return the new m (counting only, past the
    end of `moves`). Such arrows shut an amazon in, which the step's score does not show."""
    rival = 1 - meta[kernels.SIDE]
    weak = False
    for i in range(meta[kernels.COUNT + rival]):
        r = amazons[rival, i]
        free = 0
        for e in range(8):
            if board[r + dirs[e]] == kernels.EMPTY:
                free += 1
        if free <= SHUT_IN:
            weak = True
            for e in range(8):
                if board[r + dirs[e]] == kernels.EMPTY:
                    hot[r + dirs[e]] = True
    if not weak:
        return m
    for e in range(8):
        x = target + dirs[e]
        while board[x] == kernels.EMPTY:
            if hot[x] and x != origin:
                if m < moves.shape[0]:
                    moves[m] = kernels.encode(origin, target, x)
                m += 1
            x += dirs[e]
    hot[:] = False
    return m


@njit(cache=True)
def rank_moves(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
    queens: int,
    keep: int,
    out: np.ndarray,
    out_scores: np.ndarray,
) -> int:
    """Write up to `keep` good moves of the side to move into `out`, best first, and their
    scores (the evaluation weighted by `weights` after the move, for the side playing it) into
    `out_scores`; return how many.

    Every queen step is scored with its arrow shot back onto the square it left: that is a
    move of its own, often the best one (it takes back the room the step opens), and its score
    ranks the steps. The other arrows of the best `queens` steps, and those of the other steps
    that shut a rival amazon in, are then scored one by one."""
    side = meta[kernels.SIDE]
    dirs = kernels.directions(meta[kernels.STRIDE])
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
    scores = np.empty(steps, dtype=np.float64)
    n = 0
    for i in range(count):
        a = amazons[side, i]
        piece = board[a]
        for d in range(8):
            t = a + dirs[d]
            while board[t] == kernels.EMPTY:
                board[a] = kernels.ARROW
                board[t] = piece
                amazons[side, i] = t
                meta[kernels.SIDE] = 1 - side
                scores[n] = -weighted_evaluate(board, amazons, meta, scratch, weights)
                meta[kernels.SIDE] = side
                amazons[side, i] = a
                board[t] = kernels.EMPTY
                board[a] = piece
                origins[n] = a
                targets[n] = t
                n += 1
                t += dirs[d]
    chosen = np.zeros(n, dtype=np.bool_)
    chosen[np.argsort(-scores)[: min(queens, n)]] = True
    hot = np.zeros(board.shape[0], dtype=np.bool_)
    # The moves after the n shots back: two passes over the steps, to count them and then to
    # write them.
    moves = np.empty(0, dtype=np.int64)
    for write in range(2):
        m = n
        for j in range(n):
            o = origins[j]
            t = targets[j]
            piece = board[o]
            board[o] = kernels.EMPTY
            board[t] = piece
            if write:
                moves[j] = kernels.encode(o, t, o)
            if chosen[j]:
                for e in range(8):
                    x = t + dirs[e]
                    while board[x] == kernels.EMPTY:
                        if x != o:
                            if write:
                                moves[m] = kernels.encode(o, t, x)
                            m += 1
                        x += dirs[e]
            else:
                m = _shutting_arrows(board, amazons, meta, dirs, o, t, hot, moves, m)
            board[t] = kernels.EMPTY
            board[o] = piece
        if not write:
            moves = np.empty(m, dtype=np.int64)
    move_scores = np.empty(m, dtype=np.float64)
    move_scores[:n] = scores
    for k in range(n, m):
        kernels.make_move(board, mob, amazons, meta, zob, moves[k])
        move_scores[k] = -weighted_evaluate(board, amazons, meta, scratch, weights)
        kernels.unmake_move(board, mob, amazons, meta, zob, moves[k])
    order = np.argsort(-move_scores)
    kept = min(keep, m)
    for k in range(kept):
        out[k] = moves[order[k]]
        out_scores[k] = move_scores[order[k]]
    return kept


@njit(cache=True)
def two_ply(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
    candidates: int,
    queens: int,
) -> float:
    """The evaluation (weighted by `weights`) for the side to move two plies on: the best of
    its `candidates` best moves by the ranking, each scored by the opponent's best reply among
    the moves it ranks with the arrows of `queens` steps (the static evaluation when the side
    cannot move, or a win when the opponent cannot)."""
    if not kernels.has_moves(board, amazons, meta):
        return weighted_evaluate(board, amazons, meta, scratch, weights)
    moves = np.empty(candidates, dtype=np.int64)
    scores = np.empty(candidates, dtype=np.float64)
    found = rank_moves(
        board, mob, amazons, meta, zob, scratch, weights, ALL, candidates, moves, scores
    )
    reply = np.empty(1, dtype=np.int64)
    reply_score = np.empty(1, dtype=np.float64)
    best = -math.inf
    for i in range(found):
        kernels.make_move(board, mob, amazons, meta, zob, moves[i])
        if kernels.has_moves(board, amazons, meta):
            rank_moves(
                board, mob, amazons, meta, zob, scratch, weights, queens, 1, reply, reply_score
            )
            value = -reply_score[0]
        else:
            value = math.inf
        kernels.unmake_move(board, mob, amazons, meta, zob, moves[i])
        best = max(best, value)
    return best


@njit(cache=True, inline="always")
def _chance(score: float, slope: float) -> float:
    """An evaluation score turned into a chance to win."""
    return 1.0 / (1.0 + math.exp(-slope * score))


@njit(cache=True)
def _playout(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    draw_weights: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
    cutoff: int,
    slope: float,
    par: float,
) -> float:
    """Play up to `cutoff` random moves (drawn with `draw_weights` as scratch), then turn the
    evaluation weighted by `weights`, less `par` (for White), into White's chance to win (a
    game that ends on the way counts exactly)."""
    for _ in range(cutoff):
        move = kernels.draw_move(board, mob, amazons, meta, rng, draw_weights)
        if move < 0:
            break
        kernels.make_move(board, mob, amazons, meta, zob, move)
    side = meta[kernels.SIDE]
    if not kernels.has_moves(board, amazons, meta):
        return 0.0 if side == 0 else 1.0
    score = weighted_evaluate(board, amazons, meta, scratch, weights)
    return _chance(score - par if side == 0 else -score - par, slope)


@njit(cache=True, inline="always")
def _select(
    nodes: np.ndarray, wins: np.ndarray, values: np.ndarray, node: int, c: float, mix: float
) -> int:
    """The child of `node` (every child visited) with the best upper confidence bound on its
    win rate mixed with its minimax value: (1 - mix) wins/n + mix value + c sqrt(ln N / n)."""
    log_n = math.log(nodes[node, VISITS])
    best = -1
    best_value = -math.inf
    child = nodes[node, FIRST]
    while child >= 0:
        n = nodes[child, VISITS]
        value = (1.0 - mix) * wins[child] / n + mix * values[child] + c * math.sqrt(log_n / n)
        if value > best_value:
            best_value = value
            best = child
        child = nodes[child, NEXT]
    return best


@njit(cache=True, inline="always")
def _best_reply(
    nodes: np.ndarray, values: np.ndarray, scores: np.ndarray, node: int, slope: float, par: float
) -> float:
    """The best value among the replies at `node` (implicit minimax): its tried children's
    values and, standing for the moves not tried yet, the chance of the best of them by its
    ranking score (the next in the list) less `par`, the replying side's."""
    best = 0.0
    child = nodes[node, FIRST]
    while child >= 0:
        best = max(best, values[child])
        child = nodes[child, NEXT]
    tried = nodes[node, TRIED]
    if tried < nodes[node, LENGTH]:
        best = max(best, _chance(scores[nodes[node, LIST] + tried] - par, slope))
    return best


@njit(cache=True)
def iterate(
    nodes: np.ndarray,
    wins: np.ndarray,
    values: np.ndarray,
    ranked: np.ndarray,
    scores: np.ndarray,
    sizes: np.ndarray,
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
    iterations: int,
    params: np.ndarray,
    par: float,
) -> int:
    """Run up to `iterations` iterations from the root position the arrays hold (left as they
    are); return how many ran: fewer when the node table or the ranked-move pool is full, or
    when an iteration ranked a node's moves. The arrays are those of `ValuedTree`;
    sizes = [nodes used, pool entries used]; params = [c, cutoff, slope, expand, queens, keep,
    widen, mix, root, komi]; `weights` mix the evaluation's terms. Scores count from a par:
    `par` for White (komi times the root's value two plies on, for White), -par for Black."""
    c = params[0]
    cutoff = int(params[1])
    slope = params[2]
    expand = int(params[3])
    queens = int(params[4])
    keep = int(params[5])
    widen = params[6]
    mix = params[7]
    root = int(params[8])
    longest = max(keep, root)
    b = board.copy()
    m = mob.copy()
    a = amazons.copy()
    t = meta.copy()
    draw_weights = np.empty(8 * amazons.shape[1], dtype=np.int64)
    for done in range(iterations):
        if sizes[0] + 1 >= nodes.shape[0] or sizes[1] + longest >= ranked.shape[0]:
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
                start = sizes[1]
                # The root is ranked once a move: the arrows of every queen step, and more
                # moves kept.
                steps, kept = (ALL, root) if node == 0 else (queens, keep)
                length = rank_moves(
                    b, m, a, t, zob, scratch, weights, steps, kept, ranked[start:], scores[start:]
                )
                nodes[node, LIST] = start
                nodes[node, LENGTH] = length
                sizes[1] += length
                ranked_one = True
            allowed = min(nodes[node, LENGTH], 2 + int(widen * math.sqrt(nodes[node, VISITS])))
            tried = nodes[node, TRIED]
            if tried < allowed:
                move = ranked[nodes[node, LIST] + tried]
                kernels.make_move(b, m, a, t, zob, move)
                child = sizes[0]
                sizes[0] += 1
                total = kernels.count_moves(b, m, a, t)
                _init_node(nodes, child, move, node, total)
                link_child(nodes, wins, node, child)
                # The mover's chance by the score its parent ranked the move with; certain
                # when the move leaves the opponent without a move.
                score = scores[nodes[node, LIST] + tried]
                side_par = par if t[kernels.SIDE] == 1 else -par
                values[child] = 1.0 if total == 0 else _chance(score - side_par, slope)
                node = child
                break
            best = _select(nodes, wins, values, node, c, mix)
            kernels.make_move(b, m, a, t, zob, nodes[best, MOVE])
            node = best
        # Each node keeps the result for the player who moved into it: the side not to move
        # there. Walking up, that player alternates.
        mover = 1 - t[kernels.SIDE]
        if nodes[node, TOTAL] == 0:
            white = 0.0 if t[kernels.SIDE] == 0 else 1.0
        else:
            white = _playout(
                b, m, a, t, zob, rng, draw_weights, scratch, weights, cutoff, slope, par
            )
        while node >= 0:
            nodes[node, VISITS] += 1
            wins[node] += white if mover == 0 else 1.0 - white
            if nodes[node, FIRST] >= 0:
                # The reply is the other player's: its par is White's or its opposite.
                reply_par = -par if mover == 0 else par
                values[node] = 1.0 - _best_reply(nodes, values, scores, node, slope, reply_par)
            mover = 1 - mover
            node = nodes[node, PARENT]
        if ranked_one:
            # Ranking costs as much as many playouts: end the batch so the caller sees the
            # clock before another one starts.
            return done + 1
    return iterations


@njit(cache=True)
def _find(
    nodes: np.ndarray,
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    target: np.ndarray,
    target_hash: int,
) -> int:
    """The node one or two plies below the root (the position the arrays hold, left as they
    are) whose position has the hash `target_hash` and the board `target`, or -1."""
    child = nodes[0, FIRST]
    while child >= 0:
        kernels.make_move(board, mob, amazons, meta, zob, nodes[child, MOVE])
        if meta[kernels.HASH] == target_hash and np.array_equal(board, target):
            kernels.unmake_move(board, mob, amazons, meta, zob, nodes[child, MOVE])
            return int(child)
        reply = nodes[child, FIRST]
        while reply >= 0:
            kernels.make_move(board, mob, amazons, meta, zob, nodes[reply, MOVE])
            found = meta[kernels.HASH] == target_hash and np.array_equal(board, target)
            kernels.unmake_move(board, mob, amazons, meta, zob, nodes[reply, MOVE])
            if found:
                kernels.unmake_move(board, mob, amazons, meta, zob, nodes[child, MOVE])
                return int(reply)
            reply = nodes[reply, NEXT]
        kernels.unmake_move(board, mob, amazons, meta, zob, nodes[child, MOVE])
        child = nodes[child, NEXT]
    return -1


@njit(cache=True)
def _subtree(
    nodes: np.ndarray,
    wins: np.ndarray,
    ranked: np.ndarray,
    scores: np.ndarray,
    top: int,
    new_nodes: np.ndarray,
    new_wins: np.ndarray,
    new_ranked: np.ndarray,
    new_scores: np.ndarray,
    own: np.ndarray,
    depth: np.ndarray,
) -> tuple[int, int]:
    """Copy the subtree under `top` into the new arrays as a tree of its own (breadth first,
    so a node comes after its parent); write each node's ranking score in its parent's list to
    `own` and its depth to `depth`; return (nodes, pool entries) used."""
    old = np.empty(new_nodes.shape[0], dtype=np.int64)
    old[0] = top
    new_nodes[0] = nodes[top]
    new_nodes[0, MOVE] = -1
    new_nodes[0, PARENT] = -1
    new_nodes[0, FIRST] = -1
    new_nodes[0, NEXT] = -1
    new_wins[0] = wins[top]
    depth[0] = 0
    size = 1
    pool = 0
    for i in range(new_nodes.shape[0]):
        if i >= size:
            break
        o = old[i]
        start = nodes[o, LIST]
        if start >= 0:
            length = nodes[o, LENGTH]
            new_ranked[pool : pool + length] = ranked[start : start + length]
            new_scores[pool : pool + length] = scores[start : start + length]
            new_nodes[i, LIST] = pool
            pool += length
        # Children are linked newest first and were tried in the list's order.
        position = nodes[o, TRIED] - 1
        previous = -1
        child = nodes[o, FIRST]
        while child >= 0:
            j = size
            size += 1
            old[j] = child
            new_nodes[j] = nodes[child]
            new_nodes[j, PARENT] = i
            new_nodes[j, FIRST] = -1
            new_nodes[j, NEXT] = -1
            new_wins[j] = wins[child]
            own[j] = scores[start + position]
            depth[j] = depth[i] + 1
            if previous < 0:
                new_nodes[i, FIRST] = j
            else:
                new_nodes[previous, NEXT] = j
            previous = j
            position -= 1
            child = nodes[child, NEXT]
    return size, pool


@njit(cache=True)
def _revalue(
    nodes: np.ndarray,
    values: np.ndarray,
    scores: np.ndarray,
    own: np.ndarray,
    depth: np.ndarray,
    size: int,
    side: int,
    slope: float,
    par: float,
) -> None:
    """Each node's implicit minimax value again, as `iterate` sets it, from White's `par`;
    `side` is the side to move at the root. Children come after their parents."""
    for node in range(size - 1, 0, -1):
        to_move = side if depth[node] % 2 == 0 else 1 - side
        if nodes[node, TOTAL] == 0:
            values[node] = 1.0
        elif nodes[node, FIRST] < 0:
            side_par = par if to_move == 1 else -par
            values[node] = _chance(own[node] - side_par, slope)
        else:
            reply_par = par if to_move == 0 else -par
            values[node] = 1.0 - _best_reply(nodes, values, scores, node, slope, reply_par)


@njit(cache=True)
def _measure(nodes: np.ndarray, top: int) -> tuple[int, int]:
    """The nodes and the ranked-move pool entries of the subtree under `top`."""
    stack = [top]
    size = 0
    pool = 0
    while stack:
        node = stack.pop()
        size += 1
        if nodes[node, LIST] >= 0:
            pool += nodes[node, LENGTH]
        child = nodes[node, FIRST]
        while child >= 0:
            stack.append(child)
            child = nodes[child, NEXT]
    return size, pool


@njit(cache=True)
def _widen_root(
    nodes: np.ndarray,
    ranked: np.ndarray,
    scores: np.ndarray,
    pool: int,
    moves: np.ndarray,
    move_scores: np.ndarray,
    found: int,
) -> int:
    """Give the root, ranked as an inner node, the root's longer list: its tried moves first
    (its children index them), then the best of `found` fully ranked moves not among them, as
    many as make `found` in all. Written at `pool`; return the pool entries used."""
    start = nodes[0, LIST]
    tried = nodes[0, TRIED]
    length = tried
    ranked[pool : pool + tried] = ranked[start : start + tried]
    scores[pool : pool + tried] = scores[start : start + tried]
    for k in range(found):
        if length >= max(found, tried):
            break
        if np.any(ranked[pool : pool + tried] == moves[k]):
            continue
        ranked[pool + length] = moves[k]
        scores[pool + length] = move_scores[k]
        length += 1
    nodes[0, LIST] = pool
    nodes[0, LENGTH] = length
    return int(length)


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


@dataclass(slots=True)
class ValuedTree(Tree):
    """The MCTS tree, with each node's implicit minimax value for the player who moved into it
    (see `iterate`), and the ranked moves of every ranked node: node n's are
    ranked[nodes[n, LIST] : nodes[n, LIST] + nodes[n, LENGTH]], best first, with their scores
    (the evaluation after the move, for the side playing it); `par` is White's par."""

    values: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0, np.float64))
    ranked: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    scores: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0, np.float64))
    par: float = 0.0
    pool: int = 0  # ranked-move pool entries used
    playouts: int = 0  # the last search's, beyond the visits the tree held before it
    root: Position | None = None  # the position searched

    @classmethod
    def empty(cls, capacity: int = 1 << 15) -> ValuedTree:
        plain = Tree.empty(capacity)
        return cls(
            plain.nodes,
            plain.wins,
            values=np.zeros(capacity, np.float64),
            ranked=np.zeros(2 * capacity, np.int64),
            scores=np.zeros(2 * capacity, np.float64),
        )

    def grow(self) -> None:
        Tree.grow(self)
        values = np.zeros(self.nodes.shape[0], np.float64)
        values[: self.size] = self.values[: self.size]
        self.values = values

    def grow_ranked(self) -> None:
        self.ranked = np.concatenate([self.ranked, np.zeros_like(self.ranked)])
        self.scores = np.concatenate([self.scores, np.zeros_like(self.scores)])


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
        mix: float = 0.4,
        root: int = 80,
        komi: float = 1.0,
        playouts: int = 0,
        seed: int = 0,
        exact: int = 12,
        fitted: int = 1,
        reuse: int = 1,
        endgame: Endgame | None = None,
    ) -> None:
        self.spec = (
            f"invader:c={c},cutoff={cutoff},slope={slope},expand={expand},queens={queens},"
            f"keep={keep},widen={widen},mix={mix},root={root},komi={komi},playouts={playouts},"
            f"seed={seed},exact={exact},fitted={fitted},reuse={reuse}"
        )
        if fitted not in (0, 1):
            raise NotationError(f"invader parameter fitted={fitted} is neither 0 nor 1")
        if reuse not in (0, 1):
            raise NotationError(f"invader parameter reuse={reuse} is neither 0 nor 1")
        self.reuse = bool(reuse)
        # The last search's tree, which the next move's search starts from if it holds its
        # position.
        self.tree: ValuedTree | None = None
        self.weights = FITTED if fitted else LIEBERUM
        self.params = np.array(
            [c, cutoff, slope, expand, queens, keep, widen, mix, root, komi], dtype=np.float64
        )
        self.playouts = playouts
        if endgame is None and exact > 0:
            endgame = ExactEndgame.with_default_database(max_empty=exact)
        self.endgame = endgame
        self._rng = np.array([seed_state(seed)], dtype=np.uint64)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        position = amazons_position(state, self.spec)
        previous, self.tree = self.tree, None
        seconds = move_time(budget, position)
        if self.playouts:
            seconds = self.playouts / PLAYOUTS_PER_SECOND
        if self.endgame is not None:
            share = seconds * ENDGAME_SHARE
            if self.playouts:
                move = self.endgame(position, None, int(share * REGION_POSITIONS_PER_SECOND))
            else:
                move = self.endgame(position, share, None)
            if move is not None:
                return Decision(move, seconds=now() - start)
        if _settled(position):
            return self._fill(position, start, seconds)
        deadline = start + seconds
        tree = self.search(position, deadline, previous)
        if self.reuse:
            self.tree = tree
        # The playouts of this move, not those the tree kept from the last one.
        return replace(tree.decision(position, start), nodes=tree.playouts)

    def prepare(self) -> None:
        InvaderBot(playouts=16, exact=0).choose(Position.parse(SETTLED_SAMPLE), Budget(seconds=1.0))
        # One bot for both sides: its later moves start from the kept tree, whose kernels
        # compile then too, rather than in a game's second move.
        warm = InvaderBot(playouts=64, exact=0)
        position = Position.parse(SETUPS["6x6"])
        for _ in range(3):
            position.apply(warm.choose(position, Budget(seconds=1.0)).move)  # type: ignore[arg-type]
        if isinstance(self.endgame, ExactEndgame):
            # A player of its own: the bot's solver keeps what it searches, and a game must not
            # depend on whether the bot was prepared.
            sample = ExactEndgame(max_empty=self.endgame.max_empty, database=self.endgame.database)
            sample(Position.parse(ENDGAME_SAMPLE), None)

    def search(
        self, position: Position, deadline: float, previous: ValuedTree | None = None
    ) -> ValuedTree:
        """Search `position` until `deadline` or for `playouts`, from the node of `previous`
        (an earlier search's tree) that holds the position if there is one."""
        board, mob, amazons, meta, zob = position.clone().arrays()
        scratch = make_scratch(board)
        longest = int(max(self.params[5], self.params[8]))
        # Scores count from a share of the root's value two plies on: a search well ahead or
        # behind still tells a better move from a worse one before the win chance saturates.
        # The root's static evaluation misleads here when a threat is pending: measured from
        # it, every move can look lost and the search cannot tell them apart.
        weights, queens = self.weights, int(self.params[4])
        score = two_ply(board, mob, amazons, meta, zob, scratch, weights, PAR_CANDIDATES, queens)
        if not math.isfinite(score):
            score = weighted_evaluate(board, amazons, meta, scratch, weights)
        par = float(self.params[9] * (score if meta[kernels.SIDE] == 0 else -score))
        tree = None
        if previous is not None:
            tree = self._subtree(previous, position, scratch, par)
        if tree is None:
            tree = ValuedTree.empty()
            tree.size = 1
            _init_node(tree.nodes, 0, -1, -1, kernels.count_moves(board, mob, amazons, meta))
        tree.par = par
        sizes = np.array([tree.size, tree.pool], dtype=np.int64)
        kept = int(tree.nodes[0, VISITS])

        def run(batch: int) -> int:
            ran = int(
                iterate(
                    tree.nodes,
                    tree.wins,
                    tree.values,
                    tree.ranked,
                    tree.scores,
                    sizes,
                    board,
                    mob,
                    amazons,
                    meta,
                    zob,
                    self._rng,
                    scratch,
                    self.weights,
                    batch,
                    self.params,
                    par,
                )
            )
            if ran < batch:
                if sizes[0] + 1 >= tree.nodes.shape[0]:
                    tree.size = int(sizes[0])
                    tree.grow()
                if sizes[1] + longest >= tree.ranked.shape[0]:
                    tree.grow_ranked()
            return ran

        # The first iteration ranks the root, which takes several times longer than ranking
        # any other node: run it apart, so that the driver does not stop early for fear of
        # another such iteration.
        run(1)
        limit = 1 if tree.nodes[0, TOTAL] == 1 else self.playouts
        if limit != 1:
            drive(run, deadline, max(limit - 1, 0), clock=time.thread_time)
        tree.size = int(sizes[0])
        tree.pool = int(sizes[1])
        tree.playouts = int(tree.nodes[0, VISITS]) - kept
        tree.root = position.clone()
        return tree

    def _subtree(
        self, previous: ValuedTree, position: Position, scratch: Any, par: float
    ) -> ValuedTree | None:
        """The subtree of `previous` under the node one or two plies down from its root that
        holds `position`, as a tree of its own with its values from `par`; None when no node
        holds it. Its wins stay as the playouts scored them, from the par of their own search:
        the par moves little from one move to the next."""
        board, mob, amazons, meta, zob = position.clone().arrays()
        root = previous.root
        if root is None or (root.width, root.height) != (position.width, position.height):
            return None
        last = root.clone().arrays()
        top = int(_find(previous.nodes, *last, board, int(meta[kernels.HASH])))
        if top < 0:
            return None
        size, pool = _measure(previous.nodes, top)
        roots = int(self.params[8])
        capacity = max(1 << 15, 1 << size.bit_length())
        room = max(2 * capacity, 2 * (pool + roots))
        plain = Tree.empty(capacity)
        tree = ValuedTree(
            plain.nodes,
            plain.wins,
            size=size,
            values=np.zeros(capacity, np.float64),
            ranked=np.zeros(room, np.int64),
            scores=np.zeros(room, np.float64),
        )
        own = np.zeros(capacity, np.float64)
        depth = np.zeros(capacity, np.int64)
        _subtree(
            previous.nodes,
            previous.wins,
            previous.ranked,
            previous.scores,
            top,
            tree.nodes,
            tree.wins,
            tree.ranked,
            tree.scores,
            own,
            depth,
        )
        slope = float(self.params[2])
        side = int(meta[kernels.SIDE])
        _revalue(tree.nodes, tree.values, tree.scores, own, depth, size, side, slope, par)
        tree.pool = pool
        if tree.nodes[0, LIST] >= 0:
            # Ranked as an inner node: the root ranks every queen step's arrows and keeps more.
            moves = np.empty(roots, dtype=np.int64)
            move_scores = np.empty(roots, dtype=np.float64)
            weights = self.weights
            found = rank_moves(
                board, mob, amazons, meta, zob, scratch, weights, ALL, roots, moves, move_scores
            )
            tree.pool += int(
                _widen_root(tree.nodes, tree.ranked, tree.scores, pool, moves, move_scores, found)
            )
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
