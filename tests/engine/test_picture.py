"""Board pictures (engine.picture) of both games and `arena show --svg`: the SVG parses, and
has the pieces, the burnt squares, the coordinates and the last move of known positions."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine.amazons import Position
from engine.bao.position import BaoPosition
from engine.cli import main
from engine.picture import NoPictureError, game_caption, game_svg, position_svg
from engine.records import GameRecord

SVG = "{http://www.w3.org/2000/svg}"
AMAZONS_START = Position.setup("10x10").text()
BAO_START = BaoPosition().text()


def parsed(picture: str) -> ET.Element:
    root = ET.fromstring(picture.encode())
    assert root.tag == f"{SVG}svg"
    return root


def having(root: ET.Element, kind: str) -> list[ET.Element]:
    """The elements whose class list has `kind`."""
    return [e for e in root.iter() if kind in (e.get("class") or "").split()]


def words(root: ET.Element, kind: str) -> list[str]:
    return [e.text or "" for e in having(root, kind)]


def test_an_amazons_move_is_drawn_with_its_path_and_its_arrow() -> None:
    moves = ["d1-d7/g7"]
    root = parsed(game_svg("amazons", AMAZONS_START, moves, 1, "after d1-d7/g7"))
    white = sorted(e.get("data-at") or "" for e in having(root, "white") if e.tag == f"{SVG}g")
    black = sorted(e.get("data-at") or "" for e in having(root, "black") if e.tag == f"{SVG}g")
    assert white == ["a4", "d7", "g1", "j4"]
    assert black == ["a7", "d10", "g10", "j7"]
    assert [e.get("data-at") for e in having(root, "burnt")] == ["g7"]
    assert [e.get("data-at") for e in having(root, "last-from")] == ["d1"]
    assert [e.get("data-at") for e in having(root, "last-to")] == ["d7"]
    assert [e.get("data-at") for e in having(root, "last-arrow")] == ["g7", "g7"]  # square, arrow
    (queen,) = having(root, "queen")
    (shot,) = having(root, "shot")
    assert (queen.get("data-from"), queen.get("data-to")) == ("d1", "d7")
    assert (shot.get("data-from"), shot.get("data-to")) == ("d7", "g7")
    assert words(root, "coordinate") == [*"abcdefghij", *map(str, range(1, 11))]
    assert words(root, "caption") == ["after d1-d7/g7"]
    assert len(having(root, "square")) == 100


def test_an_amazons_position_without_a_move_marks_none() -> None:
    position = Position.parse("W1x2/xxx2/B1xWB b")
    root = parsed(position_svg(position))
    assert sorted(e.get("data-at") or "" for e in having(root, "burnt")) == [
        "a2", "b2", "c1", "c2", "c3",
    ]  # fmt: skip
    assert not having(root, "last-move")
    assert not having(root, "last-from")
    assert words(root, "caption") == ["black to move"]
    assert words(root, "coordinate") == [*"abcde", "1", "2", "3"]


def test_an_arrow_shot_back_where_the_amazon_came_from() -> None:
    root = parsed(game_svg("amazons", "W1/2 w", ["a2-b2/a2"], 1))
    assert [e.get("data-at") for e in having(root, "burnt")] == ["a2"]
    (shot,) = having(root, "shot")
    assert (shot.get("data-from"), shot.get("data-to")) == ("b2", "a2")


def test_a_bao_sowing_is_drawn_with_its_pit_its_way_and_the_pits_it_changed() -> None:
    # From the start, A6> puts a seed from South's store into A6 (2 seeds, now 3) and sows
    # them into A7 (2, now 3), A8 (now 1) and round the corner into B8 (now 1).
    root = parsed(game_svg("bao", BAO_START, ["A6>"], 1, game_caption("s", "n", ["A6>"], 1)))
    pits = {
        (e.get("data-side"), e.get("data-pit")): int(e.get("data-seeds") or -1)
        for e in having(root, "pit")
    }
    assert len(pits) == 32
    south = {pit: seeds for (side, pit), seeds in pits.items() if side == "south" and seeds}
    north = {pit: seeds for (side, pit), seeds in pits.items() if side == "north" and seeds}
    assert south == {"A5": 6, "A7": 3, "A8": 1, "B8": 1}
    assert north == {"A5": 6, "A6": 2, "A7": 2}
    (last,) = having(root, "last")
    assert (last.get("data-side"), last.get("data-pit"), last.get("data-seeds")) == (
        "south", "A6", "0",
    )  # fmt: skip
    sown = {(e.get("data-side"), e.get("data-pit")) for e in having(root, "sown")}
    assert sown == {("south", "A7"), ("south", "A8"), ("south", "B8")}
    (way,) = having(root, "last-move")
    assert (way.get("data-side"), way.get("data-pit"), way.get("data-way")) == (
        "south", "A6", ">",
    )  # fmt: skip
    # A6's arrow points right, at A7: South's front row runs A1..A8 from the left.
    assert float(way.get("x2") or 0) > float(way.get("x1") or 0)
    assert words(root, "caption") == ["s (White) vs n (Black) · ply 1: A6>"]
    assert sorted(e.get("data-side") or "" for e in having(root, "house")) == ["north", "south"]
    sides = words(root, "side")
    assert sides == [
        "North (Black) · store 22 · namua · to move",
        "South (White) · store 21 · namua",
    ]
    assert words(root, "coordinate") == ["B", "A", "A", "B", *"81726354453627181"[:16]]


def test_north_s_sowing_is_marked_on_north_s_side() -> None:
    root = parsed(game_svg("bao", BAO_START, ["A6>", "A7>"], 2))
    (last,) = having(root, "last")
    assert (last.get("data-side"), last.get("data-pit")) == ("north", "A7")
    (way,) = having(root, "last-move")
    # North's front row runs A1..A8 from the right as South sees it: > goes left.
    assert float(way.get("x2") or 0) < float(way.get("x1") or 0)


def test_a_ply_off_the_game_is_refused() -> None:
    with pytest.raises(ValueError, match="there is no ply 3: the game has plies 0 to 2"):
        game_svg("bao", BAO_START, ["A6>", "A7>"], 3)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def records(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    games = [
        GameRecord("amazons", AMAZONS_START, "ann", "bob", moves=["d1-d7/g7", "a7-b6/a7"]),
        GameRecord("bao", BAO_START, "cat", "dan", moves=["A6>", "A7>"]),
    ]
    path.write_text("".join(game.to_json() + "\n" for game in games))
    return path


def test_show_svg_of_a_recorded_amazons_game(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path
) -> None:
    out_file = tmp_path / "board.svg"
    status, out, err = run(
        capsys, "show", "--record", str(records), "--ply", "1", "--svg", str(out_file)
    )
    assert (status, out, err) == (0, f"board picture written to {out_file}\n", "")
    root = ET.parse(out_file).getroot()
    (queen,) = having(root, "queen")
    assert (queen.get("data-from"), queen.get("data-to")) == ("d1", "d7")
    assert words(root, "caption") == ["ann (White) vs bob (Black) · ply 1: d1-d7/g7"]


def test_show_svg_of_a_recorded_bao_game(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path
) -> None:
    out_file = tmp_path / "bao.svg"
    status, _, err = run(
        capsys, "show", "--record", str(records), "--game", "2", "--svg", str(out_file)
    )
    assert (status, err) == (0, "")
    root = ET.parse(out_file).getroot()
    (last,) = having(root, "last")
    assert (last.get("data-side"), last.get("data-pit")) == ("north", "A7")


def test_show_svg_of_position_text_of_both_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, _ = run(
        capsys, "show", "--fen", "W1x2/xxx2/B1xWB b", "--svg", str(tmp_path / "a.svg")
    )
    assert status == 0
    assert len(having(ET.parse(tmp_path / "a.svg").getroot(), "burnt")) == 5
    status, _, _ = run(capsys, "show", "--game", "bao", "--svg", str(tmp_path / "b.svg"))
    assert status == 0
    assert len(having(ET.parse(tmp_path / "b.svg").getroot(), "pit")) == 32


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--record", "RECORDS", "--ply", "3"],
            "game 1 of RECORDS has 2 moves: there is no ply 3 (0 to 2)",
        ),
        (
            ["--record", "RECORDS", "--game", "3"],
            "RECORDS has 2 games: there is no game 3 (games count from 1)",
        ),
        (
            ["--svg", "FOLDER/none/x.svg"],
            "cannot write FOLDER/none/x.svg: No such file or directory",
        ),
        (["--game", "bao", "--fen", "A6>"], "Bao position text has 7 fields"),
    ],
)
def test_show_svg_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    def placed(text: str) -> str:
        return text.replace("RECORDS", str(records)).replace("FOLDER", str(tmp_path))

    arguments = [placed(a) for a in args]
    if "--svg" not in arguments:
        arguments += ["--svg", str(tmp_path / "x.svg")]
    status, out, err = run(capsys, "show", *arguments)
    assert (status, out) == (2, "")
    assert err.startswith("arena show: error: " + placed(message)), err
    assert err.count("\n") == 1, err
    assert not (tmp_path / "x.svg").exists()


def test_a_game_without_a_drawing_says_so() -> None:
    with pytest.raises(NoPictureError, match=r"^there is no picture of a takeaway board$"):
        game_svg("takeaway", "21 w", ["2"], 1)


def test_show_svg_of_a_game_without_a_drawing_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(capsys, "show", "--game", "takeaway", "--svg", str(tmp_path / "t.svg"))
    assert (status, out) == (2, "")
    assert err == "arena show: error: there is no picture of a takeaway board\n"
