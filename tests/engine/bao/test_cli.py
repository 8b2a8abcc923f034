"""`arena perft`, `show`, `moves`, `match` and `tournament` with `--game bao`: the same
commands as for Amazons, through the generic game interface; bad input is one line on stderr
and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.judge import judge
from tests.engine.test_cli import run_engine

START = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22-22 SN - s namua 0"
# North's front row is empty: South has won.
OVER = "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22-22 S - n namua 3"


def test_perft_counts_bao_from_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "6", "--game", "bao"]) == 0
    assert main(["perft", "9", "--game", "Bao", "--setup", "zanzibar"]) == 0
    assert capsys.readouterr().out == "1430\n105596\n"


def test_perft_divide_names_each_move_in_bao_notation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["perft", "5", "--game", "bao", "--divide"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "A6> 116",
        "A6< 86",
        "A7> 140",
        "A7< 63",
        "total 405",
    ]


def test_perft_reads_bao_positions_from_stdin() -> None:
    done = run_engine("perft", "3", "--game", "bao", "--fen", "-", stdin=f"{START}\n\n{OVER}\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["38", "0"]


def test_show_draws_the_pits_and_says_who_is_to_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--game", "bao"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert lines[2].split() == ["N", "front", "0", "2", "2", "6*", "0", "0", "0", "0", "A8..A1"]
    assert lines[3].split() == ["S", "front", "0", "0", "0", "0", "6*", "2", "2", "0", "A1..A8"]
    assert lines[5:] == [
        "stores: South 22, North 22; South to move (namua), ply 0",
        START,
        "South to move, 4 legal moves",
    ]


def test_show_says_how_a_finished_game_ended(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--game", "bao", "--fen", OVER]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "game over: South won: North's front row is empty"


def test_moves_lists_the_legal_moves_one_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "--game", "bao"]) == 0
    assert capsys.readouterr().out.split() == ["A6>", "A6<", "A7>", "A7<"]
    assert main(["moves", "--game", "bao", "--fen", OVER]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "game over: South won: North's front row is empty\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "--game", "chess"], "arena show: error: unknown game 'chess': registered"),
        (
            ["moves", "--game", "bao", "--fen", "1,2 3"],
            "arena moves: error: Bao position text has 7 fields",
        ),
        (
            ["perft", "2", "--game", "bao", "--setup", "10x10"],
            "arena perft: error: unknown setup '10x10': known setups are zanzibar",
        ),
        (
            ["show", "--game", "bao", "--fen", START.replace("22-22", "22-23")],
            "the pits and stores hold 65 seeds: Bao is played with 64, no more",
        ),
        (
            ["show", "--game", "bao", "--record", "games.jsonl"],
            "--game bao with --record: name the game in the file by its number",
        ),
        (
            ["match", "invader", "random", "--game", "bao"],
            "arena match: error: bot 'invader' does not play bao: bots for bao are random, "
            "mobility, mcts, bao-alphabeta, bao-deep",
        ),
        (
            ["tournament", "random", "mobility", "--game", "bao", "--setup", "6x6"],
            "arena tournament: error: unknown setup '6x6': known setups are zanzibar",
        ),
        (
            ["analyze", "--game", "bao", "--fen", "0,0/0 22-22"],
            "arena analyze: error: ",
        ),
    ],
)
def test_bad_bao_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    done = run_engine(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_match_plays_bao_and_records_every_game(tmp_path: Path) -> None:
    out = tmp_path / "bao.jsonl"
    done = run_engine(
        "match", "mobility", "random", "--game", "bao", "--games", "2", "--time", "0.05",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 games: mobility scores" in done.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [record["game"] for record in records] == ["bao", "bao"]
    assert {record["winner"] for record in records} <= {"white", "black"}
    assert all(record["start"] == START for record in records)


def test_tournament_plays_bao(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "random", "mobility", "--game", "bao", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "random" in out
    assert "rank  bot" in out


def test_analyze_judges_a_bao_position(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--game", "bao", "--fen", START, "--effort", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    judgement = judge("bao", START, effort=1)
    assert lines == [
        f"position {START}",
        f"judgement: the engine's estimate is White {round(100 * judgement.white_wins)}%",
        f"best line (6 plies searched): {' '.join(judgement.line)}",
    ]
    assert main(["analyze", "--game", "bao", "--fen", OVER, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "position": OVER,
        "engine": {
            "white_wins": 1.0,
            "line": [],
            "depth": 0,
            "playouts": None,
            "exact": True,
            "note": "exact: the game is over, White has won",
        },
    }
