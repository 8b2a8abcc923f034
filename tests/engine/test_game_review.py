"""`arena analyze --record FILE --game N`: a recorded game reviewed move by move, in text and
JSON, for both games; bad input named in one line with status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.amazons import Position
from engine.bao.position import BaoPosition
from engine.cgt.amazons import RegionSolver
from engine.cgt.form import ZERO
from engine.cli import main
from engine.game_review import evaluation_blocks, review_record
from engine.judge import judge
from engine.records import GameRecord

# White to move wins with some moves and loses with others (as in test_judge).
ENDGAME = "B2W/xxxx/1W2 w"


def _thrown_away() -> GameRecord:
    """White throws the won endgame away, then both play on to Black's win."""
    position = Position.parse(ENDGAME)
    throw = next(str(o.move) for o in RegionSolver().move_values(position) if not o.value <= ZERO)
    moves = [throw]
    position.apply(position.parse_move(throw))
    while not position.is_terminal():
        move = judge("amazons", position.text(), effort=1).line[0]
        moves.append(move)
        position.apply(position.parse_move(move))
    return GameRecord("amazons", ENDGAME, "ann", "bob", moves=moves, winner="black")


def _bao() -> GameRecord:
    position = BaoPosition()
    moves = []
    for _ in range(4):
        move = str(position.legal_moves[0])
        moves.append(move)
        position.apply(position.parse_move(move))
    return GameRecord("bao", BaoPosition().text(), "cat", "dan", moves=moves)


def _file(tmp_path: Path, *records: GameRecord) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in records))
    return path


def test_a_thrown_away_endgame_is_printed_with_its_blunder_and_the_better_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _thrown_away()
    path = _file(tmp_path, _bao(), record)
    assert main(["analyze", "--record", str(path), "--game", "2", "--effort", "1"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == f"game 2 of {path}: amazons, white ann, black bob; black won"
    assert lines[1] == "judged at effort 1: every position exact"
    assert lines[3] == "█" + "▁" * len(record.moves)
    better = judge("amazons", ENDGAME, effort=1).line[0]
    assert lines[4].split() == [
        "1.",
        "white",
        record.moves[0],
        "White",
        "0%",
        "exact",
        "blunder",
        "(-100%),",
        "better",
        better,
    ]
    white_moves = len(record.moves[::2])
    assert lines[-2] == (
        f"white: 0 inaccuracies, 0 mistakes, 1 blunder, average loss {round(100 / white_moves)}%"
    )
    assert lines[-1] == "black: 0 inaccuracies, 0 mistakes, 0 blunders, average loss 0%"
    total = len(record.moves) + 1
    assert captured.err.splitlines()[-1] == f"game 2 of {path}: {total} of {total} positions judged"


def test_a_bao_game_is_reviewed_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _bao()
    path = _file(tmp_path, record)
    assert main(["analyze", "--record", str(path), "--effort", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == "bao"
    assert [j["position"] for j in data["judgements"]] == [
        j.position for j in review_record(record, effort=1).judgements
    ]
    assert [m["move"] for m in data["moves"]] == record.moves
    assert all(j["depth"] == 6 for j in data["judgements"])
    assert [s["player"] for s in data["summary"]] == ["white", "black"]


def test_a_position_of_a_record_is_still_analysed_by_its_regions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, _thrown_away())
    assert main(["analyze", "--record", str(path), "--ply", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["position"] == ENDGAME


def test_blocks_run_from_empty_to_full() -> None:
    assert evaluation_blocks([0.0, 0.49, 0.5, 1.0, 0.12, 0.13]) == "▁▄▅█▁▂"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (None, ["--game", "1"], "cannot read {path}: No such file or directory"),
        ("{not json\n", ["--game", "1"], "{path}:1: not a game record"),
        ('{"game": "amazons"}\n', [], "{path}:1: not a game record"),
        ("good", ["--game", "3"], "{path} has 1 game: there is no game 3 (games count from 1)"),
        ("good", ["--game", "bao"], "--game bao with --record: name the game in the file by"),
        ("illegal", [], "move 2 'a1-a2/a1': "),
    ],
)
def test_bad_input_is_named_in_one_line_with_status_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    args: list[str],
    message: str,
) -> None:
    path = tmp_path / "games.jsonl"
    if content == "good":
        path = _file(tmp_path, _bao())
    elif content == "illegal":
        record = _bao()
        record.moves[1] = "a1-a2/a1"
        path = _file(tmp_path, record)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", "--record", str(path), "--effort", "1", *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("arena analyze: error: ")
    assert message.format(path=path) in err
    assert err.count("\n") == 1
    assert "Traceback" not in err
