"""The rules of Bao la Kiswahili on an immutable board: which moves are legal and the board
each one leaves, and why a move is not.

The rules themselves (sowing, relays, captures, the nyumba, takasia, never-ending moves) are the
numba kernels of `engine.bao.kernels`; this module turns a `Board` and `BaoRules` into their
arrays and back. A board is a value, so a move's result is computed once, when the legal moves
are generated, and kept.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from engine.bao import kernels
from engine.bao.kernels import FRONT, HOUSE, MAX_MOVES, NO_PIT, STATE_SIZE
from engine.bao.notation import PITS, Move, pit_label
from engine.bao.rules import BaoRules, MtajiHouse, NamuaTakasaStart

__all__ = [
    "FRONT",
    "HOUSE",
    "NO_PIT",
    "Board",
    "Starts",
    "board_array",
    "board_of_array",
    "front_seeds",
    "functional_house",
    "legal_moves",
    "move_starts",
    "perft",
    "rule_array",
    "sowing_steps",
    "start_board",
    "why_illegal",
]


class Board(NamedTuple):
    """Both players' 16 pits (player p's ring at p*16 .. p*16+15), the stores, which houses are
    still owned, the side to move (0 South, 1 North), the pit of the side to move takasia'd
    for this move (NO_PIT for none), the plies played, and the opponent's pit the side to move
    must capture first (NO_PIT for none; only with the A7 option)."""

    pits: tuple[int, ...]
    stores: tuple[int, int]
    owned: tuple[bool, bool]
    mover: int
    blocked: int
    ply: int
    duty: int = NO_PIT

    def in_namua(self, player: int | None = None) -> bool:
        """Whether `player` (the mover by default) is in the namua stage: seeds left in store."""
        return self.stores[self.mover if player is None else player] > 0


def start_board(rules: BaoRules | None = None) -> Board:
    """South to move; each side has 6 in the house, 2 in F6 and F7, and 22 in store (in Bao
    la Kujifunza 2 in every pit, nothing in store and no house)."""
    if rules is not None and rules.kujifunza:
        return Board((2,) * (2 * PITS), (0, 0), (False, False), 0, NO_PIT, 0)
    ring = [0] * PITS
    ring[HOUSE], ring[5], ring[6] = 6, 2, 2
    return Board(tuple(ring + ring), (22, 22), (True, True), 0, NO_PIT, 0)


def front_seeds(board: Board, player: int) -> int:
    base = player * PITS
    return sum(board.pits[base : base + FRONT])


def functional_house(board: Board, player: int, rules: BaoRules) -> bool:
    """Owned and holding at least the functional count (A1), measured now (A2)."""
    return board.owned[player] and board.pits[player * PITS + HOUSE] >= rules.functional_house_seeds


@cache
def rule_array(rules: BaoRules) -> np.ndarray:
    """The rule flags as the kernels read them (`engine.bao.kernels`, R_*)."""
    starts = {
        NamuaTakasaStart.PREFER_TWO: kernels.START_PREFER_TWO,
        NamuaTakasaStart.ANY_WHILE_OWNED: kernels.START_ANY_WHILE_OWNED,
        NamuaTakasaStart.HOUSE_LAST: kernels.START_HOUSE_LAST,
    }
    flags = np.zeros(kernels.RULE_SIZE, dtype=np.int64)
    flags[kernels.R_HOUSE_SEEDS] = rules.functional_house_seeds
    flags[kernels.R_HOUSE_KEPT] = rules.mtaji_house is MtajiHouse.KEPT_UNTIL_FIRST_CAPTURE
    flags[kernels.R_TAKASA_START] = starts[rules.namua_takasa_start]
    flags[kernels.R_TAX_NEEDS_FUNCTIONAL] = rules.tax_needs_functional_house
    flags[kernels.R_EMPTYING_ILLEGAL] = rules.own_front_row_emptying_illegal
    flags[kernels.R_TAKASIA] = rules.takasia
    flags[kernels.R_BINDS_BLOCKER] = rules.takasia_binds_blocker
    flags[kernels.R_TAKASIA_SINGLETONS] = rules.takasia_of_singletons
    flags[kernels.R_TAKASIA_NEEDS_NO_CAPTURE] = rules.takasia_needs_no_capture
    flags[kernels.R_KUJIFUNZA] = rules.kujifunza
    flags[kernels.R_PLY_CAP] = rules.ply_cap
    flags.flags.writeable = False
    return flags


def board_array(board: Board) -> np.ndarray:
    """The board as the kernels hold it (`engine.bao.kernels`, STATE_SIZE int64s)."""
    return np.array(
        (
            *board.pits,
            *board.stores,
            *board.owned,
            board.mover,
            board.blocked,
            board.ply,
            board.duty,
        ),
        dtype=np.int64,
    )


def board_of_array(state: np.ndarray) -> Board:
    """The board a kernel wrote into `state`."""
    return _board_of_row(state.tolist())


def _board_of_row(values: list[int]) -> Board:
    return Board(
        tuple(values[: 2 * PITS]),
        (values[kernels.STORE], values[kernels.STORE + 1]),
        (values[kernels.OWNED] != 0, values[kernels.OWNED + 1] != 0),
        values[kernels.MOVER],
        values[kernels.BLOCKED],
        values[kernels.PLY],
        values[kernels.DUTY],
    )


class Starts(NamedTuple):
    """The (pit, direction) pairs a move may start with, and what kind of move they make."""

    pairs: list[tuple[int, int]]
    capture: bool
    tax: bool


def move_starts(board: Board, rules: BaoRules) -> Starts:
    """Every (pit, direction) the mover may start from, before the sowing is checked."""
    pairs = np.empty((MAX_MOVES, 2), dtype=np.int64)
    count, kind = kernels.move_starts(board_array(board), rule_array(rules), pairs)
    listed = [(int(pit), int(direction)) for pit, direction in pairs[:count].tolist()]
    return Starts(listed, capture=kind == kernels.CAPTURE, tax=kind == kernels.TAX)


# Why a move that starts well is still illegal.
EMPTIES_FRONT_ROW = "it would empty your own front row (a lone kichwa sown toward the back row)"
NEVER_ENDS = "it never ends: the same sowing state comes round again within the move"
NO_END_IN_SIGHT = f"it is still sowing after {kernels.MAX_LAPS:,} laps and counts as never-ending"
_REASONS = {
    kernels.EMPTIES_FRONT_ROW: EMPTIES_FRONT_ROW,
    kernels.NEVER_ENDS: NEVER_ENDS,
    kernels.NO_END_IN_SIGHT: NO_END_IN_SIGHT,
}


# Every move by the kernels' row (pit, direction, safari), made once.
_MOVES: dict[tuple[int, int, int], Move] = {
    (pit, direction, safari): Move(pit, direction, bool(safari))
    for pit in range(PITS)
    for direction in (kernels.CW, kernels.CCW)
    for safari in (0, 1)
}


def legal_moves(board: Board, rules: BaoRules) -> dict[Move, Board]:
    """Every legal move of the side to move and the board it leaves, in a fixed order; empty
    when the game is over (a front row empty, no move, or the ply cap reached)."""
    moves = np.empty((MAX_MOVES, 3), dtype=np.int64)
    boards = np.empty((MAX_MOVES, STATE_SIZE), dtype=np.int64)
    pairs = np.empty((MAX_MOVES, 2), dtype=np.int64)
    saved = np.empty(STATE_SIZE, dtype=np.int64)
    count = kernels.legal_moves(board_array(board), rule_array(rules), moves, boards, pairs, saved)
    return {
        _MOVES[pit, direction, safari]: _board_of_row(after)
        for (pit, direction, safari), after in zip(
            moves[:count].tolist(), boards[:count].tolist(), strict=True
        )
    }


def perft(board: Board, rules: BaoRules, depth: int) -> int:
    """Leaves of the move tree `depth` plies deep; finished games add nothing."""
    return int(kernels.perft(board_array(board), rule_array(rules), depth))


def _sow(
    board: Board, rules: BaoRules, move: Move, kind: Starts, trace: np.ndarray | None = None
) -> tuple[str | None, bool, int, np.ndarray]:
    """Why `move` is illegal once started (None if it is not), whether it stops in the
    functional house on a capture (a stop-or-safari choice), its steps, each written into the
    next row of `trace` (`kernels.sow`), and the board array it leaves."""
    code = kernels.CAPTURE if kind.capture else kernels.TAX if kind.tax else kernels.TAKASA
    steps = np.zeros(1, dtype=np.int64)
    after = np.empty(STATE_SIZE, dtype=np.int64)
    status = kernels.sow(
        board_array(board),
        rule_array(rules),
        move.pit,
        move.direction,
        code,
        move.safari,
        after,
        np.empty(STATE_SIZE, dtype=np.int64),
        np.empty((0, STATE_SIZE), dtype=np.int64) if trace is None else trace,
        steps,
    )
    return _REASONS.get(status), status == kernels.SOWN_TO_HOUSE, int(steps[0]), after


# The steps of a sowing kept for showing it; a longer one is shown as its first ones and its end.
MAX_STEPS = 200


def sowing_steps(board: Board, rules: BaoRules, move: Move) -> list[Board]:
    """The boards a legal `move` passes through as it is sown, step by step: the seeds lifted
    (or the namua seed laid, and what it captured), each lap sown, each capture; the last is the
    end of the sowing, before the turn passes. A move of more than MAX_STEPS steps gives its
    first MAX_STEPS - 1 and its end."""
    trace = np.empty((MAX_STEPS, STATE_SIZE), dtype=np.int64)
    starts = move_starts(board, rules)
    if (move.pit, move.direction) not in starts.pairs:
        raise ValueError(why_illegal(board, rules, move))
    reason, reached_house, steps, array = _sow(board, rules, move, starts, trace)
    if reason is not None or (move.safari and not reached_house):
        raise ValueError(why_illegal(board, rules, move))
    after = board_of_array(array)
    boards = [_board_of_row(row) for row in trace[: min(steps, MAX_STEPS)].tolist()]
    # The end as the move leaves it: past the steps kept, and with a winning capture's seeds,
    # which stay in hand, back in the store.
    boards[-1] = boards[-1]._replace(pits=after.pits, stores=after.stores, owned=after.owned)
    # The steps keep the mover and the ply of the board before the move.
    return [step._replace(mover=board.mover, blocked=NO_PIT, duty=NO_PIT) for step in boards]


def why_illegal(board: Board, rules: BaoRules, move: Move) -> str:
    """Which rule `move` breaks on `board` (it is assumed not to be among the legal moves)."""
    p, pits = board.mover, board.pits
    seeds = pits[p * PITS + move.pit]
    name = pit_label(move.pit)
    held = f"pit {name} holds {seeds} seed{'' if seeds == 1 else 's'}"
    starts = move_starts(board, rules)
    namua = board.in_namua()
    if namua and move.pit >= FRONT:
        return f"pit {name} is in the back row; in namua the seed goes into a front pit"
    if namua and seeds == 0:
        return f"pit {name} is empty; in namua the seed goes into an occupied front pit"
    if not namua and seeds < 2:
        return f"{held}; in mtaji only pits with 2 or more are sown"
    pairs = starts.pairs
    if (move.pit, move.direction) not in pairs:
        if starts.capture:
            if namua and any(pit == move.pit for pit, _ in pairs):
                side, kichwa = ("left", "A1") if move.pit <= 1 else ("right", "A8")
                return (
                    f"a capture at {name} is sown from the {side} kichwa {kichwa}: "
                    f"{Move(move.pit, -move.direction)}"
                )
            if any(pit == move.pit for pit, _ in pairs):
                return (
                    f"a capture is compulsory: {move} captures nothing, "
                    f"{Move(move.pit, -move.direction)} captures"
                )
            captures = ", ".join(sorted({str(Move(pit, d)) for pit, d in pairs}))
            return f"a capture is compulsory: {captures} capture{'s' if len(pairs) == 1 else ''}"
        if move.pit == board.blocked and not namua:
            return f"pit {name} is takasia'd (blocked) for this move"
        if namua and move.pit == HOUSE and functional_house(board, p, rules):
            return (
                f"pit {name} is a functional nyumba; in namua it starts a takasa only as tax, "
                "when it is the only occupied front pit"
            )
        if namua:
            return (
                f"{held}; without a functional nyumba a namua takasa starts from a front pit "
                "holding 2 or more while there is one"
            )
        return (
            f"pit {name} is in the back row; a takasa starts in the front row while a front "
            "pit holds 2 or more"
        )
    reason, reached_house, _, _ = _sow(board, rules, move, starts)
    if reason is not None:
        return f"{move} is not allowed: {reason}"
    if move.safari and not reached_house:
        return f"{move} does not stop in a functional nyumba: there is no safari to choose"
    return f"{move} is not legal here"
