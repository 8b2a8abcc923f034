"""Laws every short game obeys, checked on random games: the group laws of +, the partial
order, and that canonical forms are what the definition says."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cgt import ZERO, Form, Outcome
from tests.engine.cgt.strategies import games

LAWS = settings(max_examples=60, deadline=None)


@given(games(), games())
@LAWS
def test_sums_commute(g: Form, h: Form) -> None:
    assert g + h == h + g


@given(games(6), games(6), games(6))
@settings(max_examples=30, deadline=None)
def test_sums_associate(g: Form, h: Form, k: Form) -> None:
    assert (g + h) + k == g + (h + k)


@given(games())
@LAWS
def test_negatives_cancel(g: Form) -> None:
    assert g - g == ZERO
    minus = -g
    assert -minus == g
    assert minus + g == ZERO
    assert set(minus.left_options) == {-x for x in g.right_options}
    assert g + ZERO == g
    assert (-g).left_stop == -g.right_stop


@given(games(), games())
@LAWS
def test_order_is_the_sign_of_the_difference(g: Form, h: Form) -> None:
    difference = (h - g).outcome
    assert (g <= h) == (difference in (Outcome.L, Outcome.P))
    assert (g >= h) == (difference in (Outcome.R, Outcome.P))
    assert (g == h) == (difference is Outcome.P)
    assert g.confused_with(h) == (difference is Outcome.N)
    # Exactly one of <, >, =, || holds.
    assert [g < h, g > h, g == h, g.confused_with(h)].count(True) == 1


@given(games(), games(), games())
@settings(max_examples=40, deadline=None)
def test_order_is_transitive_and_compatible_with_sums(g: Form, h: Form, k: Form) -> None:
    if g <= h and h <= k:
        assert g <= k
    assert (g <= h) == (g + k <= h + k)


@given(games())
@LAWS
def test_canonical_forms_have_no_dominated_or_reversible_options(g: Form) -> None:
    lefts, rights = g.left_options, g.right_options
    assert Form.from_options(lefts, rights) == g
    for i, x in enumerate(lefts):
        assert all(x.confused_with(y) for y in lefts[i + 1 :])
        assert not any(reply <= g for reply in x.right_options)
    for i, x in enumerate(rights):
        assert all(x.confused_with(y) for y in rights[i + 1 :])
        assert not any(reply >= g for reply in x.left_options)


@given(games(), st.lists(games(4), max_size=3), st.lists(games(4), max_size=3))
@settings(max_examples=40, deadline=None)
def test_adding_dominated_options_changes_nothing(
    g: Form, more: list[Form], less: list[Form]
) -> None:
    # Left gains options no better than one she has, Right options no better for him.
    lefts = [*g.left_options, *(x for x in more if any(x <= y for y in g.left_options))]
    rights = [*g.right_options, *(x for x in less if any(x >= y for y in g.right_options))]
    assert Form.from_options(lefts, rights) == g


@given(games())
@LAWS
def test_birthday_is_one_more_than_the_latest_option(g: Form) -> None:
    options = g.left_options + g.right_options
    assert g.birthday == (1 + max(x.birthday for x in options) if options else 0)


@given(games())
@LAWS
def test_stops_are_ordered(g: Form) -> None:
    assert g.left_stop >= g.right_stop
    assert g.right_stop <= g.mean <= g.left_stop


@given(games(6), games(6))
@settings(max_examples=40, deadline=None)
def test_mean_adds(g: Form, h: Form) -> None:
    assert (g + h).mean == g.mean + h.mean
