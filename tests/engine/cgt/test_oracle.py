"""The library against cgt-py (Rust, CGSuite's algorithms) as an oracle: canonical forms are
compared as values (each side reads the other's text and checks equality), plus stops,
temperatures, birthdays, thermographs (and the walls a thermograph's picture draws), cooling,
sums and comparisons."""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings

from engine.cgt import ZERO, Form, born_by, forms
from tests.engine.cgt.strategies import game_texts
from tests.engine.cgt.test_thermograph_drawing import drawn, knots, mast, wall_at

cgt_py = pytest.importorskip("cgt_py")

_TRAJECTORY = re.compile(r"Trajectory\(([^,]+), \[([^\]]*)\], \[([^\]]*)\]\)")


def theirs(text: str) -> Any:
    return cgt_py.CanonicalForm(text)


def read_theirs(value: Any) -> Form:
    """Our game for a cgt-py value, read from its printed form `CanonicalForm('...')`."""
    printed = repr(value)
    assert printed.startswith("CanonicalForm('")
    return Form.parse(printed[len("CanonicalForm('") : -2])


def written_for_them(g: Form) -> str:
    """g in the spelling cgt-py reads: nested braces, ^n and vn for multiples of up."""
    parts = g.nus_parts
    if parts is None:
        lefts = ",".join(written_for_them(x) for x in g.left_options)
        rights = ",".join(written_for_them(x) for x in g.right_options)
        return "{" + lefts + "|" + rights + "}"
    number, ups, nimber = parts
    text = str(number) if number or not (ups or nimber) else ""
    if ups:
        text += ("^" if ups > 0 else "v") + (str(abs(ups)) if abs(ups) > 1 else "")
    if nimber:
        text += "*" + (str(nimber) if nimber > 1 else "")
    return text


def fraction(value: Any) -> Fraction:
    printed = repr(value)
    assert printed.startswith("DyadicRationalNumber('")
    return Fraction(printed[len("DyadicRationalNumber('") : -2])


def walls(value: Any) -> list[tuple[Fraction, tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """cgt-py's thermograph as (mast, critical temperatures, slopes) for each wall."""
    found = _TRAJECTORY.findall(repr(value.thermograph))
    assert len(found) == 2
    return [
        (
            Fraction(mast),
            tuple(Fraction(x) for x in points.split(", ") if x),
            tuple(Fraction(x) for x in slopes.split(", ") if x),
        )
        for mast, points, slopes in found
    ]


def our_walls(g: Form) -> list[tuple[Fraction, tuple[Fraction, ...], tuple[Fraction, ...]]]:
    graph = g.thermograph
    return [
        (wall.mast, wall.critical_temperatures, wall.slopes)
        for wall in (graph.left_wall, graph.right_wall)
    ]


@given(game_texts())
@settings(max_examples=150, deadline=None)
def test_canonical_forms_and_their_properties_agree(text: str) -> None:
    ours, oracle = Form.parse(text), theirs(text)
    assert read_theirs(oracle) - ours == ZERO
    assert theirs(written_for_them(ours)) - oracle == theirs("0")
    assert ours.birthday == oracle.birthday
    assert ours.left_stop == fraction(oracle.left_stop)
    assert ours.right_stop == fraction(oracle.right_stop)
    assert ours.temperature == fraction(oracle.temperature)
    assert our_walls(ours) == walls(oracle)
    assert ours.mean == walls(oracle)[0][0]
    for t in ("1/2", "1", "3/2"):
        assert ours.cool(Fraction(t)) == read_theirs(oracle.cool(t))


@given(game_texts(8), game_texts(8))
@settings(max_examples=100, deadline=None)
def test_sums_and_comparisons_agree(a: str, b: str) -> None:
    g, h = Form.parse(a), Form.parse(b)
    x, y = theirs(a), theirs(b)
    assert g + h == read_theirs(x + y)
    assert g - h == read_theirs(x - y)
    assert (g <= h) == (x <= y)
    assert (g >= h) == (x >= y)
    assert (g == h) == (x == y)


def test_every_sum_and_comparison_of_games_born_by_day_two_agrees() -> None:
    games = born_by(2)
    oracle = [theirs(written_for_them(g)) for g in games]
    for g, x in zip(games, oracle, strict=True):
        assert read_theirs(x) == g
        for h, y in zip(games, oracle, strict=True):
            assert g + h == read_theirs(x + y)
            assert (g <= h) == (x <= y)


def test_number_up_star_values_agree_in_closed_form() -> None:
    # Sums and comparisons of x + n.^ + *k take a closed-form path here; cgt-py builds them.
    values = [
        Form.nus(Fraction(number), ups, nimber)
        for number in ("0", "1/2", "-3/4")
        for ups in range(-3, 4)
        for nimber in range(4)
    ]
    oracle = [theirs(written_for_them(g)) for g in values]
    for g, x in zip(values, oracle, strict=True):
        assert read_theirs(x) == g
        assert our_walls(g) == walls(x)
        assert g.birthday == x.birthday
        assert Form.from_options(g.left_options, g.right_options) == g
        for h, y in zip(values[::5], oracle[::5], strict=True):
            assert (g <= h) == (x <= y)
            assert g + h == read_theirs(x + y)
    assert forms.size() > len(values)


def test_every_game_born_by_day_three_agrees() -> None:
    for g in born_by(3):
        oracle = theirs(written_for_them(g))
        assert read_theirs(oracle) == g
        assert (g.left_stop, g.right_stop, g.temperature) == (
            fraction(oracle.left_stop),
            fraction(oracle.right_stop),
            fraction(oracle.temperature),
        )
        assert our_walls(g) == walls(oracle)


def oracle_value(
    wall: tuple[Fraction, tuple[Fraction, ...], tuple[Fraction, ...]], t: Fraction
) -> Fraction:
    """A cgt-py wall (mast, critical temperatures highest first, slopes from the top down) at
    t: the top segment meets t = 0 at the mast, each one below goes on from the one above."""
    mast, critical, slopes = wall
    value = mast + slopes[0] * max(t, critical[0] if critical else t)
    for i, bend in enumerate(critical):
        if t >= bend:
            break
        below = critical[i + 1] if i + 1 < len(critical) else t
        value += slopes[i + 1] * (max(t, below) - bend)
    return value


@given(game_texts())
@settings(max_examples=150, deadline=None)
def test_the_walls_a_thermograph_picture_draws_agree(text: str) -> None:
    """The walls the picture draws, from t = 0 to where they meet, against cgt-py's walls of
    the same game at every knot and halfway between."""
    game = Form.parse(text)
    oracle = walls(theirs(text))
    picture = drawn(text)
    if game.temperature <= 0:
        assert mast(picture) == oracle[0][0]
        return
    for kind, wall in (("left-wall", oracle[0]), ("right-wall", oracle[1])):
        points = knots(picture, kind)
        samples = [t for t, _ in points]
        samples += [(a + b) / 2 for a, b in pairwise(samples)]
        for t in samples:
            assert wall_at(points, t) == oracle_value(wall, t), (kind, t)
    assert mast(picture) == oracle[0][0]
