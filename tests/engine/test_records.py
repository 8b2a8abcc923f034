"""Game records: what every record carries, records written before some fields, and positions
taken from a file of records by game and ply."""

from __future__ import annotations

import datetime
import io
import json
from pathlib import Path

import pytest

from engine.amazons import Position
from engine.cli import main
from engine.records import GameRecord, read_records
from engine.search.match import run_match

# A record as written before game ids, dates and ratings (its moves are added below).
OLD: dict[str, object] = {
    "game": "amazons",
    "start": Position.setup("6x6").text(),
    "white": "random:seed=0",
    "black": "random:seed=1",
    "moves": [],
    "seconds": [],
    "nodes": [],
    "winner": None,
    "termination": "",
    "setup": "6x6",
    "budget": 0.05,
    "time": None,
    "clocks": [],
}


def _old_record() -> dict[str, object]:
    position = Position.setup("6x6")
    moves = []
    for ply in range(3):
        move = position.random_move(ply)
        assert move is not None
        moves.append(str(move))
        position.apply(move)
    return {**OLD, "moves": moves}


def test_match_records_carry_an_id_a_date_and_no_rating() -> None:
    out = io.StringIO()
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    run_match("mobility", "random", games=3, seconds=0.05, setup="6x6", out=out)
    after = datetime.datetime.now(datetime.UTC)
    lines = out.getvalue().splitlines()
    records = [GameRecord.from_json(line) for line in lines]
    assert len({r.game_id for r in records}) == 3
    for line, record in zip(lines, records, strict=True):
        assert record.game_id
        assert record.date is not None
        assert record.date.endswith("Z")
        date = datetime.datetime.fromisoformat(record.date)
        assert before <= date <= after
        assert record.rated is False
        data = json.loads(line)
        assert (data["white_rating"], data["black_rating"]) == (None, None)


def test_records_written_before_ids_dates_and_ratings_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(_old_record()) + "\n")
    (record,) = read_records(path)
    assert (record.game_id, record.date, record.rated) == (None, None, None)
    assert (record.white_rating, record.black_rating) == (None, None)
    assert len(record.moves) == 3
    assert record.replay().text() == record.replay(3).text() != record.replay(2).text()


def _records_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    out = io.StringIO()
    run_match("mobility", "random", games=2, seconds=0.05, setup="6x6", out=out)
    path.write_text(json.dumps(_old_record()) + "\n" + out.getvalue())
    return path


def test_show_takes_a_position_from_a_record_at_a_ply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _records_file(tmp_path)
    records = read_records(path)
    expected = Position.setup("6x6")
    for move in records[1].moves[:4]:
        expected.apply(expected.parse_move(move))
    assert main(["show", "--record", str(path), "--game", "2", "--ply", "4"]) == 0
    out = capsys.readouterr().out
    assert expected.diagram() in out
    assert expected.text() in out.splitlines()
    # Game 1 (counted from 1) at ply 0 is its start; without --ply, the position after the last
    # move.
    assert main(["show", "--record", str(path), "--game", "1", "--ply", "0"]) == 0
    assert Position.setup("6x6").text() in capsys.readouterr().out.splitlines()
    assert main(["show", "--record", str(path), "--game", "3"]) == 0
    final = records[2].replay()
    assert final.is_terminal()
    out = capsys.readouterr().out
    assert final.text() in out.splitlines()
    assert "has no legal move" in out


def test_analyze_takes_a_position_from_a_record_at_a_ply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _records_file(tmp_path)
    (record,) = read_records(path)[2:]
    assert main(["analyze", "--record", str(path), "--game", "3", "--ply", "5", "--json"]) == 0
    expected = Position.parse(record.start)
    for move in record.moves[:5]:
        expected.apply(expected.parse_move(move))
    assert json.loads(capsys.readouterr().out)["position"] == expected.text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "4"], "games.jsonl has 3 games: there is no game 4 (games count from 1)"),
        (["--game", "0"], "games.jsonl has 3 games: there is no game 0 (games count from 1)"),
        (["--game", "1", "--ply", "4"], "game 1 of {path} has 3 moves: there is no ply 4 (0 to 3)"),
        (["--game", "1", "--ply", "-1"], "game 1 of {path} has 3 moves: there is no ply -1"),
    ],
)
@pytest.mark.parametrize("command", ["show", "analyze", "moves"])
def test_a_game_or_ply_out_of_range_is_named(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    args: list[str],
    message: str,
) -> None:
    path = _records_file(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--record", str(path), *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"arena {command}: error: ")
    assert message.format(path=path) in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["show", "analyze"])
def test_a_missing_record_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    missing = tmp_path / "none.jsonl"
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--record", str(missing), "--game", "1", "--ply", "0"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"arena {command}: error: cannot read {missing}: No such file or directory\n"
    )


def test_game_and_ply_need_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["show", "--setup", "6x6", "--ply", "3"])
    assert exit_info.value.code == 2
    assert "--game and --ply need --record FILE" in capsys.readouterr().err


def test_moves_on_a_finished_position_says_the_game_is_over(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["moves", "--fen", "xWB b"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "game over: black to move has no legal move; white wins\n"
