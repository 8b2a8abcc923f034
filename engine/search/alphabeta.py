"""Alpha-beta search for Amazons over the Lieberum-style evaluation: `greedy` (the best move by
one-ply evaluation) and `alphabeta` (iterative-deepening negamax with a transposition table).
The search runs in numba over an explicit stack, so Python can pause it every few milliseconds
to watch the deadline and resume it exactly where it stopped.
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from engine.amazons import Position, kernels
from engine.game import GameState
from engine.jit import njit
from engine.search.basic import amazons_position, best_scored
from engine.search.bot import Budget, Decision, now
from engine.search.evaluation import evaluate, make_scratch
from engine.search.timing import move_time

__all__ = ["MAX_DEPTH", "PROVEN", "TIE", "WIN", "AlphaBetaBot", "GreedyBot", "Table", "one_ply"]

# A side to move with no legal move has lost: it scores -(WIN - ply), so that a win sooner
# (at a smaller ply) is worth more. Evaluations stay far below PROVEN.
WIN: Final = 1.0e6
PROVEN: Final = WIN - 1000.0
TIE: Final = 1e-9  # root scores closer than this are ties, broken by the seed
MAX_DEPTH: Final = 64
# Nodes with fewer plies to go order their moves without evaluating them (see `_enter`). At
# depth 3 from 21 positions (6x6 to 10x10, up to 30 random moves in), also ordering two-ply
# nodes by evaluation searched 25% more nodes and took 13% longer; only the 6x6 start gained.
ORDER_DEPTH: Final = 3
SLICE_SECONDS: Final = 0.005  # how long one numba run may go before the deadline is checked
UNLIMITED: Final = 1 << 62  # a node limit no search reaches

# Transposition table columns (int64), next to a float64 value per slot.
KEY, MOVE, DEPTH, BOUND, AGE = range(5)
EXACT, LOWER, UPPER = range(3)
# Search frame columns by ply (int64): the node's move list is moves[FIRST : FIRST + COUNT],
# NEXT is the next one to search, CURRENT the one being searched below.
FIRST, COUNT, NEXT, REMAINING, CURRENT, BEST_MOVE = range(6)
# Window columns by ply (float64); ALPHA0 is alpha on entry, to tell the bound type at the end.
ALPHA, BETA, ALPHA0, BEST = range(4)
# Control cells (int64).
PLY, TOP, NODES, SEARCH_AGE, ROOT_DONE = range(5)
# What `run` and `_enter` report.
DONE, PAUSED, GROW, RESOLVED, EXPANDED = range(5)

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@njit(cache=True, inline="always")
def _leaf(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray, ply: int
) -> float:
    """The static score of the side to move at `ply` plies from the root."""
    if not kernels.has_moves(board, amazons, meta):
        return -(WIN - ply)
    return evaluate(board, amazons, meta, scratch)


@njit(cache=True)
def one_ply(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    moves: np.ndarray,
) -> np.ndarray:
    """The score of each of `moves` for the side playing it, by the evaluation after it."""
    out = np.empty(moves.shape[0], dtype=np.float64)
    _score_moves(board, mob, amazons, meta, zob, scratch, moves, out, 0, moves.shape[0], 1, -1)
    return out


@njit(cache=True, inline="always")
def _score_moves(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    moves: np.ndarray,
    scores: np.ndarray,
    first: int,
    end: int,
    ply: int,
    skip: int,
) -> None:
    """scores[i] for moves[i], first <= i < end: the static score after the move, at `ply`,
    for the side playing it; the move `skip` (or none, as -1) scores +inf unevaluated."""
    for i in range(first, end):
        m = int(moves[i])
        if m == skip:
            scores[i] = np.inf
            continue
        kernels.make_move(board, mob, amazons, meta, zob, m)
        scores[i] = -_leaf(board, amazons, meta, scratch, ply)
        kernels.unmake_move(board, mob, amazons, meta, zob, m)


@njit(cache=True, inline="always")
def _to_table(value: float, ply: int) -> float:
    # Wins and losses are stored as distances from the node, not from the root, so that an
    # entry holds wherever its position recurs in the tree.
    if value > PROVEN:
        return value + ply
    if value < -PROVEN:
        return value - ply
    return value


@njit(cache=True, inline="always")
def _from_table(value: float, ply: int) -> float:
    if value > PROVEN:
        return value - ply
    if value < -PROVEN:
        return value + ply
    return value


@njit(cache=True, inline="always")
def _store(
    tt: np.ndarray,
    tt_values: np.ndarray,
    key: int,
    move: int,
    depth: int,
    bound: int,
    value: float,
    age: int,
) -> None:
    slot = key & (tt.shape[0] - 1)
    # Replace by depth within one search; entries left by earlier searches always give way.
    if tt[slot, AGE] == age and tt[slot, DEPTH] > depth:
        return
    tt[slot, KEY] = key
    tt[slot, MOVE] = move
    tt[slot, DEPTH] = depth
    tt[slot, BOUND] = bound
    tt[slot, AGE] = age
    tt_values[slot] = value


@njit(cache=True, inline="always")
def _promote(moves: np.ndarray, start: int, end: int, move: int) -> int:
    """Swap `move` to moves[start] if it is among moves[start:end]; return the next free slot."""
    if move < 0:
        return start
    for i in range(start, end):
        if moves[i] == move:
            moves[i] = moves[start]
            moves[start] = move
            return start + 1
    return start


@njit(cache=True)
def _enter(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    tt: np.ndarray,
    tt_values: np.ndarray,
    frames: np.ndarray,
    windows: np.ndarray,
    moves: np.ndarray,
    keys: np.ndarray,
    killers: np.ndarray,
    ctl: np.ndarray,
    ply: int,
    depth: int,
    alpha: float,
    beta: float,
) -> int:
    """Start the node at `ply` (ply >= 1) with `depth` plies to go. RESOLVED: its value is in
    windows[ply, BEST] (game over, horizon or a table hit); EXPANDED: its frame is ready;
    GROW: its moves do not fit on the move stack."""
    ctl[NODES] += 1
    if depth == 0 or not kernels.has_moves(board, amazons, meta):
        windows[ply, BEST] = _leaf(board, amazons, meta, scratch, ply)
        return RESOLVED
    key = meta[kernels.HASH]
    slot = key & (tt.shape[0] - 1)
    table_move = -1
    if tt[slot, KEY] == key:
        table_move = tt[slot, MOVE]
        if tt[slot, DEPTH] >= depth:
            value = _from_table(tt_values[slot], ply)
            bound = tt[slot, BOUND]
            if (
                bound == EXACT
                or (bound == LOWER and value >= beta)
                or (bound == UPPER and value <= alpha)
            ):
                windows[ply, BEST] = value
                return RESOLVED
    n = kernels.count_moves(board, mob, amazons, meta)
    first = ctl[TOP]
    end = first + n
    if end > moves.shape[0]:
        ctl[NODES] -= 1
        return GROW
    kernels.generate_moves(board, amazons, meta, moves[first:end])
    if depth >= ORDER_DEPTH:
        # The table move first, then the rest by their one-ply evaluation: n evaluations are
        # cheap next to the subtrees below, and the best-looking move is usually the one that
        # cuts off or sets the window.
        _score_moves(
            board, mob, amazons, meta, zob, scratch, moves, keys, first, end, ply + 1, table_move
        )
        ctl[NODES] += n
        order = np.argsort(-keys[first:end], kind="mergesort")
        moves[first:end] = moves[first:end][order]
    else:
        # Near the leaves a cut node needs a single refutation, costing about as much as the n
        # evaluations that ordering would spend first; the table move and the killers (replies
        # that refuted a sibling) come first and the rest stay in generation order.
        slot_next = _promote(moves, first, end, table_move)
        slot_next = _promote(moves, slot_next, end, killers[ply, 0])
        _promote(moves, slot_next, end, killers[ply, 1])
    frames[ply, FIRST] = first
    frames[ply, COUNT] = n
    frames[ply, NEXT] = 0
    frames[ply, REMAINING] = depth
    frames[ply, CURRENT] = -1
    frames[ply, BEST_MOVE] = -1
    windows[ply, ALPHA] = alpha
    windows[ply, BETA] = beta
    windows[ply, ALPHA0] = alpha
    windows[ply, BEST] = -np.inf
    ctl[TOP] = end
    return EXPANDED


@njit(cache=True, inline="always")
def _absorb(
    frames: np.ndarray,
    windows: np.ndarray,
    keys: np.ndarray,
    killers: np.ndarray,
    ctl: np.ndarray,
    ply: int,
    score: float,
) -> None:
    """Take the score of the move just searched at `ply` (from the mover's view)."""
    move = frames[ply, CURRENT]
    if ply == 0:
        # Root moves are ordered by these scores in the next iteration.
        keys[frames[0, FIRST] + frames[0, NEXT] - 1] = score
        ctl[ROOT_DONE] += 1
    # At the root, scores within TIE are equal (mirror-image moves differ by rounding), so
    # that the seeded shuffle of the root moves decides between them.
    if score > windows[ply, BEST] + (TIE if ply == 0 else 0.0):
        windows[ply, BEST] = score
        frames[ply, BEST_MOVE] = move
        if score > windows[ply, ALPHA]:
            windows[ply, ALPHA] = score
            if score >= windows[ply, BETA]:
                frames[ply, NEXT] = frames[ply, COUNT]
                if killers[ply, 0] != move:
                    killers[ply, 1] = killers[ply, 0]
                    killers[ply, 0] = move


@njit(cache=True)
def run(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    scratch: np.ndarray,
    tt: np.ndarray,
    tt_values: np.ndarray,
    frames: np.ndarray,
    windows: np.ndarray,
    moves: np.ndarray,
    keys: np.ndarray,
    killers: np.ndarray,
    ctl: np.ndarray,
    limit: int,
) -> int:
    """Go on with fail-soft negamax alpha-beta from the state in the arrays until the root is
    done (DONE), ctl[NODES] reaches `limit` (PAUSED) or the move stack is full (GROW); the
    board arrays are left at the node the search stopped in."""
    while ctl[NODES] < limit:
        ply = ctl[PLY]
        if frames[ply, NEXT] < frames[ply, COUNT]:
            move = int(moves[frames[ply, FIRST] + frames[ply, NEXT]])
            frames[ply, NEXT] += 1
            frames[ply, CURRENT] = move
            kernels.make_move(board, mob, amazons, meta, zob, move)
            status = _enter(
                board,
                mob,
                amazons,
                meta,
                zob,
                scratch,
                tt,
                tt_values,
                frames,
                windows,
                moves,
                keys,
                killers,
                ctl,
                ply + 1,
                frames[ply, REMAINING] - 1,
                -windows[ply, BETA],
                -windows[ply, ALPHA],
            )
            if status == EXPANDED:
                ctl[PLY] = ply + 1
                continue
            kernels.unmake_move(board, mob, amazons, meta, zob, move)
            if status == GROW:
                frames[ply, NEXT] -= 1
                return GROW
            _absorb(frames, windows, keys, killers, ctl, ply, -windows[ply + 1, BEST])
            continue
        value = windows[ply, BEST]
        bound = EXACT
        if value <= windows[ply, ALPHA0]:
            bound = UPPER
        elif value >= windows[ply, BETA]:
            bound = LOWER
        _store(
            tt,
            tt_values,
            meta[kernels.HASH],
            frames[ply, BEST_MOVE],
            frames[ply, REMAINING],
            bound,
            _to_table(value, ply),
            ctl[SEARCH_AGE],
        )
        if ply == 0:
            return DONE
        ctl[TOP] = frames[ply, FIRST]
        ctl[PLY] = ply - 1
        kernels.unmake_move(board, mob, amazons, meta, zob, frames[ply - 1, CURRENT])
        _absorb(frames, windows, keys, killers, ctl, ply - 1, -value)
    return PAUSED


class Table:
    """The transposition table: fixed-size arrays indexed by the low bits of the Zobrist hash,
    holding the full key, best move, depth, bound type and search age, and the value."""

    def __init__(self, bits: int = 18) -> None:
        self.entries: Int64Array = np.full((1 << bits, 5), -1, dtype=np.int64)
        self.values: FloatArray = np.zeros(1 << bits, dtype=np.float64)
        self.age = 0

    def best_move(self, key: int) -> int:
        """The stored best move of the position with hash `key`, or -1."""
        slot = key & (self.entries.shape[0] - 1)
        return int(self.entries[slot, MOVE]) if int(self.entries[slot, KEY]) == key else -1


class _Search:
    """One decision's search: a working copy of the position and the explicit stack that
    `run` walks, shared with the bot's table."""

    def __init__(self, position: Position, table: Table, root_moves: Int64Array) -> None:
        board, mob, amazons, meta, zob = position.clone().arrays()
        self.arrays = (board, mob, amazons, meta, zob, make_scratch(board))
        self.table = table
        self.count = len(root_moves)
        # Room for the root and one more ply; deeper searches grow it (see `run`).
        capacity = 2 * self.count
        self.moves = np.zeros(capacity, dtype=np.int64)
        self.keys = np.zeros(capacity, dtype=np.float64)
        self.moves[: self.count] = root_moves
        self.frames = np.zeros((MAX_DEPTH + 1, 6), dtype=np.int64)
        self.frames[0, BEST_MOVE] = -1
        self.windows = np.zeros((MAX_DEPTH + 1, 4), dtype=np.float64)
        self.killers = np.full((MAX_DEPTH + 1, 2), -1, dtype=np.int64)
        self.ctl = np.zeros(5, dtype=np.int64)
        self.ctl[SEARCH_AGE] = table.age

    @property
    def nodes(self) -> int:
        return int(self.ctl[NODES])

    @property
    def root_done(self) -> int:
        return int(self.ctl[ROOT_DONE])

    def best(self) -> tuple[int, float]:
        """The best root move of the iteration so far and its score."""
        return int(self.frames[0, BEST_MOVE]), float(self.windows[0, BEST])

    def begin(self, depth: int) -> None:
        """Set up the root for an iteration to `depth`: the last best move first, then the
        others by their last scores (stable, so equal scores keep the seeded shuffle)."""
        n = self.count
        best = int(self.frames[0, BEST_MOVE])
        if best >= 0:
            self.keys[:n][self.moves[:n] == best] = np.inf
        order = np.argsort(-self.keys[:n], kind="stable")
        self.moves[:n] = self.moves[:n][order]
        self.keys[:n] = self.keys[:n][order]
        self.frames[0] = (0, n, 0, depth, -1, -1)
        self.windows[0] = (-np.inf, np.inf, -np.inf, -np.inf)
        self.ctl[PLY] = 0
        self.ctl[TOP] = n
        self.ctl[ROOT_DONE] = 0

    def run(self, limit: int) -> int:
        board, mob, amazons, meta, zob, scratch = self.arrays
        table = self.table
        return int(
            run(
                board,
                mob,
                amazons,
                meta,
                zob,
                scratch,
                table.entries,
                table.values,
                self.frames,
                self.windows,
                self.moves,
                self.keys,
                self.killers,
                self.ctl,
                limit,
            )
        )

    def grow(self) -> None:
        self.moves = np.concatenate([self.moves, np.zeros_like(self.moves)])
        self.keys = np.concatenate([self.keys, np.zeros_like(self.keys)])


class GreedyBot:
    """The move with the best evaluation one ply deep (ties broken at random)."""

    def __init__(self, seed: int = 0) -> None:
        self.spec = f"greedy:seed={seed}"
        self._rng = np.random.default_rng(seed)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        position = amazons_position(state, self.spec)
        board, mob, amazons, meta, zob = position.clone().arrays()
        moves = position.move_indices()
        scores = one_ply(board, mob, amazons, meta, zob, make_scratch(board), moves)
        return best_scored(position, moves, scores, self._rng, start, TIE)

    def prepare(self) -> None:
        GreedyBot().choose(Position.setup("6x6"), Budget(seconds=1.0))


class AlphaBetaBot:
    """Iterative-deepening negamax alpha-beta with a transposition table, to `depth` plies or,
    when `depth` is 0, as deep as the deadline allows."""

    def __init__(self, depth: int = 0, seed: int = 0) -> None:
        if not 0 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must run from 0 (no limit) to {MAX_DEPTH}, not {depth}")
        self.spec = f"alphabeta:depth={depth},seed={seed}"
        self.depth = depth
        self._rng = np.random.default_rng(seed)
        self._table = Table()
        # Nodes per second, measured on every run; start low so that the first run is short.
        self._rate = 20_000.0

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        position = amazons_position(state, self.spec)
        deadline = math.inf
        if not self.depth:
            deadline = start + move_time(budget, position)
        board = position.arrays()[0]
        root_moves = position.move_indices()
        # The seeded shuffle breaks ties between equal scores: the first one found stays best.
        root_moves = self._rng.permutation(root_moves)
        self._table.age += 1
        search = _Search(position, self._table, root_moves)
        # Every move burns a square, so no line is longer than the empty squares.
        horizon = min(self.depth or MAX_DEPTH, int(np.count_nonzero(board == kernels.EMPTY)))
        move, completed = int(root_moves[0]), 0
        score: float | None = None
        for depth in range(1, horizon + 1):
            search.begin(depth)
            finished = self._run(search, deadline)
            # An unfinished iteration searched the last best move first, so its best so far is
            # at least as well founded as the last iteration's.
            if not (finished or search.root_done):
                break
            move, score = search.best()
            if not finished:
                break
            completed = depth
            if abs(score) > PROVEN:
                break
        return Decision(
            position.decode(move),
            seconds=now() - start,
            nodes=search.nodes,
            depth=completed,
            score=score,
            pv=self._principal_variation(position, move, max(completed, 1)),
        )

    def prepare(self) -> None:
        AlphaBetaBot(depth=2).choose(Position.setup("6x6"), Budget(seconds=1.0))

    def _run(self, search: _Search, deadline: float) -> bool:
        """Run the current iteration until it ends (True) or the deadline comes (False), in
        runs short enough that a wrong node rate can only overrun by a slice. With no deadline
        (a fixed depth) the clock is not read: the iteration runs in one piece."""
        while True:
            if deadline == math.inf:
                status = search.run(UNLIMITED)
            else:
                left = deadline - now()
                if left <= 0:
                    return False
                before = search.nodes
                started = now()
                status = search.run(before + max(1, int(self._rate * min(SLICE_SECONDS, left))))
                elapsed = now() - started
                if search.nodes > before and elapsed > 0:
                    self._rate = (search.nodes - before) / elapsed
            if status == DONE:
                return True
            if status == GROW:
                search.grow()

    def _principal_variation(self, position: Position, move: int, limit: int) -> list[str]:
        """The chosen move, then the table's best moves as far as they stay legal."""
        line = position.clone()
        pv: list[str] = []
        while move >= 0 and len(pv) < limit:
            decoded = line.decode(move)
            if not line.is_legal(decoded):
                break
            pv.append(str(decoded))
            line.apply_index(move)
            move = self._table.best_move(int(line.arrays()[3][kernels.HASH]))
        return pv
