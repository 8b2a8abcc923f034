"""Static evaluation after Lieberum's Amazong (TCS 349(2), 2005): queen and king distance maps,
the territory, position and mobility terms built on them, and the game-phase weighting that
mixes them (Lieberum's weights, or others: `weighted_evaluate`). Numba kernels; `Evaluation`
explains a score term by term.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.amazons.kernels import COUNT, EMPTY, SIDE, STRIDE, directions
from engine.amazons.position import Position
from engine.jit import njit

__all__ = [
    "KAPPA",
    "LIEBERUM",
    "UNREACHABLE",
    "Evaluation",
    "evaluate",
    "evaluate_position",
    "evaluation_terms",
    "king_distance",
    "late_share",
    "make_scratch",
    "queen_distance",
    "score_terms",
    "weighted_evaluate",
]

# Larger than any real distance: a 26x26 board has 784 squares with its border.
UNREACHABLE: Final = 1000
# Lieberum's tempo bonus: the side to move gets there first when both need equally many moves.
KAPPA: Final = 0.2
# How the terms make a score: the weights of t1, t2, c1, c2 and mobility late in the game (each
# times f1, see `Evaluation`) and then early in it (times 1 - f1). These are Lieberum's:
# f1 t1 + (1 - f1)/3 (c1 + c2 + t2) + mobility.
LIEBERUM: Final = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1 / 3, 1 / 3, 1 / 3, 1.0])

# scratch rows: queen distances of the side to move and of the opponent, the same with king
# steps, and a breadth-first search queue.
_QUEEN_ME, _QUEEN_OPP, _KING_ME, _KING_OPP, _QUEUE = range(5)
# Pieces in a map being searched: below every distance, so one load tells a ray to stop.
_BLOCKED: Final = -1
# 2 ** -d by distance d, with 0 for UNREACHABLE.
_HALF_POWERS: Final = np.array([2.0**-d for d in range(UNREACHABLE)] + [0.0])


@njit(cache=True)
def _blank(board: np.ndarray, out: np.ndarray) -> None:
    for sq in range(board.shape[0]):
        out[sq] = UNREACHABLE if board[sq] == EMPTY else _BLOCKED


@njit(cache=True, inline="always")
def _queen_expand(
    dirs: tuple[int, ...], out: np.ndarray, queue: np.ndarray, sq: int, d: int, tail: int
) -> int:
    for k in range(8):
        step = dirs[k]
        p = sq + step
        while True:
            seen = out[p]
            if seen == UNREACHABLE:
                out[p] = d + 1
                queue[tail] = p
                tail += 1
            elif seen <= d:
                # A piece, or a square whose own ray this way reaches the rest in d + 1.
                break
            p += step
    return tail


@njit(cache=True)
def _queen_search(
    amazons: np.ndarray, meta: np.ndarray, side: int, out: np.ndarray, queue: np.ndarray
) -> None:
    """Breadth-first search over queen moves on a map `_blank` prepared."""
    dirs = directions(meta[STRIDE])
    tail = 0
    for i in range(meta[COUNT + side]):
        tail = _queen_expand(dirs, out, queue, amazons[side, i], 0, tail)
    head = 0
    while head < tail:
        sq = queue[head]
        head += 1
        tail = _queen_expand(dirs, out, queue, sq, out[sq], tail)


@njit(cache=True, inline="always")
def _king_expand(
    dirs: tuple[int, ...], out: np.ndarray, queue: np.ndarray, sq: int, d: int, tail: int
) -> int:
    for k in range(8):
        p = sq + dirs[k]
        if out[p] == UNREACHABLE:
            out[p] = d + 1
            queue[tail] = p
            tail += 1
    return tail


@njit(cache=True)
def _king_search(
    amazons: np.ndarray, meta: np.ndarray, side: int, out: np.ndarray, queue: np.ndarray
) -> None:
    """Breadth-first search over king steps on a map `_blank` prepared."""
    dirs = directions(meta[STRIDE])
    tail = 0
    for i in range(meta[COUNT + side]):
        tail = _king_expand(dirs, out, queue, amazons[side, i], 0, tail)
    head = 0
    while head < tail:
        sq = queue[head]
        head += 1
        tail = _king_expand(dirs, out, queue, sq, out[sq], tail)


@njit(cache=True)
def _unblock(out: np.ndarray) -> None:
    for sq in range(out.shape[0]):
        if out[sq] == _BLOCKED:
            out[sq] = UNREACHABLE


@njit(cache=True)
def queen_distance(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, side: int, out: np.ndarray
) -> None:
    """Fill `out` with the fewest queen moves an amazon of `side` needs to reach each empty
    square; every piece blocks, and UNREACHABLE marks the rest. Allocates its search queue:
    `evaluate` uses the scratch instead."""
    _blank(board, out)
    _queen_search(amazons, meta, side, out, np.empty(board.shape[0], dtype=np.int64))
    _unblock(out)


@njit(cache=True)
def king_distance(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, side: int, out: np.ndarray
) -> None:
    """As `queen_distance`, with king steps (one square in any of the 8 directions)."""
    _blank(board, out)
    _king_search(amazons, meta, side, out, np.empty(board.shape[0], dtype=np.int64))
    _unblock(out)


@njit(cache=True, inline="always")
def _restriction(
    board: np.ndarray, dirs: tuple[int, ...], sq: int, rival_queen: np.ndarray
) -> float:
    """1 / (alpha + 2) for the amazon on `sq`, or 1 when it cannot move at all."""
    alpha = 0.0
    moves = 0
    for k in range(8):
        step = dirs[k]
        p = sq + step
        weight = 1.0
        while board[p] == EMPTY:
            moves += 1
            # Room only counts where the opponent can come and take it away.
            if rival_queen[p] < UNREACHABLE:
                room = 0
                for e in range(8):
                    if board[p + dirs[e]] == EMPTY:
                        room += 1
                alpha += weight * room
            weight *= 0.5
            p += step
    if moves == 0:
        return 1.0
    return 1.0 / (alpha + 2.0)


@njit(cache=True, inline="always")
def late_share(w: float) -> float:
    """Lieberum's f1 by the phase w (see `Evaluation`): 1 once every region is settled,
    falling towards 0 in the opening."""
    return 31.0 / (30.0 + math.exp(0.2 * w))


@njit(cache=True, inline="always")
def _mix(
    t1: float, t2: float, c1: float, c2: float, w: float, mobility: float, weights: np.ndarray
) -> float:
    """The terms weighted as `LIEBERUM` describes."""
    late = late_share(w)
    early = 1.0 - late
    score: float = (
        (late * weights[0] + early * weights[5]) * t1
        + (late * weights[1] + early * weights[6]) * t2
        + (late * weights[2] + early * weights[7]) * c1
        + (late * weights[3] + early * weights[8]) * c2
        + (late * weights[4] + early * weights[9]) * mobility
    )
    return score


@njit(cache=True)
def _terms(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray
) -> tuple[float, float, float, float, float, float]:
    """(t1, t2, c1, c2, w, mobility) for the side to move: see `Evaluation`."""
    me = meta[SIDE]
    queue = scratch[_QUEUE]
    queen_me = scratch[_QUEEN_ME]
    queen_opp = scratch[_QUEEN_OPP]
    king_me = scratch[_KING_ME]
    king_opp = scratch[_KING_OPP]
    _blank(board, queen_me)
    queen_opp[:] = queen_me
    king_me[:] = queen_me
    king_opp[:] = queen_me
    _queen_search(amazons, meta, me, queen_me, queue)
    _queen_search(amazons, meta, 1 - me, queen_opp, queue)
    _king_search(amazons, meta, me, king_me, queue)
    _king_search(amazons, meta, 1 - me, king_opp, queue)
    dirs = directions(meta[STRIDE])
    queen_lead = 0
    queen_ties = 0
    king_lead = 0
    king_ties = 0
    c1 = 0.0
    c2 = 0.0
    w = 0.0
    own_restriction = 0.0
    opp_restriction = 0.0
    # Everything is summed in square order, never amazon-list order, so that swapping the
    # colours gives bit-for-bit the same score.
    for sq in range(board.shape[0]):
        piece = board[sq]
        if piece == EMPTY:
            a = queen_me[sq]
            b = queen_opp[sq]
            if a < b:
                queen_lead += 1
            elif a > b:
                queen_lead -= 1
            elif a < UNREACHABLE:
                queen_ties += 1
            c1 += _HALF_POWERS[a] - _HALF_POWERS[b]
            if a < UNREACHABLE and b < UNREACHABLE:
                w += _HALF_POWERS[abs(a - b)]
            a = king_me[sq]
            b = king_opp[sq]
            if a < b:
                king_lead += 1
            elif a > b:
                king_lead -= 1
            elif a < UNREACHABLE:
                king_ties += 1
            c2 += min(1.0, max(-1.0, (b - a) / 6.0))
        elif piece == me + 1:
            own_restriction += _restriction(board, dirs, sq, queen_opp)
        elif piece == 2 - me:
            opp_restriction += _restriction(board, dirs, sq, queen_me)
    t1 = queen_lead + KAPPA * queen_ties
    t2 = king_lead + KAPPA * king_ties
    c1 *= 2.0
    mobility = w * (opp_restriction - own_restriction)
    return t1, t2, c1, c2, w, mobility


@njit(cache=True)
def score_terms(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray
) -> tuple[float, float, float, float, float, float, float]:
    """(t1, t2, c1, c2, w, mobility, total) for the side to move: see `Evaluation`."""
    t1, t2, c1, c2, w, mobility = _terms(board, amazons, meta, scratch)
    return t1, t2, c1, c2, w, mobility, _mix(t1, t2, c1, c2, w, mobility, LIEBERUM)


@njit(cache=True)
def evaluate(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray
) -> float:
    """The score of the position for the side to move (positive: good for it). `scratch` comes
    from `make_scratch`; nothing is allocated."""
    return score_terms(board, amazons, meta, scratch)[6]


@njit(cache=True)
def weighted_evaluate(
    board: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
) -> float:
    """The score of the position for the side to move with the terms mixed by `weights` (see
    `LIEBERUM`); `evaluate` is this with LIEBERUM."""
    t1, t2, c1, c2, w, mobility = _terms(board, amazons, meta, scratch)
    return _mix(t1, t2, c1, c2, w, mobility, weights)


def make_scratch(board: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """Work space for `evaluate` on boards the size of `board`: four distance maps and a queue."""
    return np.empty((5, board.shape[0]), dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The terms of a score, all from the side to move's point of view (Lieberum's terms).

    With D1/D2 the queen/king distance maps of the side to move (me) and the opponent, summed
    over empty squares:
      t1 = sum Δ(D1_me, D1_opp), t2 = sum Δ(D2_me, D2_opp), where Δ(n, m) is +1 if n < m, -1 if
        n > m, KAPPA (0.2) if n = m is finite, 0 if neither side reaches the square;
      c1 = 2 sum (2^-D1_me - 2^-D1_opp), c2 = sum clamp((D2_opp - D2_me) / 6, -1, 1);
      w = sum over squares both reach of 2^-|D1_me - D1_opp| (0 once every region is settled);
      mobility = w (sum_opp r - sum_own r), r = 1 / (alpha + 2) per amazon, or 1 for an amazon
        with no move at all; alpha = sum over the empty squares s a queen move away that the
        opponent also reaches, of (empty neighbours of s) * 2^-(k - 1), k = steps from the amazon;
      total = f1 t1 + (1 - f1)/3 (c1 + c2 + t2) + mobility, f1 = 31 / (30 + e^(0.2 w)).
    f1 is 1 at w = 0, so a settled position scores t1 exactly (own squares - opponent's), and
    falls to about 1/2 at w = 17 and 0.07 at w = 30, leaving the opening to c1, c2 and t2.
    """

    t1: float
    t2: float
    c1: float
    c2: float
    w: float
    mobility: float
    total: float


def evaluation_terms(position: Position) -> Evaluation:
    """The evaluation of `position`, term by term."""
    board, _, amazons, meta, _ = position.arrays()
    return Evaluation(*(float(v) for v in score_terms(board, amazons, meta, make_scratch(board))))


def evaluate_position(position: Position, weights: npt.NDArray[np.float64] = LIEBERUM) -> float:
    """The score of `position` for its side to move (see `Evaluation`), its terms mixed by
    `weights` (see `LIEBERUM`)."""
    board, _, amazons, meta, _ = position.arrays()
    return float(weighted_evaluate(board, amazons, meta, make_scratch(board), weights))
