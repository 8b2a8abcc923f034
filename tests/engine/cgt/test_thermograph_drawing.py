"""Thermographs drawn: the SVG's walls and mast at chosen temperatures for games whose
thermographs are worked out by hand, the text drawing, and `arena cgt thermograph`."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import pytest

from engine.cgt import Form
from engine.cgt.thermograph_drawing import thermograph_svg, thermograph_text
from engine.cli import main

SVG = "{http://www.w3.org/2000/svg}"
F = Fraction


def knots(picture: ET.Element, kind: str) -> list[tuple[Fraction, Fraction]]:
    """The exact (t, value) knots the picture's wall of this kind is drawn through."""
    (line,) = [e for e in picture.iter(f"{SVG}polyline") if e.get("class") == kind]
    return [
        (F(t), F(v)) for t, v in (pair.split(",") for pair in line.get("data-knots", "").split())
    ]


def wall_at(points: list[tuple[Fraction, Fraction]], t: Fraction) -> Fraction:
    for (t0, v0), (t1, v1) in pairwise(points):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    raise AssertionError(f"t = {t} is not on the wall {points}")


def drawn(game: str) -> ET.Element:
    picture = ET.fromstring(thermograph_svg(Form.parse(game)))
    assert picture.tag == f"{SVG}svg"
    return picture


def mast(picture: ET.Element) -> Fraction:
    (line,) = [e for e in picture.iter() if e.get("class") == "mast"]
    return F(line.get("data-value", ""))


# By hand: {2|-1} has walls 2 - t and -1 + t meeting at t = 3/2 over the mean 1/2. In
# {{3|1}|-2} the left scaffold is {3|1}'s right wall (1 + t up to t = 1, then 2) tilted by -t:
# 1 up to t = 1, then 2 - t, meeting -2 + t at t = 2 over 0. In {3||2|1} the right scaffold is
# {2|1}'s left wall (2 - t to t = 1/2, then 3/2) tilted by +t: 2, then 3/2 + t, meeting 3 - t
# at t = 3/4 over 9/4. A switch +-x has walls x - t and -x + t meeting at t = x over 0.
WALLS = [
    (
        "{2|-1}",
        F(3, 2),
        F(1, 2),
        [(F(0), F(2), F(-1)), (F(1, 2), F(3, 2), F(-1, 2)), (F(1), F(1), F(0))],
    ),
    (
        "{{3|1}|-2}",
        F(2),
        F(0),
        [(F(1, 2), F(1), F(-3, 2)), (F(1), F(1), F(-1)), (F(3, 2), F(1, 2), F(-1, 2))],
    ),
    ("{3||2|1}", F(3, 4), F(9, 4), [(F(1, 4), F(11, 4), F(2)), (F(5, 8), F(19, 8), F(17, 8))]),
    ("+-1", F(1), F(0), [(F(0), F(1), F(-1)), (F(1, 2), F(1, 2), F(-1, 2))]),
    ("+-{3|1}", F(2), F(0), [(F(1, 2), F(1), F(-1)), (F(3, 2), F(1, 2), F(-1, 2))]),
]


@pytest.mark.parametrize(("game", "temperature", "mean", "samples"), WALLS)
def test_the_svg_walls_at_chosen_temperatures(
    game: str,
    temperature: Fraction,
    mean: Fraction,
    samples: list[tuple[Fraction, Fraction, Fraction]],
) -> None:
    picture = drawn(game)
    left, right = knots(picture, "left-wall"), knots(picture, "right-wall")
    for t, left_value, right_value in samples:
        assert (wall_at(left, t), wall_at(right, t)) == (left_value, right_value), t
    # Both walls end where the mast starts: at the temperature, over the mean.
    assert left[-1] == right[-1] == (temperature, mean)
    assert mast(picture) == mean
    words = " ".join(e.text or "" for e in picture.iter(f"{SVG}text"))
    assert f"Thermograph of {Form.parse(game)}" in words
    assert "left wall" in words
    assert "right wall" in words
    assert f"mast: mean {mean}" in words
    assert "temperature t" in words


@pytest.mark.parametrize(
    ("game", "mean"), [("1/2", F(1, 2)), ("7", F(7)), ("*", F(0)), ("^", F(0))]
)
def test_numbers_and_infinitesimals_are_a_mast_alone(game: str, mean: Fraction) -> None:
    picture = drawn(game)
    assert not [e for e in picture.iter(f"{SVG}polyline")]
    assert mast(picture) == mean


def test_the_text_drawing_of_2_minus_1() -> None:
    assert thermograph_text(Form.parse("{2|-1}")) == (
        "         |          t = 5/2\n"
        "         |\n"
        "         |\n"
        "         |\n"
        "         |          t = 3/2 (temperature)\n"
        "        / \\\n"
        "       /   \\\n"
        "      /     \\\n"
        "     /       \\\n"
        "    /         \\\n"
        "   /           \\    t = 0\n"
        "-------------------\n"
        "   ^     ^     ^\n"
        "Thermograph of {2|-1}: left stop 2, mean 1/2, right stop -1, temperature 3/2\n"
        "left wall: what Left (Black) gets moving first when each move costs t "
        "(left stop 2 at t = 0)\n"
        "right wall: what Right (White) gets moving first when each move costs t "
        "(right stop -1 at t = 0)\n"
        "mast: the mean 1/2, where the walls meet at the temperature 3/2; "
        "above it no one wants to move here\n"
    )


def test_the_text_drawing_bends_where_the_wall_does() -> None:
    """{{3|1}|-2}: the left wall stands at 1 up to t = 1, then leans in; the right one leans
    all the way."""
    rows = thermograph_text(Form.parse("{{3|1}|-2}")).splitlines()
    base = next(i for i, row in enumerate(rows) if row.startswith("---"))
    walls = rows[base - 8 : base]  # t = 2 - 1/4 down to t = 0, four rows a unit
    assert [row.strip()[0] for row in walls] == ["/"] * 4 + ["|"] * 4
    assert [row.partition("t =")[0].rstrip()[-1] for row in walls] == ["\\"] * 8


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_command_prints_a_drawing(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "cgt", "thermograph", "{2|-1}")
    assert (status, err) == (0, "")
    assert out == thermograph_text(Form.parse("{2|-1}"))


def test_the_command_writes_an_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hot.svg"
    status, out, err = run(capsys, "cgt", "thermograph", "{3||2|1}", "--svg", str(path))
    assert (status, out, err) == (0, f"thermograph of {{3||2|1}} written to {path}\n", "")
    assert knots(ET.parse(path).getroot(), "left-wall")[-1] == (F(3, 4), F(9, 4))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{2|"], "arena cgt: error: expected '}', found the end at column 4 of game text '{2|'"),
        (["1/3"], "arena cgt: error: 1/3 is not a dyadic rational"),
        (
            ["{2|-1}", "--svg", "MISSING/x.svg"],
            "arena cgt: error: cannot write MISSING/x.svg: No such file or directory",
        ),
        (["{2|-1}", "--svg", "FOLDER"], "arena cgt: error: cannot write FOLDER: Is a directory"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    def placed(text: str) -> str:
        return text.replace("MISSING", str(tmp_path / "none")).replace("FOLDER", str(tmp_path))

    status, out, err = run(capsys, "cgt", "thermograph", *map(placed, args))
    assert (status, out) == (2, "")
    assert err.startswith(placed(message)), err
    assert err.count("\n") == 1, err
