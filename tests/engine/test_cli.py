import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.records import read_records

START = "3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w"


def run_engine(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m engine ARGS` in a process of its own, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_perft_prints_the_leaf_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "2", "--setup", "10x10"]) == 0
    assert capsys.readouterr().out == "4307152\n"


def test_perft_defaults_to_the_standard_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "1"]) == 0
    assert capsys.readouterr().out == "2176\n"


def test_perft_divide(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "2", "--setup", "6x6", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 545
    assert lines[-1] == "total 238532"
    assert lines[0] == "a2-a1/a2 536"


def test_perft_reads_positions_from_stdin_in_order() -> None:
    result = run_engine("perft", "2", "--fen", "-", stdin=f"{START}\n\nB/1/1/1/1/W w\n3/3/W2 w\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["4307152", "26", "0"]


def test_perft_from_stdin_names_the_bad_line() -> None:
    result = run_engine("perft", "1", "--fen", "-", stdin=f"{START}\n3/2 w\n")
    assert result.returncode == 2
    assert result.stdout.splitlines() == ["2176"]
    assert "stdin line 2: rows of unequal width" in result.stderr


def test_show_prints_board_and_regions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--fen", "W1x2/xxx2/B1xWB b"]) == 0
    out = capsys.readouterr().out
    assert " 3 W . x . .\n 2 x x x . .\n 1 B . x W B\n   a b c d e\n" in out
    assert "black to move, " in out
    assert "3 regions:" in out
    assert "1. settled (black): 2 squares, 1 empty, black a1" in out
    assert "2. contested: 6 squares, 4 empty, white d1, black e1" in out


def test_show_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--fen", "xWB b"]) == 0
    assert "black to move has no legal move: white wins" in capsys.readouterr().out


def test_moves_lists_legal_moves(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "--fen", "B1W w"]) == 0
    assert capsys.readouterr().out == "c1-b1/c1\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "--setup", "7x7"], "arena show: error: unknown setup '7x7'"),
        (["perft", "1", "--fen", "3/2 w"], "rows of unequal width"),
        (["perft", "x"], "depth 'x' is not a whole number"),
        (["perft", "-1"], "depth -1 is negative"),
        (["perft", "0", "--divide"], "divide needs a depth of 1 or more"),
        (["moves", "--fen", "3/3/W2 q"], "side to move 'q' is neither 'w' nor 'b'"),
        (["fly"], "invalid choice: 'fly'"),
    ],
)
def test_bad_input_exits_2_with_a_message(args: list[str], message: str) -> None:
    result = run_engine(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_bots_lists_every_bot_with_its_games_and_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "mcts (every game): UCT with random playouts" in out
    assert "bao-alphabeta (bao): the earlier Bao program's alpha-beta" in out
    assert "c=0.8 (exploration constant)" in out
    assert out.splitlines()[0].startswith("random (every game): ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "random", "alphazero"], "unknown bot 'alphazero': bots are random"),
        (["match", "random", "mcts:c=x"], "bot parameter c='x' is not a number"),
        (["match", "random", "random", "--games", "0"], "argument --games: 0 is not positive"),
        (
            ["match", "random", "random", "--setup", "9x9"],
            "arena match: error: unknown setup '9x9': known setups are 10x10, 8x8, 6x6",
        ),
        (
            ["match", "invader", "random", "--game", "bao"],
            "bot 'invader' does not play bao: bots for bao are random, mobility, mcts, "
            "bao-alphabeta, bao-deep",
        ),
        (["match", "random", "random", "--game", "chess"], "unknown game 'chess'"),
        (["tournament", "random"], "a tournament needs two bots or more"),
    ],
)
def test_bad_match_input_exits_2_with_a_message(args: list[str], message: str) -> None:
    result = run_engine(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_match_prints_the_table(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = run_engine(
        "match",
        "mobility",
        "random",
        "--games",
        "2",
        "--time",
        "0.05",
        "--setup",
        "6x6",
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    assert "2 games: mobility scores" in result.stdout
    assert len(out.read_text().splitlines()) == 2


def test_match_plays_bao_and_records_it(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    assert (
        main(
            [
                "match",
                "bao-deep:depth=1",
                "random",
                "--game",
                "bao",
                "--games",
                "2",
                "--time",
                "0.05",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    records = read_records(out)
    assert [(r.game, r.setup) for r in records] == [("bao", "zanzibar")] * 2
    assert {r.white.partition(":")[0] for r in records} == {"bao-deep", "random"}
    for record in records:
        assert record.replay().is_terminal()
