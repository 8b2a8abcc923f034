"""Combinatorial values of Amazons regions and positions (Left = Black, Right = White), found by
exhaustive search. A position is the sum of its regions; a region's options are its moves, each
leading to a position that falls apart into regions again, which is what lets one memo, keyed
by canonical region keys, serve the whole search. The search itself runs in numba
(engine.cgt.amazons_search); this module turns what it finds into canonical forms.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt

from engine.amazons.notation import Move, Side
from engine.amazons.position import Position
from engine.amazons.regions import KEY_BLACK, KEY_EMPTY, KEY_WHITE, Region
from engine.cgt import amazons_search as ks
from engine.cgt import forms
from engine.cgt.form import Form

__all__ = [
    "BudgetExceededError",
    "LocalMove",
    "LocalValues",
    "MoveValue",
    "RegionSolver",
    "SolverStats",
    "best_moves",
    "clear_memo",
    "follower_count",
    "move_values",
    "position_value",
    "region_value",
    "solver",
    "stats",
    "stored_key",
]

Int64Array = npt.NDArray[np.int64]
UInt8Array = npt.NDArray[np.uint8]
Float64Array = npt.NDArray[np.float64]
_Array = TypeVar("_Array", Int64Array, UInt8Array, Float64Array)

# Moves the search plays between looks at the clock and the position budget: fewer under a
# time limit, which they may overshoot by about 50 ms (20,000) or 5 ms (2,000); more without,
# where each look costs (2,000 made B6/W6 15% slower).
_STEPS_PER_CHUNK: Final = 20_000
_STEPS_PER_TIMED_CHUNK: Final = 2_000
# Entries of the search's cache of boards after moves at most (16 MB).
_MOST_CACHED: Final = 1 << 20


class BudgetExceededError(Exception):
    """The search reached its time or position budget before the value was found. What it
    learnt stays in the memo, so a second try with a bigger budget starts further on."""


@dataclass(frozen=True, slots=True)
class SolverStats:
    """What a solver's memo holds."""

    positions: int  # region positions met (stored under their key)
    solved: int  # of which the value is known
    contested: int  # solved positions with amazons of both colours
    settled: int  # solved positions with amazons of one colour (integers)
    moves: int  # moves played by the search


@dataclass(frozen=True, slots=True)
class MoveValue:
    """A move and the value of the whole position after it."""

    move: Move
    value: Form


@dataclass(frozen=True, slots=True)
class LocalMove:
    """A move, the region it is played in (an index into `LocalValues.regions`) and that
    region's value after it."""

    move: Move
    region: int
    after: Form


@dataclass(frozen=True, slots=True)
class LocalValues:
    regions: tuple[Form, ...]  # the value of each region that matters (Left = Black)
    moves: tuple[LocalMove, ...]  # every legal move of the side to move


class RegionSolver:
    """Values of Amazons regions with a memo shared by every call. Each call may take a budget:
    `seconds` of wall-clock time and at most `positions` new region positions; past either it
    raises BudgetExceededError."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every stored region position."""
        self._meta = np.zeros(ks.META_SIZE, dtype=np.int64)
        self._nodes = np.zeros((1 << 12, ks.N_COLUMNS), dtype=np.int64)
        self._arena = np.zeros(1 << 16, dtype=np.uint8)
        self._slots = np.zeros(1 << 13, dtype=np.int64)
        self._options = np.zeros((1 << 14, ks.O_COLUMNS), dtype=np.int64)
        self._parts = np.zeros(1 << 14, dtype=np.int64)
        self._moves = np.zeros(1 << 12, dtype=np.int64)
        self._dedup = np.zeros((2, 1 << 10), dtype=np.int64)
        self._finished = np.zeros(1 << 12, dtype=np.int64)
        self._cache = _empty_cache(1 << 14)
        self._board_size = 0
        self._frames = np.zeros((64, ks.F_COLUMNS), dtype=np.int64)
        self._boards = np.zeros((64, 1), dtype=np.uint8)
        self._set_board_size(16)
        # Canonical form of each contested node once known; settled nodes are read from the
        # node table.
        self._forms = np.zeros(1 << 12, dtype=np.int64)
        self._stops = np.zeros((1 << 12, 2), dtype=np.float64)
        # Scratch for `ks.option_values`.
        self._rows = np.zeros((1 << 8, ks.V_COLUMNS), dtype=np.int64)
        self._pending: list[int] = []
        self._contested = 0
        self._numbers: dict[int, int] = {}

    # -- public ------------------------------------------------------------------------------

    @property
    def stats(self) -> SolverStats:
        settled = int(self._meta[ks.M_SETTLED_DONE])
        return SolverStats(
            positions=int(self._meta[ks.M_NODES]),
            solved=settled + self._contested,
            contested=self._contested,
            settled=settled,
            moves=int(self._meta[ks.M_STEPS]),
        )

    def region_value(
        self, region: Region, *, seconds: float | None = None, positions: int | None = None
    ) -> Form:
        """The value of one region (Left = Black)."""
        board, stride, rows = _region_board(region)
        return self._board_value(board, stride, rows, _Budget(seconds, positions, self))

    def position_value(
        self, position: Position, *, seconds: float | None = None, positions: int | None = None
    ) -> Form:
        """The value of a position: the sum of its regions' values. The side to move does not
        enter it; it decides who wins (engine.cgt.analysis.winner)."""
        board, stride, rows = _position_board(position)
        return self._board_value(board, stride, rows, _Budget(seconds, positions, self))

    def key_value(
        self, key: bytes, *, seconds: float | None = None, positions: int | None = None
    ) -> Form:
        """The value of the region with this canonical key (engine.amazons.regions)."""
        array = np.frombuffer(key, dtype=np.uint8)
        if len(key) < 3 or len(key) != 2 + int(array[0]) * int(array[1]) or max(key[2:]) > 3:
            raise ValueError(
                f"{key!r} is not a region key: width, height, then a code 0-3 for each cell"
            )
        board = np.zeros((array[0] + 2) * (array[1] + 2), dtype=np.uint8)
        stride, rows = ks.load_key(array, 0, board)
        return self._board_value(board, stride, rows, _Budget(seconds, positions, self))

    def local_move_values(
        self, position: Position, *, seconds: float | None = None, positions: int | None = None
    ) -> LocalValues:
        """The values of the position's regions and, for every legal move of the side to
        move, the region it is played in and that region's value after it: the sum of the
        regions it falls into (the other regions keep their values)."""
        budget = _Budget(seconds, positions, self)
        board, stride, rows = _position_board(position)
        regions = self._regions(board, stride, rows, budget)
        # The region each square belongs to, by the regions that matter.
        owner = np.full(board.shape[0], -1, dtype=np.int64)
        for number, (cells, _) in enumerate(regions):
            owner[cells] = number
        piece = KEY_BLACK if position.side_to_move is Side.BLACK else KEY_WHITE
        moves = np.zeros(ks.count_moves(board, stride, rows, piece), dtype=np.int64)
        n = ks.generate_moves(board, stride, rows, piece, moves, 0)
        size = board.shape[0]
        work = np.zeros(size, dtype=np.uint8)
        scratch = np.zeros((6, size + 2), dtype=np.int64)
        keys = np.zeros(size * (size + 2), dtype=np.uint8)
        found = np.zeros((size, 5), dtype=np.int64)
        out_keys = np.zeros(max(1 << 16, keys.shape[0]), dtype=np.uint8)
        out_parts = np.zeros((max(1 << 12, size), 4), dtype=np.int64)
        after = [forms.ZERO] * n
        start = 0
        while start < n:
            start, n_parts = ks.move_followers(
                board, stride, rows, moves, start, work, scratch, keys, found, out_keys, out_parts
            )
            for at, length, swapped, index in out_parts[:n_parts].tolist():
                g = self._key_value(out_keys[at : at + length], budget)
                after[index] = forms.add(after[index], forms.negate(g) if swapped else g)
        return LocalValues(
            tuple(Form(value) for _, value in regions),
            tuple(
                LocalMove(position.decode(move), int(owner[move & 1023]), Form(after[i]))
                for i, move in enumerate(moves[:n].tolist())
            ),
        )

    def move_values(
        self, position: Position, *, seconds: float | None = None, positions: int | None = None
    ) -> list[MoveValue]:
        """Every legal move of the side to move, with the value of the position after it."""
        local = self.local_move_values(position, seconds=seconds, positions=positions)
        total = Form(_sum(g.id for g in local.regions))
        return [MoveValue(m.move, total - local.regions[m.region] + m.after) for m in local.moves]

    def best_moves(
        self, position: Position, *, seconds: float | None = None, positions: int | None = None
    ) -> list[Move]:
        """The moves that keep a win for the side to move, in board order of origin, target and
        arrow; none when every move loses. Black (Left) moving to G' wins when G' >= 0: White
        must then move first in G' and loses. White wins with G' <= 0."""
        black = position.side_to_move is Side.BLACK
        found = []
        for option in self.move_values(position, seconds=seconds, positions=positions):
            g = option.value.id
            if forms.leq(forms.ZERO, g) if black else forms.leq(g, forms.ZERO):
                found.append(option.move)
        return sorted(found, key=_move_order)

    # -- searching ---------------------------------------------------------------------------

    def _board_value(self, board: UInt8Array, stride: int, rows: int, budget: _Budget) -> Form:
        return Form(_sum(value for _, value in self._regions(board, stride, rows, budget)))

    def _regions(
        self, board: UInt8Array, stride: int, rows: int, budget: _Budget
    ) -> list[tuple[Int64Array, int]]:
        """The regions of a board that can matter, as (their cells, value)."""
        size = board.shape[0]
        keys = np.zeros(size * (size + 2), dtype=np.uint8)
        found = np.zeros((size, 5), dtype=np.int64)
        cells = np.zeros(size + 2, dtype=np.int64)
        scratch = np.zeros((6, size + 2), dtype=np.int64)
        count = ks.components(
            board,
            stride,
            rows,
            scratch[0],
            cells,
            scratch[2],
            scratch[3],
            scratch[4],
            keys,
            found,
        )
        regions = []
        for at, length, swapped, first, last in found[:count].tolist():
            g = self._key_value(keys[at : at + length], budget)
            regions.append((cells[first:last].copy(), forms.negate(g) if swapped else g))
        return regions

    def _key_value(self, key: UInt8Array, budget: _Budget) -> int:
        """The canonical form of the region with this stored key."""
        width, height = int(key[0]), int(key[1])
        self._set_board_size((max(width, height) + 2) ** 2)
        self._make_room(1, len(key))
        node = ks.intern(key, self._meta, self._nodes, self._arena, self._slots)
        self._solve(node, budget)
        return self._value(node)

    def _value(self, node: int) -> int:
        row = self._nodes[node]
        if row[ks.N_KIND] != ks.CONTESTED:
            return forms.number((int(row[ks.N_INT]), 0))
        return int(self._forms[node])

    def _solve(self, node: int, budget: _Budget) -> None:
        if self._nodes[node, ks.N_STATE] == ks.DONE:
            return
        self._make_room_for_frames(int(self._nodes[node, ks.N_EMPTY]) + 2)
        ks.push(node, self._meta, self._nodes, self._arena, self._frames, self._boards)
        # The canonical forms of the positions one chunk of search finished are made on a
        # thread of their own while the search, which lets go of the GIL, runs the next chunk:
        # on two cores the two halves of the work, about equal, run at once. Forms are still
        # made one at a time in the order the positions finished, so the ids are the same.
        evaluating: Future[None] | None = None
        try:
            while True:
                status = ks.search(
                    self._meta,
                    self._nodes,
                    self._arena,
                    self._slots,
                    self._options,
                    self._parts,
                    self._frames,
                    self._boards,
                    self._moves,
                    self._dedup,
                    self._finished,
                    self._work,
                    self._scratch,
                    self._keys,
                    self._found,
                    self._cache,
                    budget.steps,
                )
                if evaluating is not None:
                    evaluating.result()
                    evaluating = None
                finished = int(self._meta[ks.M_FINISHED])
                if finished:
                    self._pending.extend(self._finished[:finished].tolist())
                    self._meta[ks.M_FINISHED] = 0
                if status == ks.NEED_ROOM:
                    self._grow()
                elif status == ks.STEP_LIMIT:
                    budget.check()
                if status == ks.STACK_EMPTY:
                    self._evaluate(budget)
                    return
                evaluating = _evaluator().submit(self._evaluate, budget)
        except BaseException:
            if evaluating is not None:
                wait([evaluating])
            self._abandon()
            raise

    def _abandon(self) -> None:
        """Empty the search stack, and forget the positions finished but not yet turned into
        canonical forms (no position with a known value depends on them), so that the next
        call starts clean: all of these are searched afresh when met again."""
        depth = int(self._meta[ks.M_DEPTH])
        for node in self._frames[:depth, ks.F_NODE].tolist() + self._pending:
            self._nodes[node, ks.N_STATE] = ks.NEW
        self._pending.clear()
        self._meta[ks.M_DEPTH] = 0
        self._meta[ks.M_MOVES] = 0
        self._meta[ks.M_FINISHED] = 0

    def _evaluate(self, budget: _Budget) -> None:
        """Canonical forms of the finished contested positions, children first."""
        pending = self._pending
        if not pending:
            return
        self._forms = forms_of_nodes = _grown(self._forms, self._nodes.shape[0])
        self._stops = stops = _grown(self._stops, self._nodes.shape[0])
        nodes, options, parts = self._nodes, self._options, self._parts
        float_stops = forms.float_stops
        add, negate, construct = forms.add, forms.negate, forms.construct
        done = 0
        try:
            for node in pending:
                if done & 511 == 511:
                    budget.check()
                n_left, n_right = ks.option_values(
                    node, nodes, options, parts, forms_of_nodes, stops, self._rows
                )
                if n_left < 0:
                    self._rows = _grown(self._rows, n_right)
                    n_left, n_right = ks.option_values(
                        node, nodes, options, parts, forms_of_nodes, stops, self._rows
                    )
                found = []
                for integer, ref, option in self._rows[: n_left + n_right].tolist():
                    if ref >= 0:
                        g = negate(ref >> 1) if ref & 1 else ref >> 1
                        if integer:
                            g = add(self._integer(integer), g)
                    else:
                        g = self._integer(integer)
                        if ref == ks.SEVERAL_PARTS:
                            at, count = options[option, ks.O_PARTS : ks.O_COUNT + 1].tolist()
                            for part in parts[at : at + count].tolist():
                                h = int(forms_of_nodes[part >> 1])
                                g = add(g, negate(h) if part & 1 else h)
                    found.append(g)
                g = construct(found[:n_left], found[n_left:])
                forms_of_nodes[node] = g
                stops[node] = float_stops(g)
                done += 1
        finally:
            self._contested += done
            del pending[:done]

    def _integer(self, n: int) -> int:
        g = self._numbers.get(n)
        if g is None:
            g = self._numbers[n] = forms.number((n, 0))
        return g

    # -- room ----------------------------------------------------------------------------------

    def _set_board_size(self, size: int) -> None:
        """Scratch for boards of up to `size` padded squares."""
        if size <= self._board_size:
            return
        self._board_size = size
        boards = np.zeros((self._frames.shape[0], size), dtype=np.uint8)
        boards[:, : self._boards.shape[1]] = self._boards
        self._boards = boards
        self._work = np.zeros(size, dtype=np.uint8)
        self._scratch = np.zeros((6, size + 2), dtype=np.int64)
        self._keys = np.zeros(size * (size + 2), dtype=np.uint8)
        self._found = np.zeros((size, 5), dtype=np.int64)

    def _make_room_for_frames(self, depth: int) -> None:
        meta = self._meta
        meta[ks.M_NEED_FRAMES] = int(meta[ks.M_DEPTH]) + depth
        self._grow()

    def _make_room(self, nodes: int, arena: int) -> None:
        meta = self._meta
        meta[ks.M_NEED_NODES] = meta[ks.M_NODES] + nodes
        meta[ks.M_NEED_SLOTS] = 2 * (meta[ks.M_NODES] + nodes)
        meta[ks.M_NEED_ARENA] = meta[ks.M_ARENA] + arena
        self._grow()

    def _grow(self) -> None:
        """Make every array at least as big as the search asked for."""
        meta = self._meta
        self._nodes = _grown(self._nodes, int(meta[ks.M_NEED_NODES]))
        # The boards after moves grow with the positions (four to six of them a position);
        # past a million entries the cache forgets instead.
        entries = min(_power_of_two(4 * self._nodes.shape[0]), _MOST_CACHED)
        if entries > self._cache.shape[0]:
            self._cache = _empty_cache(entries)
        self._arena = _grown(self._arena, int(meta[ks.M_NEED_ARENA]))
        self._options = _grown(self._options, int(meta[ks.M_NEED_OPTIONS]))
        self._parts = _grown(self._parts, int(meta[ks.M_NEED_PARTS]))
        self._moves = _grown(self._moves, int(meta[ks.M_NEED_MOVES]))
        if int(meta[ks.M_NEED_FRAMES]) > self._frames.shape[0]:
            self._frames = _grown(self._frames, int(meta[ks.M_NEED_FRAMES]))
            boards = np.zeros((self._frames.shape[0], self._board_size), dtype=np.uint8)
            boards[: self._boards.shape[0]] = self._boards
            self._boards = boards
        if int(meta[ks.M_NEED_DEDUP]) > self._dedup.shape[1]:
            size = _power_of_two(int(meta[ks.M_NEED_DEDUP]))
            self._dedup = np.zeros((2, size), dtype=np.int64)
            # Generations start afresh with the table.
            meta[ks.M_GENERATION] = 1
        if int(meta[ks.M_NEED_SLOTS]) > self._slots.shape[0]:
            self._slots = np.zeros(_power_of_two(2 * int(meta[ks.M_NEED_SLOTS])), np.int64)
            ks.rehash(self._nodes, int(meta[ks.M_NODES]), self._arena, self._slots)
        for field in range(ks.M_NEED_NODES, ks.M_NEED_SLOTS + 1):
            meta[field] = 0


class _Budget:
    """A call's limits: wall-clock seconds and new region positions."""

    def __init__(self, seconds: float | None, positions: int | None, solver: RegionSolver) -> None:
        self.seconds = seconds
        self.positions = positions
        self.solver = solver
        self.start = time.perf_counter()
        self.first = solver.stats.positions
        self.steps = _STEPS_PER_CHUNK if seconds is None else _STEPS_PER_TIMED_CHUNK

    def check(self) -> None:
        elapsed = time.perf_counter() - self.start
        searched = self.solver.stats.positions - self.first
        if self.seconds is not None and elapsed > self.seconds:
            raise BudgetExceededError(
                f"not solved within {self.seconds:g} s ({searched:,} region positions searched)"
            )
        if self.positions is not None and searched > self.positions:
            raise BudgetExceededError(
                f"not solved within {self.positions:,} new region positions ({elapsed:.1f} s)"
            )


_evaluator_thread: ThreadPoolExecutor | None = None


def _evaluator() -> ThreadPoolExecutor:
    """The thread on which solvers make canonical forms beside their search, one for all:
    engine.cgt.forms is for one thread at a time."""
    global _evaluator_thread
    if _evaluator_thread is None:
        _evaluator_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cgt-forms")
    return _evaluator_thread


def _forget_evaluator() -> None:
    # A forked child (match workers, endgame builders) has none of its parent's threads: it
    # starts its own rather than hand work to one that is not there and wait for ever.
    global _evaluator_thread
    _evaluator_thread = None


os.register_at_fork(after_in_child=_forget_evaluator)


def _grown(array: _Array, need: int) -> _Array:
    if need <= array.shape[0]:
        return array
    size = max(need, 2 * array.shape[0])
    grown: _Array = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown


def _empty_cache(entries: int) -> Int64Array:
    return np.full((entries, ks.C_COLUMNS), -1, dtype=np.int64)


def _power_of_two(n: int) -> int:
    return 1 << max(1, (n - 1).bit_length())


def _sum(values: Iterable[int]) -> int:
    total = forms.ZERO
    for g in values:
        total = forms.add(total, g)
    return total


def _position_board(position: Position) -> tuple[UInt8Array, int, int]:
    """The position's padded board in key codes (same indices as the position's own board)."""
    board, _, _, meta, _ = position.arrays()
    # Kernel codes EMPTY 0, WHITE 1, BLACK 2, ARROW 3 become key codes 1, 2, 3, 0.
    coded = ((board.astype(np.uint8) + 1) & 3).astype(np.uint8)
    stride = int(meta[3])
    return coded, stride, coded.shape[0] // stride


def _region_board(region: Region) -> tuple[UInt8Array, int, int]:
    """One region alone on a padded board of its bounding box."""
    x0 = min(s.file for s in region.squares)
    y0 = min(s.rank for s in region.squares)
    stride = 3 + max(s.file for s in region.squares) - x0
    rows = 3 + max(s.rank for s in region.squares) - y0
    board = np.zeros(stride * rows, dtype=np.uint8)
    for squares, code in (
        (region.squares, KEY_EMPTY),
        (region.white, KEY_WHITE),
        (region.black, KEY_BLACK),
    ):
        for s in squares:
            board[(s.rank - y0 + 1) * stride + s.file - x0 + 1] = code
    return board, stride, rows


def _move_order(move: Move) -> tuple[int, ...]:
    return tuple(c for s in (move.origin, move.target, move.arrow) for c in (s.file, s.rank))


def stored_key(region: Region) -> tuple[bytes, bool] | None:
    """The key a region is stored under, the lesser of `region.key()` and
    `region.swapped_key()`, and whether it is the swapped one (the region is then worth minus
    the stored value); None for a region without an amazon or without an empty square, which
    is worth 0 and never stored."""
    board, stride, rows = _region_board(region)
    size = board.shape[0]
    keys = np.zeros(size * (size + 2), dtype=np.uint8)
    found = np.zeros((size, 5), dtype=np.int64)
    scratch = np.zeros((6, size + 2), dtype=np.int64)
    count = ks.components(
        board, stride, rows, scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], keys, found
    )
    if count == 0:
        return None
    at, length, swapped = found[0, :3].tolist()
    return keys[at : at + length].tobytes(), bool(swapped)


def follower_count(position: Position) -> int:
    """How many distinct boards can be reached from this one by moves of either player in any
    order, this one included (CGSuite's `Followers.Size`)."""
    board, stride, rows = _position_board(position)
    size = board.shape[0]
    seen = {board.tobytes()}
    frontier = [board]
    while frontier:
        grown = []
        for b in frontier:
            count = ks.count_moves(b, stride, rows, KEY_BLACK) + ks.count_moves(
                b, stride, rows, KEY_WHITE
            )
            out = np.zeros((count, size), dtype=np.uint8)
            ks.successors(b, stride, rows, np.zeros(count, dtype=np.int64), out)
            for row in out:
                key = row.tobytes()
                if key not in seen:
                    seen.add(key)
                    grown.append(row)
        frontier = grown
    return len(seen)


solver: Final = RegionSolver()
"""The shared solver behind the module-level functions."""


def region_value(
    region: Region, *, seconds: float | None = None, positions: int | None = None
) -> Form:
    """The value of a region (Left = Black), with the shared memo."""
    return solver.region_value(region, seconds=seconds, positions=positions)


def position_value(
    position: Position, *, seconds: float | None = None, positions: int | None = None
) -> Form:
    """The value of a position, the sum of its regions' values, with the shared memo."""
    return solver.position_value(position, seconds=seconds, positions=positions)


def move_values(
    position: Position, *, seconds: float | None = None, positions: int | None = None
) -> list[MoveValue]:
    return solver.move_values(position, seconds=seconds, positions=positions)


def best_moves(
    position: Position, *, seconds: float | None = None, positions: int | None = None
) -> list[Move]:
    return solver.best_moves(position, seconds=seconds, positions=positions)


def clear_memo() -> None:
    solver.clear()


def stats() -> SolverStats:
    return solver.stats
