import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from numba.core.runtime import _nrt_python, rtsys

from engine.amazons import Position, Side, Square
from engine.search.evaluation import (
    KAPPA,
    LIEBERUM,
    UNREACHABLE,
    Evaluation,
    evaluate,
    evaluate_position,
    evaluation_terms,
    king_distance,
    make_scratch,
    queen_distance,
)
from tests.engine.strategies import game_positions, positions

LINES = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]

Cells = dict[tuple[int, int], str]


def _cells(position: Position) -> Cells:
    """Every on-board square: `W`, `B`, `x` or `.` for empty."""
    return {
        (x, y): position.piece_at(Square(x, y)) or "."
        for x in range(position.width)
        for y in range(position.height)
    }


def _distances(cells: Cells, letter: str, queen: bool) -> dict[tuple[int, int], int]:
    """Plain breadth-first search, one level at a time: the reachable empty squares and their
    distance in queen moves (or king steps) from the amazons marked `letter`."""
    frontier = [square for square, piece in cells.items() if piece == letter]
    found: dict[tuple[int, int], int] = {}
    level = 0
    while frontier:
        level += 1
        following = []
        for x, y in frontier:
            for dx, dy in LINES:
                cx, cy = x + dx, y + dy
                while cells.get((cx, cy)) == ".":
                    if (cx, cy) not in found:
                        found[(cx, cy)] = level
                        following.append((cx, cy))
                    if not queen:
                        break
                    cx, cy = cx + dx, cy + dy
        frontier = following
    return found


def _kernel_map(position: Position, side: Side, queen: bool) -> np.ndarray:
    board, _, amazons, meta, _ = position.arrays()
    out = np.zeros(board.shape[0], dtype=np.int64)
    (queen_distance if queen else king_distance)(board, amazons, meta, int(side), out)
    return out


def _expected_map(position: Position, side: Side, queen: bool) -> np.ndarray:
    board, *_ = position.arrays()
    expected = np.full(board.shape[0], UNREACHABLE, dtype=np.int64)
    for (x, y), d in _distances(_cells(position), side.piece, queen).items():
        expected[position.index(Square(x, y))] = d
    return expected


def _rebuilt(position: Position, swap_colours: bool, side: Side) -> Position:
    swap = {"W": "B", "B": "W", "x": "x"} if swap_colours else {"W": "W", "B": "B", "x": "x"}
    pieces = {
        Square(x, y): swap[piece] for (x, y), piece in _cells(position).items() if piece != "."
    }
    return Position(position.width, position.height, pieces, side)


def _delta(n: float, m: float) -> float:
    if n < m:
        return 1.0
    if n > m:
        return -1.0
    return KAPPA if n < math.inf else 0.0


def _reference_terms(position: Position) -> tuple[float, ...]:
    """(t1, t2, c1, c2, w, mobility, total) straight from the formulas, in plain Python."""
    cells = _cells(position)
    me, opp = position.side_to_move.piece, position.side_to_move.other.piece
    queen = {s: _distances(cells, s, queen=True) for s in (me, opp)}
    king = {s: _distances(cells, s, queen=False) for s in (me, opp)}
    t1 = t2 = c1 = c2 = w = 0.0
    for square, piece in cells.items():
        if piece != ".":
            continue
        a, b = queen[me].get(square, math.inf), queen[opp].get(square, math.inf)
        t1 += _delta(a, b)
        c1 += 2 * (2.0**-a - 2.0**-b)
        if a < math.inf and b < math.inf:
            w += 2.0 ** -abs(a - b)
        a, b = king[me].get(square, math.inf), king[opp].get(square, math.inf)
        t2 += _delta(a, b)
        if a < math.inf or b < math.inf:
            c2 += min(1.0, max(-1.0, (b - a) / 6))
    restriction = {me: 0.0, opp: 0.0}
    for (x, y), piece in cells.items():
        if piece not in restriction:
            continue
        rival = queen[opp if piece == me else me]
        alpha = 0.0
        moves = 0
        for dx, dy in LINES:
            k = 1
            while cells.get((x + k * dx, y + k * dy)) == ".":
                s = (x + k * dx, y + k * dy)
                moves += 1
                if s in rival:
                    room = sum(cells.get((s[0] + ex, s[1] + ey)) == "." for ex, ey in LINES)
                    alpha += room * 2.0 ** -(k - 1)
                k += 1
        restriction[piece] += 1.0 if moves == 0 else 1 / (alpha + 2)
    mobility = w * (restriction[opp] - restriction[me])
    f1 = 31 / (30 + math.exp(0.2 * w))
    total = f1 * t1 + (1 - f1) / 3 * (c1 + c2 + t2) + mobility
    return (t1, t2, c1, c2, w, mobility, total)


# -- distance maps ---------------------------------------------------------------------------


@given(positions(max_size=8), st.sampled_from(Side), st.booleans())
@settings(max_examples=300, deadline=None)
def test_distance_maps_match_a_plain_breadth_first_search(
    position: Position, side: Side, queen: bool
) -> None:
    np.testing.assert_array_equal(
        _kernel_map(position, side, queen), _expected_map(position, side, queen)
    )


@given(game_positions(), st.sampled_from(Side), st.booleans())
@settings(max_examples=50, deadline=None)
def test_distance_maps_match_in_played_games(position: Position, side: Side, queen: bool) -> None:
    np.testing.assert_array_equal(
        _kernel_map(position, side, queen), _expected_map(position, side, queen)
    )


def _on_board(position: Position, out: np.ndarray) -> dict[str, int]:
    return {
        f"{'abc'[x]}{y + 1}": int(out[position.index(Square(x, y))])
        for x in range(position.width)
        for y in range(position.height)
    }


def test_corner_amazon_on_an_empty_3x3() -> None:
    position = Position.parse("3/3/W2 w")
    queen = _on_board(position, _kernel_map(position, Side.WHITE, queen=True))
    assert queen == {
        "a1": UNREACHABLE,
        "a2": 1, "a3": 1, "b1": 1, "b2": 1, "c1": 1, "c3": 1,
        "b3": 2, "c2": 2,
    }  # fmt: skip
    king = _on_board(position, _kernel_map(position, Side.WHITE, queen=False))
    assert king == {
        "a1": UNREACHABLE,
        "a2": 1, "b1": 1, "b2": 1,
        "a3": 2, "b3": 2, "c1": 2, "c2": 2, "c3": 2,
    }  # fmt: skip


def test_arrows_and_amazons_block() -> None:
    position = Position.parse("3/1x1/W1B w")
    queen = _on_board(position, _kernel_map(position, Side.WHITE, queen=True))
    assert queen == {
        "a1": UNREACHABLE, "b2": UNREACHABLE, "c1": UNREACHABLE,
        "a2": 1, "a3": 1, "b1": 1,
        "b3": 2, "c2": 2, "c3": 2,
    }  # fmt: skip
    king = _on_board(position, _kernel_map(position, Side.WHITE, queen=False))
    assert king == {
        "a1": UNREACHABLE, "b2": UNREACHABLE, "c1": UNREACHABLE,
        "a2": 1, "b1": 1,
        "a3": 2, "b3": 2, "c2": 2,
        "c3": 3,
    }  # fmt: skip


def test_a_side_without_amazons_reaches_nothing() -> None:
    position = Position.parse("2B/3 w")
    out = _kernel_map(position, Side.WHITE, queen=True)
    assert set(out.tolist()) == {UNREACHABLE}


# -- the score -------------------------------------------------------------------------------


@given(positions(max_size=8))
@settings(max_examples=200, deadline=None)
def test_terms_match_the_formulas(position: Position) -> None:
    terms = dataclasses.astuple(evaluation_terms(position))
    assert terms == pytest.approx(_reference_terms(position), rel=1e-9, abs=1e-9)


@given(game_positions())
@settings(max_examples=50, deadline=None)
def test_terms_match_the_formulas_in_played_games(position: Position) -> None:
    terms = dataclasses.astuple(evaluation_terms(position))
    assert terms == pytest.approx(_reference_terms(position), rel=1e-9, abs=1e-9)


@given(
    st.one_of(positions(max_size=8), game_positions()),
    st.lists(st.floats(-5, 5), min_size=10, max_size=10),
)
@settings(max_examples=100, deadline=None)
def test_other_weights_mix_the_same_terms(position: Position, weights: list[float]) -> None:
    t1, t2, c1, c2, w, mobility, _ = _reference_terms(position)
    late = 31 / (30 + math.exp(0.2 * w))
    mixed = sum(
        (late * weights[k] + (1 - late) * weights[5 + k]) * term
        for k, term in enumerate((t1, t2, c1, c2, mobility))
    )
    assert evaluate_position(position, np.array(weights)) == pytest.approx(
        mixed, rel=1e-9, abs=1e-9
    )
    # Lieberum's own weights are the plain evaluation, bit for bit.
    assert evaluate_position(position, LIEBERUM) == evaluation_terms(position).total


@given(st.one_of(positions(max_size=8), game_positions()))
@settings(max_examples=150, deadline=None)
def test_swapping_the_colours_gives_exactly_the_same_score(position: Position) -> None:
    swapped = _rebuilt(position, swap_colours=True, side=position.side_to_move.other)
    assert evaluation_terms(swapped) == evaluation_terms(position)


@given(st.one_of(positions(max_size=8), game_positions()))
@settings(max_examples=150, deadline=None)
def test_the_other_side_to_move_changes_only_the_tempo_terms(position: Position) -> None:
    other = _rebuilt(position, swap_colours=False, side=position.side_to_move.other)
    mine, theirs = evaluation_terms(position), evaluation_terms(other)
    assert (theirs.c1, theirs.c2, theirs.mobility) == (-mine.c1, -mine.c2, -mine.mobility)
    assert theirs.w == mine.w
    cells = _cells(position)
    for term, queen in (("t1", True), ("t2", False)):
        white = _distances(cells, "W", queen)
        black = _distances(cells, "B", queen)
        ties = sum(1 for square, d in white.items() if black.get(square) == d)
        tempo = 2 * KAPPA * ties
        assert getattr(mine, term) + getattr(theirs, term) == pytest.approx(tempo, abs=1e-9)
    f1 = 31 / (30 + math.exp(0.2 * mine.w))
    tempo_total = f1 * (mine.t1 + theirs.t1) + (1 - f1) / 3 * (mine.t2 + theirs.t2)
    assert mine.total + theirs.total == pytest.approx(tempo_total, abs=1e-9)


@st.composite
def settled_positions(draw: st.DrawFn) -> Position:
    """White's amazons left of a wall of arrows, Black's right of it."""
    height = draw(st.integers(1, 6))
    left = draw(st.integers(1, 4))
    right = draw(st.integers(1, 4))
    pieces = {}
    for y in range(height):
        pieces[Square(left, y)] = "x"
        for x in range(left + 1 + right):
            letter = draw(st.sampled_from(["", "", "x", "W" if x < left else "B"]))
            if letter and x != left:
                pieces[Square(x, y)] = letter
    return Position(left + 1 + right, height, pieces, draw(st.sampled_from(Side)))


@given(settled_positions())
@settings(max_examples=200, deadline=None)
def test_a_settled_position_scores_its_territory_count(position: Position) -> None:
    cells = _cells(position)
    me, opp = position.side_to_move.piece, position.side_to_move.other.piece
    count = len(_distances(cells, me, queen=True)) - len(_distances(cells, opp, queen=True))
    terms = evaluation_terms(position)
    assert terms.w == 0.0
    assert terms.mobility == 0.0
    assert terms.total == terms.t1 == count


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ("W4xx1B/xxxxxxxxx w", 3.0),
        ("W4xx1B/xxxxxxxxx b", -3.0),
        ("W1xx2B/xxxxxxx w", -1.0),
        ("W9/10/xxxxxxxxxx/B1xxxxxxxx b", -18.0),
        ("W9/10/xxxxxxxxxx/B1xxxxxxxx w", 18.0),
    ],
)
def test_settled_endgames_score_for_the_side_with_more_room(text: str, score: float) -> None:
    assert evaluate_position(Position.parse(text)) == score


def test_a_trapped_amazon_costs_its_own_side() -> None:
    # The start with d1 walled in by arrows on c1 c2 d2 e2 e1.
    board = "3B2B3/10/10/B8B/10/10/W8W/10/2xxx5/2xWx1W3"
    white_to_move = evaluation_terms(Position.parse(f"{board} w"))
    black_to_move = evaluation_terms(Position.parse(f"{board} b"))
    # A trapped amazon counts w, where a free one counts w / (alpha + 2) with alpha near 100.
    assert white_to_move.mobility < -0.9 * white_to_move.w
    assert black_to_move.mobility == -white_to_move.mobility
    assert white_to_move.total < -10
    assert black_to_move.total > 10


def test_the_start_is_level_but_for_the_tempo() -> None:
    board = "3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3"
    white, black = (evaluation_terms(Position.parse(f"{board} {side}")) for side in "wb")
    assert white.total == pytest.approx(black.total, abs=1e-12)
    assert white.total > 0.5
    assert white.c1 == 0.0
    assert white.mobility == pytest.approx(0.0, abs=1e-12)


# -- the hot path ------------------------------------------------------------------------------


# Not cached: numba's cache would keep an old `evaluate` inlined after that module changes.
@njit
def _evaluate_repeatedly(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray, calls: int
) -> float:
    total = 0.0
    for _ in range(calls):
        total += evaluate(board, amazons, meta, scratch)
    return total


def _allocations(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, scratch: np.ndarray, calls: int
) -> tuple[int, float]:
    before = rtsys.get_allocation_stats()
    total = _evaluate_repeatedly(board, amazons, meta, scratch, calls)
    after = rtsys.get_allocation_stats()
    return after.alloc - before.alloc + after.mi_alloc - before.mi_alloc, total


def test_evaluate_allocates_nothing_per_call() -> None:
    position = Position.setup("10x10")
    for seed in range(30):
        position.apply(position.random_move(seed))
    board, _, amazons, meta, _ = position.arrays()
    board_before = board.copy()
    scratch = make_scratch(board)
    _evaluate_repeatedly(board, amazons, meta, scratch, 1)  # compile
    # Numba counts its runtime's allocations only on request; passing arrays in from Python
    # costs a fixed few, so one call and 100,000 calls must cost the same.
    _nrt_python.memsys_enable_stats()
    try:
        once, single = _allocations(board, amazons, meta, scratch, 1)
        many, total = _allocations(board, amazons, meta, scratch, 100_000)
    finally:
        _nrt_python.memsys_disable_stats()
    assert many == once
    assert total == pytest.approx(100_000 * single)
    assert single == evaluate_position(position)
    np.testing.assert_array_equal(board, board_before)


def test_evaluation_is_a_frozen_record() -> None:
    terms = evaluation_terms(Position.setup("6x6"))
    assert isinstance(terms, Evaluation)
    with pytest.raises(dataclasses.FrozenInstanceError):
        terms.total = 0.0  # type: ignore[misc]
