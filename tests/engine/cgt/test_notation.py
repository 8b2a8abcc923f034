"""CGSuite's notation: what games print as, what the reader accepts, and its error messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from engine.cgt import Form
from engine.errors import NotationError
from tests.engine.cgt.strategies import games

P = Form.parse

# The 2x4 Amazons board x...|o... as CGSuite prints it (GameGridTest.scala).
AMAZONS_2X4 = "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}"


@pytest.mark.parametrize(
    "printed",
    [
        "0",
        "-7",
        "1/2",
        "-3/4",
        "25/16",
        "*",
        "*12",
        "^",
        "v",
        "^^",
        "vv",
        "^3",
        "v5",
        "^*",
        "v*",
        "^^*",
        "^*6",
        "vv*3",
        "1*",
        "1/2*",
        "-2^",
        "1/2v*2",
        "73/16v9*8",
        "+-1",
        "+-1/2",
        "+-{2|1}",
        "+-(1*)",
        "+-^^",
        "+-{1,{2|0}}",
        "{1|0}",
        "{3||2|1}",
        "{4|0,{1|0,*}}",
        "{0||0|-1}",
        "{1/2|0||-1}",
        "{3/2*|1/2||{0|-3},{-1*,{-1/2|-1*}|-5/2}}",
        "+-{10|8||6|4|||4|2||0|-2}",
        "{^|*||*|||*}",
        AMAZONS_2X4,
    ],
)
def test_prints_as_cgsuite_and_reads_back(printed: str) -> None:
    assert str(P(printed)) == printed


@pytest.mark.parametrize(
    ("variant", "printed"),
    [
        ("^2", "^^"),
        ("v2*", "vv*"),
        ("^1", "^"),
        ("2.^", "2^"),
        ("1.*", "1*"),
        ("*1", "*"),
        ("*0", "0"),
        (" { 1 , { 2 | 0 } | -1 , { 0 | -2 } } ", "+-{1,{2|0}}"),
        ("{1, {2|0}|-1, {0|-2}}", "+-{1,{2|0}}"),  # cgt-py's spelling
        ("{3|{2|1}}", "{3||2|1}"),
        ("{{2|1}|0}", "{2|1||0}"),
        ("{{{3|2}|1}|0}", "{3|2||1|||0}"),
        ("{{{{4|3}|2}|1}|0}", "{4|3||2|||1||||0}"),
        ("{{{{{5|4}|3}|2}|1}|0}", "{{5|4||3|||2||||1}|0}"),
        ("{0|*||*|||*||||*}", "{^|*||*|||*}"),
        ("+-{1,*}", "+-1"),
        ("± 1", "+-1"),
        ("-{1|0}", "{0|-1}"),
        ("-(1^*)", "-1v*"),
        ("-1v*", "-1v*"),
        ("-^", "v"),
        ("(^)+(^)", "^^"),
        ("1 - ^", "1v"),
        ("+1", "1"),
        ("2/4", "1/2"),
        ("-0", "0"),
        ("{2|+-1}", "{2|+-1}"),
        ("{+-1|}", "0"),
        ("3+-1", "{4|2}"),
    ],
)
def test_reads_other_spellings(variant: str, printed: str) -> None:
    assert str(P(variant)) == printed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty game text"),
        ("   ", "empty game text"),
        ("{1|2|3}", r"ambiguous \|: a second one at the same level at column 5"),
        ("{1||2||3}", r"ambiguous \|\|: a second one at the same level at column 6"),
        ("1/3", "1/3 is not a dyadic rational .* at column 1"),
        ("1/0", "1/0 divides by zero at column 1"),
        ("{1|", "expected '}', found the end"),
        ("{1|0}}", r"expected the end of the game, found '}' at column 6"),
        ("{a|b}", "unexpected 'a' at column 2"),
        ("{1,2}", r"options without a slash \({a,b} needs \+- before it\) at column 1"),
        ("{1,|0}", "expected a game, found '|' at column 4"),
        ("*1/2", "expected a whole number, found '1/2' at column 2"),
        ("^v", "expected the end of the game, found 'v' at column 2"),
        ("+-{}", "expected options after \\+-"),
        ("1 2", "expected the end of the game, found '2' at column 3"),
    ],
)
def test_errors_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        P(text)


def test_notation_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="ambiguous"):
        P("{1|2|3}")


@given(games())
@settings(max_examples=150, deadline=None)
def test_every_game_reads_back_from_its_text(g: Form) -> None:
    text = str(g)
    assert P(text) == g
    assert str(P(text)) == text


@given(games())
@settings(max_examples=40, deadline=None)
def test_repr_pastes_back(g: Form) -> None:
    assert eval(repr(g), {"Form": Form}) == g


def test_options_come_in_cgsuite_order() -> None:
    assert [str(x) for x in P(AMAZONS_2X4).left_options] == [
        "3",
        "{4|0,{1|0,*}}",
        "{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}",
    ]
    assert [str(x) for x in P("*3").right_options] == ["0", "*", "*2"]
