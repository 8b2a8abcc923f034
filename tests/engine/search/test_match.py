import gzip
import io
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.records import GameRecord, read_records
from engine.search.match import elo_interval, run_match


def test_a_match_alternates_colours_and_records_every_game() -> None:
    out = io.StringIO()
    result = run_match("mobility", "random", games=4, seconds=0.05, setup="6x6", out=out)
    records = [GameRecord.from_json(line) for line in out.getvalue().splitlines()]
    assert len(records) == 4 == result.games
    assert [r.white.split(":")[0] for r in records] == ["mobility", "random"] * 2
    for record in records:
        final = record.replay()
        assert final.is_terminal()
        assert record.winner == ("black" if final.current_player == 0 else "white")
        assert len(record.seconds) == len(record.moves) == len(record.nodes)
    a_wins = sum(r.winner == ("white" if i % 2 == 0 else "black") for i, r in enumerate(records))
    assert result.wins == a_wins
    assert result.games_white == result.games_black == 2
    table = result.table()
    assert "4 games: mobility scores" in table
    assert table.splitlines()[1].startswith("mobility")


def test_parallel_jobs_play_the_same_games() -> None:
    one, two = io.StringIO(), io.StringIO()
    run_match("mobility", "random", games=4, seconds=0.05, setup="6x6", out=one, jobs=1)
    run_match("mobility", "random", games=4, seconds=0.05, setup="6x6", out=two, jobs=2)

    def games(text: str) -> list[tuple[str, ...]]:
        return sorted(tuple(GameRecord.from_json(line).moves) for line in text.splitlines())

    assert games(one.getvalue()) == games(two.getvalue())


def test_elo_interval() -> None:
    assert elo_interval(0.5, 100)[0] == 0
    elo, low, high = elo_interval(0.75, 100)
    assert elo == pytest.approx(190.85, abs=0.01)
    assert low < elo < high
    assert elo_interval(1.0, 10)[0] == math.inf


def test_a_corrupt_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text('{"game": "amazons"}\n')
    with pytest.raises(ValueError, match=r"games\.jsonl:1: not a game record"):
        read_records(path)
    record = GameRecord("amazons", "B1W w", "a", "b", moves=["a1-b1/a1"])
    with pytest.raises(ValueError, match="move 1 'a1-b1/a1': no white amazon on a1"):
        record.replay()


def test_records_are_read_gzipped_too(tmp_path: Path) -> None:
    record = GameRecord("amazons", "B1W w", "a", "b", moves=["c1-b1/c1"], winner="white")
    path = tmp_path / "games.jsonl.gz"
    path.write_bytes(gzip.compress((record.to_json() + "\n").encode()))
    assert read_records(path) == [record]
    path.write_text(record.to_json())
    with pytest.raises(ValueError, match=r"games\.jsonl\.gz: not a gzip file of records"):
        read_records(path)


def test_ctrl_c_keeps_finished_games_and_prints_the_table(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "engine", "match", "mobility", "random", "--games", "500"]
    command += ["--time", "0.05", "--setup", "6x6", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    finished = read_records(out)
    assert 2 <= len(finished) < 500
    assert f"{len(finished)} games: mobility scores" in stdout
    assert "interrupted: the finished games are kept" in stderr
