"""Stops, means, temperatures, thermographs, cooling and heating of known games."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.cgt import STAR, UP, Form
from tests.engine.cgt.strategies import games

P = Form.parse
F = Fraction


@pytest.mark.parametrize(
    ("game", "left_stop", "right_stop", "mean", "temperature"),
    [
        ("{1|-1}", 1, -1, 0, 1),
        ("{3|-1}", 3, -1, 1, 2),
        ("{2|-1/2}", 2, F(-1, 2), F(3, 4), F(5, 4)),
        ("{4|2}", 4, 2, 3, 1),
        ("{1|0}", 1, 0, F(1, 2), F(1, 2)),
        ("{2|-1}", 2, -1, F(1, 2), F(3, 2)),
        ("{3||2|1}", 3, 2, F(9, 4), F(3, 4)),
        ("{1/4|-1,{0|-2}}", F(1, 4), -1, F(-3, 8), F(5, 8)),
        ("+-{1,{2|0}}", 1, -1, 0, 1),
        ("{3/2*|1/2||{0|-3},{-1*,{-1/2|-1*}|-5/2}}", F(1, 2), -1, F(-5, 16), F(21, 16)),
        ("+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}", 3, -3, 0, 3),
        # CGSuite's temperatures of numbers and infinitesimals.
        ("0", 0, 0, 0, -1),
        ("5", 5, 5, 5, -1),
        ("1/2", F(1, 2), F(1, 2), F(1, 2), F(-1, 2)),
        ("25/16", F(25, 16), F(25, 16), F(25, 16), F(-1, 16)),
        ("*", 0, 0, 0, 0),
        ("^", 0, 0, 0, 0),
        ("*8", 0, 0, 0, 0),
        ("1/2v*3", F(1, 2), F(1, 2), F(1, 2), 0),
        ("{0||0|-1}", 0, 0, 0, 0),
    ],
)
def test_stops_mean_and_temperature(
    game: str, left_stop: Fraction, right_stop: Fraction, mean: Fraction, temperature: Fraction
) -> None:
    g = P(game)
    assert (g.left_stop, g.right_stop, g.mean, g.temperature) == (
        left_stop,
        right_stop,
        mean,
        temperature,
    )


@pytest.mark.parametrize(
    ("game", "thermograph"),
    [
        ("{3||2|1}", "Thermograph(9/4,[3/4],[0,-1],9/4,[3/4,1/2],[0,1,0])"),
        ("+-1", "Thermograph(0,[1],[0,-1],0,[1],[0,1])"),
        ("{2|-1}", "Thermograph(1/2,[3/2],[0,-1],1/2,[3/2],[0,1])"),
        ("+-(1*)", "Thermograph(0,[1,0],[0,-1,0],0,[1,0],[0,1,0])"),
        ("{1/2|-1/2}", "Thermograph(0,[1/2,-1/2],[0,-1,0],0,[1/2,-1/2],[0,1,0])"),
        ("*", "Thermograph(0,[0],[0,-1],0,[0],[0,1])"),
        ("^", "Thermograph(0,[0],[0,-1],0,[],[0])"),
        ("1/2*", "Thermograph(1/2,[0,-1/2],[0,-1,0],1/2,[0,-1/2],[0,1,0])"),
        ("7", "Thermograph(7,[],[0],7,[],[0])"),
        ("1/2", "Thermograph(1/2,[-1/2],[0,-1],1/2,[-1/2],[0,1])"),
        ("3/4", "Thermograph(3/4,[-1/4,-1/2],[0,-1,0],3/4,[-1/4],[0,1])"),
    ],
)
def test_thermographs(game: str, thermograph: str) -> None:
    assert str(P(game).thermograph) == thermograph


def test_thermograph_of_3_2_1_above_freezing_as_cgsuite_draws_it() -> None:
    # CGSuite: left wall 3 at t = 0 rising to the mast 9/4 at t = 3/4; right wall 2 up to
    # t = 1/2, then slope 1 to the mast.
    graph = P("{3||2|1}").thermograph
    left = [graph.left_wall.value_at(t) for t in (0, F(1, 4), F(3, 4), 2)]
    right = [graph.right_wall.value_at(t) for t in (0, F(1, 2), F(5, 8), F(3, 4), 2)]
    assert left == [3, F(11, 4), F(9, 4), F(9, 4)]
    assert right == [2, 2, F(17, 8), F(9, 4), F(9, 4)]
    assert graph.left_wall.critical_temperatures == (F(3, 4),)
    assert graph.left_wall.slopes == (F(0), F(-1))
    assert graph.mean == F(9, 4)
    assert graph.temperature == F(3, 4)


def test_walls_start_at_minus_one() -> None:
    with pytest.raises(ValueError, match="start at t = -1"):
        P("+-1").thermograph.left_wall.value_at(-2)


@given(games())
@settings(max_examples=60, deadline=None)
def test_walls_at_freezing_are_the_stops(g: Form) -> None:
    graph = g.thermograph
    assert graph.left_wall.value_at(0) == g.left_stop
    assert graph.right_wall.value_at(0) == g.right_stop
    assert graph.mean == g.mean
    if not g.is_nus:
        assert graph.temperature == g.temperature


@pytest.mark.parametrize(
    ("t", "cooled"),
    [(0, "{2|-1}"), (F(1, 2), "{3/2|-1/2}"), (1, "{1|0}"), (F(3, 2), "1/2*"), (2, "1/2")],
)
def test_cooling_a_switch(t: Fraction, cooled: str) -> None:
    assert str(P("{2|-1}").cool(t)) == cooled


def test_cooling_by_the_temperature_leaves_an_infinitesimal() -> None:
    assert P("+-1").cool(1) == STAR
    assert P("+-1").cool(2) == P("0")
    assert P("{3||2|1}").cool(F(3, 4)) - F(9, 4) <= P("^^*")
    assert P("5/8").cool(3) == P("5/8")
    assert UP.cool(F(1, 8)) == P("0")


def test_cooling_needs_a_dyadic_temperature_at_least_zero() -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        P("+-1").cool(-1)
    with pytest.raises(ValueError, match="not a dyadic rational"):
        P("+-1").cool(F(1, 3))


@given(games(6), games(6))
@settings(max_examples=30, deadline=None)
def test_cooling_respects_sums(g: Form, h: Form) -> None:
    # Heating does not: it acts on canonical forms, not on values (as in CGSuite).
    for t in (F(1, 2), 1):
        assert (g + h).cool(t) == g.cool(t) + h.cool(t)


@pytest.mark.parametrize(
    ("game", "heated"),
    [("*", "+-2"), ("^", "{2||0|-4}"), ("^^", "{2||0,+-2|-4}"), ("1/2", "1/2"), ("+-1", "+-3")],
)
def test_heating_by_two(game: str, heated: str) -> None:
    assert str(P(game).heat(2)) == heated


numbers = st.builds(Fraction, st.integers(-16, 16), st.sampled_from([1, 2, 4, 8]))


@given(st.lists(numbers, min_size=1, max_size=3), st.lists(numbers, min_size=1, max_size=3))
@settings(max_examples=40, deadline=None)
def test_cooling_undoes_heating_of_hot_switches_of_numbers(
    lefts: list[Fraction], rights: list[Fraction]
) -> None:
    g = Form.from_options(lefts, rights)
    assume(not g.is_number)
    assert g.heat(1).cool(1) == g
