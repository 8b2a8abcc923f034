"""Values of Amazons regions and positions (Left = Black): known values, CGSuite's follower
count, symmetry and colour swap, sums of regions, settled regions against a brute force, best
moves, budgets, and cgt-py (which reads `x` as Left, `o` as Right) as an oracle."""

from __future__ import annotations

import functools
import multiprocessing
import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from engine.amazons import Position, Side, Square
from engine.cgt import ZERO, Form
from engine.cgt.amazons import (
    BudgetExceededError,
    RegionSolver,
    best_moves,
    follower_count,
    move_values,
    position_value,
    region_value,
    solver,
    stored_key,
)

P = Form.parse

B3W3 = "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}"
B4W4 = "+-{5,{6|2,{3|*,+-{1,{2|0}}}}}"


def value(text: str) -> Form:
    return position_value(Position.parse(text))


def grid_text(rows: list[str]) -> str:
    """Position text for rows of `B`, `W`, `.` and `x`, top row first."""
    out = []
    for row in rows:
        text = ""
        empty = 0
        for c in row:
            if c == ".":
                empty += 1
                continue
            text += str(empty) if empty else ""
            empty = 0
            text += c
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


def cgt_py_grid(rows: list[str]) -> str:
    """The same board as cgt-py writes it: `x` Left (Black), `o` Right (White), `#` burnt."""
    return "|".join(row.translate(str.maketrans("BWx", "xo#")) for row in rows)


def random_rows(rng: random.Random, most: int = 10) -> list[str]:
    while True:
        width, height = rng.randint(1, 5), rng.randint(1, 4)
        if width * height <= most:
            break
    cells = rng.choices(".xBW", weights=[6, 2, 1, 1], k=width * height)
    return ["".join(cells[y * width : (y + 1) * width]) for y in range(height)]


def turned(rows: list[str]) -> list[str]:
    """Rotated a quarter turn."""
    return ["".join(row[x] for row in reversed(rows)) for x in range(len(rows[0]))]


def mirrored(rows: list[str]) -> list[str]:
    return [row[::-1] for row in rows]


def swapped(rows: list[str]) -> list[str]:
    return [row.translate(str.maketrans("BW", "WB")) for row in rows]


def boards(seed: int, count: int, most: int = 10) -> Iterator[list[str]]:
    rng = random.Random(seed)
    for _ in range(count):
        yield random_rows(rng, most)


# -- known values ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        ("B1", "1"),  # the amazon steps over and shoots back into the square it left
        ("W1", "-1"),
        ("B2", "2"),
        ("1B1", "2"),
        ("BW", "0"),
        ("Bx1", "0"),
        ("B1W", "*"),
        ("B2W", "+-1"),
        ("W2B", "+-1"),
        ("B1W1", "-1*"),
        ("B3W", "+-2"),
        ("BW/1x", "*"),
        ("Bx/1W", "*"),
        ("B1/1x", "2"),
        ("B1/1W", "0"),
        ("BW/2", "0"),
        ("B1/W1", "0"),
        ("B2/2W", "+-{1,{2|0}}"),
        ("B2/W2", "+-{1,{2|0}}"),
        ("3/BW1", "{1/4|-1,{0|-2}}"),
        # The smallest regions with these values.
        ("1W/Bx/1x", "1/2"),
        ("1WB1/xx1x", "^"),
        ("2B1/xWxx", "^*"),
        ("2/WB/x1", "1/4"),
        ("2W/xxB/xx1", "{1|0}"),
        ("2x/WB1/x1x", "1/8"),
        ("2B/xW1/xx1", "{0||0|-1}"),
        ("3/1xW/xBx", "{0||0|-2}"),
        ("B3/W3", B3W3),
        ("B4/W4", B4W4),
    ],
)
def test_known_values(position: str, expected: str) -> None:
    assert value(position) == P(expected)


def test_the_value_prints_as_cgsuite_prints_it() -> None:
    assert str(value("B3/W3")) == B3W3


def test_the_side_to_move_does_not_enter_the_value() -> None:
    assert value("B3/W3 b") == value("B3/W3 w") == P(B3W3)


def test_cgsuite_follower_count_of_two_by_four() -> None:
    # Amazons("x...|o...").Followers.Size in CGSuite: every board reachable, the start included.
    assert follower_count(Position.parse("B3/W3")) == 2784
    assert follower_count(Position.parse("B4/W4")) == 20216
    assert follower_count(Position.parse("B1W")) == 3


def test_the_cgt_tools_example_has_its_mean_and_temperature() -> None:
    # cgt-tools' Amazons("x..#|....|.#.o"), confirmed there with CGSuite.
    g = value("B2x/4/1x1W")
    assert (g.mean, g.temperature) == (Fraction(1, 2), Fraction(7, 2))


# -- invariance ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_symmetric_regions_are_equal_and_swapped_ones_negated(seed: int) -> None:
    for rows in boards(seed, 12, most=9):
        g = value(grid_text(rows))
        assert value(grid_text(turned(rows))) == g
        assert value(grid_text(mirrored(rows))) == g
        assert value(grid_text(turned(turned(mirrored(rows))))) == g
        assert value(grid_text(swapped(rows))) == -g


def test_regions_are_stored_under_the_engines_canonical_keys() -> None:
    stored = 0
    for rows in boards(7, 60, most=9):
        for region in Position.parse(grid_text(rows)).regions():
            found = stored_key(region)
            if found is None:
                assert region_value(region) == ZERO
                continue
            key, is_swapped = found
            assert key == min(region.key(), region.swapped_key())
            assert is_swapped == (region.swapped_key() < region.key())
            stored_value = solver.key_value(key)
            assert region_value(region) == (-stored_value if is_swapped else stored_value)
            stored += 1
    assert stored > 30


def test_a_position_is_the_sum_of_its_regions() -> None:
    position = Position.parse("B2xW1/xxxxxx/1B1xW1/2Wx2/xxxxB1")
    regions = position.regions()
    assert len(regions) == 4
    total = ZERO
    for region in regions:
        alone = position_value(region.position())
        assert region_value(region) == alone
        total += alone
    assert position_value(position) == total


# -- settled regions -----------------------------------------------------------------------------


@functools.cache
def most_moves(rows: tuple[str, ...]) -> int:
    """The most moves the one colour on the board can make, by brute force."""
    height, width = len(rows), len(rows[0])
    cells = {(x, y): rows[y][x] for y in range(height) for x in range(width)}
    steps = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    best = 0
    for (x, y), c in cells.items():
        if c not in "BW":
            continue
        for dx, dy in steps:
            tx, ty = x + dx, y + dy
            while cells.get((tx, ty)) == ".":
                for ex, ey in steps:
                    ax, ay = tx + ex, ty + ey
                    while cells.get((ax, ay)) == "." or (ax, ay) == (x, y):
                        after = dict(cells)
                        after[x, y] = "."
                        after[tx, ty] = c
                        after[ax, ay] = "x"
                        grid = tuple(
                            "".join(after[i, j] for i in range(width)) for j in range(height)
                        )
                        best = max(best, 1 + most_moves(grid))
                        ax, ay = ax + ex, ay + ey
                tx, ty = tx + dx, ty + dy
    return best


def test_settled_regions_are_worth_the_most_moves_their_owner_can_make() -> None:
    rng = random.Random(3)
    checked = 0
    while checked < 40:
        width, height = rng.randint(2, 3), rng.randint(1, 3)
        cells = rng.choices(".x", weights=[3, 1], k=width * height)
        for _ in range(rng.randint(1, 2)):
            cells[rng.randrange(width * height)] = "B"
        rows = ["".join(cells[y * width : (y + 1) * width]) for y in range(height)]
        moves = most_moves(tuple(rows))
        assert value(grid_text(rows)) == Form.number(moves)
        assert value(grid_text(swapped(rows))) == Form.number(-moves)
        checked += 1


def test_a_defective_territory_is_worth_less_than_its_empty_squares() -> None:
    # The amazon's first move, to a corner, cuts off the other two squares.
    assert most_moves((".x.", "xBx", "x.x")) == 1
    assert value("1x1/xBx/x1x") == Form.number(1)
    assert value("1x1/xWx/x1x") == Form.number(-1)


# -- best moves ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["B3/W3 b", "B3/W3 w", "B2W b", "B1W1 b", "B1xW/xxxx/1B1W/2x1 w", "B2x/3W/x3 b"]
)
def test_best_moves_are_the_moves_to_a_position_the_opponent_loses(text: str) -> None:
    position = Position.parse(text)
    black = position.side_to_move is Side.BLACK
    winning = []
    for option in move_values(position):
        after = position.clone()
        after.apply(option.move)
        assert option.value == position_value(after)
        if (option.value >= 0) if black else (option.value <= 0):
            winning.append(option.move)
    assert sorted(map(str, best_moves(position))) == sorted(map(str, winning))


def test_the_side_to_move_has_a_best_move_exactly_when_it_wins() -> None:
    # B3/W3 is hot: whoever moves first wins; B1W1 = -1*: White wins whoever starts.
    assert best_moves(Position.parse("B3/W3 b"))
    assert best_moves(Position.parse("B3/W3 w"))
    assert not best_moves(Position.parse("B1W1 b"))
    assert best_moves(Position.parse("B1W1 w"))


# -- memo and budget -----------------------------------------------------------------------------


def test_keys_of_small_and_large_regions_are_the_engines() -> None:
    # Keys of up to 31 cells in their bounding box are found packed into one integer, larger
    # ones cell by cell: both against the engine's keys, whole boards and their pieces.
    rng = random.Random(5)
    areas = set()
    for width, height in ((4, 4), (5, 5), (6, 5), (6, 6), (8, 8)):
        for _ in range(40):
            weights = [12, rng.randint(1, 6), 1, 1]
            cells = rng.choices(".xBW", weights=weights, k=width * height)
            rows = ["".join(cells[y * width : (y + 1) * width]) for y in range(height)]
            for region in Position.parse(grid_text(rows)).regions():
                found = stored_key(region)
                if found is None:
                    continue
                key, is_swapped = found
                assert key == min(region.key(), region.swapped_key()), rows
                assert is_swapped == (region.swapped_key() < region.key()), rows
                areas.add(key[0] * key[1])
    assert min(areas) < 10
    assert 30 in areas
    assert max(areas) > 31


def test_a_key_that_is_not_a_region_key_is_refused() -> None:
    with pytest.raises(ValueError, match="is not a region key"):
        RegionSolver().key_value(bytes([2, 1, 1]))
    with pytest.raises(ValueError, match="is not a region key"):
        RegionSolver().key_value(bytes([2, 1, 1, 7]))


def test_the_memo_answers_a_second_time_and_can_be_cleared() -> None:
    solver = RegionSolver()
    assert solver.stats.positions == 0
    g = solver.position_value(Position.parse("B3/W3"))
    first = solver.stats
    assert first.solved == first.positions == first.contested + first.settled > 100
    assert solver.position_value(Position.parse("W3/B3")) == -g
    assert solver.stats == first
    solver.clear()
    assert solver.stats.positions == 0
    assert solver.position_value(Position.parse("B3/W3")) == g


def test_a_budget_stops_the_search_and_the_memo_stays_sound() -> None:
    solver = RegionSolver()
    with pytest.raises(BudgetExceededError, match="not solved within 50 new region positions"):
        solver.position_value(Position.parse("B4/W4"), positions=50)
    with pytest.raises(BudgetExceededError, match=r"not solved within 1e-09 s"):
        solver.position_value(Position.parse("B5/W5"), seconds=1e-9)
    assert solver.position_value(Position.parse("B4/W4")) == P(B4W4)
    assert solver.position_value(Position.parse("B3/W3"), seconds=60) == P(B3W3)


def _value_of(text: str) -> Form:
    return position_value(Position.parse(text))


def test_a_process_forked_after_a_solve_solves_too() -> None:
    # A solve long enough to hand canonical forms to a thread of their own starts that thread;
    # a child forked afterwards (as match workers are) has to start one of its own.
    RegionSolver().position_value(Position.parse("B4/W4"))
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_value_of, ("B4/W4",)).get(timeout=120) == P(B4W4)


# -- cgt-py as an oracle -------------------------------------------------------------------------


def read_theirs(value: Any) -> Form:
    printed = repr(value)
    assert printed.startswith("CanonicalForm('")
    return Form.parse(printed[len("CanonicalForm('") : -2])


@pytest.mark.parametrize("seed", range(3))
def test_random_boards_agree_with_cgt_py(seed: int) -> None:
    cgt_py = pytest.importorskip("cgt_py")
    for rows in boards(100 + seed, 15, most=10):
        theirs = read_theirs(cgt_py.Amazons(cgt_py_grid(rows)).canonical_form)
        assert value(grid_text(rows)) == theirs, rows


def test_the_cgt_tools_example_agrees_with_cgt_py() -> None:
    cgt_py = pytest.importorskip("cgt_py")
    theirs = read_theirs(cgt_py.Amazons("x..#|....|.#.o").canonical_form)
    assert value("B2x/4/1x1W") == theirs


def test_best_moves_agree_with_cgt_py() -> None:
    cgt_py = pytest.importorskip("cgt_py")
    zero = cgt_py.CanonicalForm("0")
    for text in ("B3/W3 b", "B3/W3 w", "B2x/3W/x3 b"):
        position = Position.parse(text)
        black = position.side_to_move is Side.BLACK
        winning = []
        for move in position.legal_moves:
            after = position.clone()
            after.apply(move)
            theirs = cgt_py.Amazons(_grid(after)).canonical_form
            if (theirs >= zero) if black else (theirs <= zero):
                winning.append(str(move))
        assert sorted(map(str, best_moves(position))) == sorted(winning)


def _grid(position: Position) -> str:
    """cgt-py's spelling of a position's board."""
    letters = {None: ".", "B": "x", "W": "o", "x": "#"}
    return "|".join(
        "".join(letters[position.piece_at(Square(f, r))] for f in range(position.width))
        for r in reversed(range(position.height))
    )
