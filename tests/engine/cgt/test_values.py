"""Canonical forms of known games: identities, the census, sums, comparisons and outcomes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.cgt import DOWN, ONE, STAR, UP, ZERO, Form, Outcome, born_by, forms

P = Form.parse


@pytest.mark.parametrize(
    ("built", "value"),
    [
        ("{|}", "0"),
        ("{0|}", "1"),
        ("{|0}", "-1"),
        ("{0|0}", "*"),
        ("{0|*}", "^"),
        ("{*|0}", "v"),
        ("{0,*|0}", "^*"),
        ("{0|0,*}", "v*"),
        ("{0,*|0,*}", "*2"),
        ("{0,*,*2|0,*,*2}", "*3"),
        ("{0|1}", "1/2"),
        ("{0|1/2}", "1/4"),
        ("{1|-1}", "+-1"),
        ("{0|^*}", "^^"),
        ("{0|^}", "^^*"),
        ("{0|^*5}", "^^*4"),
        # The simplest-number rule and dominated options.
        ("{1/2|2}", "1"),
        ("{3/4|7/8}", "13/16"),
        ("{0|2}", "1"),
        ("{1,2|}", "3"),
        # Reversible options.
        ("{1vv*|1}", "1v3"),
        ("{|{^|-2}}", "0"),
        ("{*,*2|*,*2}", "0"),
        ("{0,*2|0,*2}", "*"),
        ("{^|v}", "*"),
        ("{-1|1}", "0"),
        ("{1,*|-1,*}", "+-1"),  # * < 1 is dominated
        ("{1,{2|0}|-1,{0|-2}}", "+-{1,{2|0}}"),
    ],
)
def test_options_reduce_to_the_known_canonical_form(built: str, value: str) -> None:
    assert P(built) == P(value)
    assert str(P(built)) == value


def test_the_census_counts_games_born_by_each_day() -> None:
    assert [len(born_by(day)) for day in range(4)] == [1, 4, 22, 1474]


def test_day_one_is_zero_star_one_and_minus_one() -> None:
    assert sorted(str(g) for g in born_by(1)) == ["*", "-1", "0", "1"]


def test_games_born_by_day_two_are_distinct_and_born_by_then() -> None:
    games = born_by(2)
    assert len({str(g) for g in games}) == 22
    assert max(g.birthday for g in games) == 2
    assert {"^", "v", "*2", "^*", "v*", "+-1", "1/2", "-1/2", "2", "-2", "1*", "-1*"} <= {
        str(g) for g in games
    }


def test_nimbers_add_by_xor() -> None:
    for a in range(8):
        for b in range(8):
            assert Form.nimber(a) + Form.nimber(b) == Form.nimber(a ^ b)


def test_nimbers_built_from_options_are_nimbers() -> None:
    for k in range(6):
        options = [Form.nimber(i) for i in range(k)]
        assert Form.from_options(options, options) == Form.nimber(k)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("^ + v", "0"),
        ("* + *", "0"),
        ("*3 + *5", "*6"),
        ("^ + ^", "^^"),
        ("^ + ^ + *", "^^*"),
        ("^ + ^ + ^", "^3"),
        ("^* + ^*", "^^"),
        ("v + v + v + *2", "v3*2"),
        ("1/2 + 1/2", "1"),
        ("1/4 + 1/2", "3/4"),
        ("3/4 + -1", "-1/4"),
        ("1 + ^ + *", "1^*"),
        ("+-1 + +-1", "0"),
        ("{1|0} + {0|1}", "{3/2|1/2}"),
        ("+-1+-2+-3+-4", "+-{10|8||6|4|||4|2||0|-2}"),
        ("3 +- 1", "{4|2}"),
        ("{3||2|1} - {3||2|1}", "0"),
        ("6 + ^*", "6^*"),
        ("73/16 + v9*8", "73/16v9*8"),
    ],
)
def test_sums(expression: str, value: str) -> None:
    assert str(P(expression)) == value


def test_arithmetic_mixes_in_ints_and_fractions() -> None:
    assert P("1^") == UP + 1
    assert P("1v") == 1 - UP
    assert STAR + Fraction(1, 2) == P("1/2*")
    assert -P("{3||2|1}") == P("{-1|-2||-3}")
    with pytest.raises(ValueError, match="not a dyadic rational"):
        _ = UP + Fraction(1, 3)


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [
        ("0", "^"),
        ("v", "0"),
        ("0", "^^*"),
        ("-1", "*"),
        ("*", "1"),
        ("0", "{0||0|-1}"),  # tiny-1 ...
        ("{0||0|-1}", "^"),  # ... is smaller than up
        ("1/2", "1"),
        ("^", "1/64"),
        ("{1|-1}", "2"),
        ("{0|-1}", "{1|0}"),
    ],
)
def test_strict_order(smaller: str, larger: str) -> None:
    a, b = P(smaller), P(larger)
    assert a < b
    assert b > a
    assert a <= b
    assert not b <= a
    assert not a.confused_with(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("*", "0"),
        ("^*", "0"),
        ("v*", "0"),
        ("*2", "*"),
        ("{1|0}", "1/2"),
        ("+-1", "0"),
        ("+-1", "1/2"),
        ("{3||2|1}", "9/4"),
        ("^", "*"),
    ],
)
def test_confused_pairs(a: str, b: str) -> None:
    g, h = P(a), P(b)
    assert g.confused_with(h)
    assert h.confused_with(g)
    assert not g <= h
    assert not g >= h
    assert g != h


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        ("0", Outcome.P),
        ("+-1 + +-1", Outcome.P),
        ("*", Outcome.N),
        ("+-1", Outcome.N),
        ("^*", Outcome.N),
        ("^", Outcome.L),
        ("1/2", Outcome.L),
        ("{3||2|1}", Outcome.L),
        ("v", Outcome.R),
        ("-1*", Outcome.R),
    ],
)
def test_outcome_classes(value: str, outcome: Outcome) -> None:
    assert P(value).outcome is outcome


# CGSuite's own test table (CanonicalShortGameTestCase): input, output, birthday, stops and
# options.
CGSUITE = [
    ("0", "0", 0, "0", "0", [], []),
    ("5", "5", 5, "5", "5", ["4"], []),
    ("-1823437481924", "-1823437481924", 1823437481924, "-1823437481924", "-1823437481924",
     [], ["-1823437481923"]),
    ("-1/2", "-1/2", 2, "-1/2", "-1/2", ["-1"], ["0"]),
    ("25/16", "25/16", 6, "25/16", "25/16", ["3/2"], ["13/8"]),
    ("*8", "*8", 8, "0", "0", ["0", "*", "*2", "*3", "*4", "*5", "*6", "*7"],
     ["0", "*", "*2", "*3", "*4", "*5", "*6", "*7"]),
    ("^", "^", 2, "0", "0", ["0"], ["*"]),
    ("v*", "v*", 2, "0", "0", ["0"], ["0", "*"]),
    ("6+^*", "6^*", 8, "6", "6", ["6", "6*"], ["6"]),
    ("^*6", "^*6", 8, "0", "0", ["0"], ["*7"]),
    ("73/16+v9*8", "73/16v9*8", 27, "73/16", "73/16", ["73/16v8*9"], ["73/16"]),
    ("{0|*||*|||*||||*}", "{^|*||*|||*}", 5, "0", "0", ["{^|*||*}"], ["*"]),
    ("{0||0|v*}", "{0||0|v*}", 4, "0", "0", ["0"], ["{0|v*}"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("given", "printed", "birthday", "left_stop", "right_stop", "lefts", "rights"),
    CGSUITE,
    ids=[row[0] for row in CGSUITE],
)
def test_cgsuite_table(
    given: str,
    printed: str,
    birthday: int,
    left_stop: str,
    right_stop: str,
    lefts: list[str],
    rights: list[str],
) -> None:
    g = P(given)
    assert str(g) == printed
    assert g.birthday == birthday
    assert g.left_stop == Fraction(left_stop)
    assert g.right_stop == Fraction(right_stop)
    assert sorted(str(x) for x in g.left_options) == sorted(lefts)
    assert sorted(str(x) for x in g.right_options) == sorted(rights)


def test_equal_values_share_one_id() -> None:
    before = forms.size()
    assert P("{0,*|0,*}").id == P("*2").id == Form.nimber(2).id
    assert P("{1|-1}").id == (P("{1|-1}") + ZERO).id
    assert forms.size() - before <= 1  # *2 at most, if nothing built it before


def test_a_huge_integer_does_not_build_its_chain_of_options() -> None:
    before = forms.size()
    big = Form.number(10**15)
    assert [str(x) for x in big.left_options] == [str(10**15 - 1)]
    assert big.right_options == ()
    assert big.birthday == 10**15
    assert forms.size() - before <= 2


def test_number_nimber_and_nus_constructors() -> None:
    assert Form.number(Fraction(-3, 4)) == P("-3/4")
    assert Form.nus(Fraction(1, 2), -2, 3) == P("1/2vv*3")
    assert Form.nus(ups=1) == UP
    assert Form.nus(ups=-1) == DOWN
    assert Form.nimber(1) == STAR
    assert Form.number(1) == ONE
    assert P("1/2vv*3").nus_parts == (Fraction(1, 2), -2, 3)
    assert P("{1|0}").nus_parts is None
    with pytest.raises(ValueError, match="not a dyadic rational"):
        Form.number(Fraction(2, 3))


def test_kinds() -> None:
    assert P("5").is_integer
    assert P("1/2").is_number
    assert not P("1/2").is_integer
    assert P("*3").is_nimber
    assert not P("^").is_nimber
    assert P("1^*").is_nus
    assert P("^*").is_infinitesimal
    assert P("{0||0|-1}").is_infinitesimal
    assert not P("1*").is_infinitesimal
    assert P("+-{1,{2|0}}").is_switch
    assert not P("*").is_switch
    assert not P("{4|2}").is_switch


def test_equality_is_between_games_only() -> None:
    assert ONE != 1
    assert Form.number(1) == ONE
    assert ONE <= 1 <= ONE
    assert len({P("*"), P("{0|0}"), STAR}) == 1


def test_number_up_star_birthdays_in_closed_form_match_their_options() -> None:
    for number in (Fraction(0), Fraction(3), Fraction(-5, 4)):
        for ups in range(-4, 5):
            for nimber in range(6):
                g = Form.nus(number, ups, nimber)
                options = g.left_options + g.right_options
                assert g.birthday == (1 + max(x.birthday for x in options) if options else 0)


def test_long_chains_of_options_are_not_walked() -> None:
    # These would exhaust Python's recursion limit if walked option by option.
    assert Form.nimber(5000).birthday == 5000
    assert Form.nus(0, 3000, 7).birthday == 3007
    assert Form.nimber(5000).temperature == 0
    assert str(Form.nimber(5000).thermograph) == str(STAR.thermograph)
    assert Form.nimber(5000) + Form.nimber(5001) == STAR
    assert Form.nus(0, 3000) > Form.nus(0, 2998, 1)
    assert Form.nus(0, 3000).confused_with(Form.nus(0, 2999, 1))


def test_construct_on_ids_takes_duplicates_and_remembers_what_it_built() -> None:
    star = forms.construct([forms.ZERO, forms.ZERO], [forms.ZERO])
    assert star == forms.STAR
    g = forms.construct([forms.UP, forms.STAR, forms.ZERO], [forms.ONE])
    before = forms.size()
    assert forms.construct([forms.ZERO, forms.UP, forms.STAR], [forms.ONE, forms.ONE]) == g
    forms.forget_operations()
    assert forms.construct([forms.STAR, forms.UP, forms.ZERO], [forms.ONE]) == g
    assert forms.size() == before


def test_games_are_immutable() -> None:
    g = P("^")
    with pytest.raises(AttributeError, match="no setter"):
        g.id = 0  # type: ignore[misc]
    assert g == UP
