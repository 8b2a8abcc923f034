"""`arena cgt eval`, `arena cgt value` and `arena analyze`: outputs, stdin mode and exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from engine.cli import main

B3W3 = "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}"


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    stdin: str = "",
) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `arena ARGS`."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        status = main(list(args))
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_eval_prints_the_canonical_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cgt", "eval", "{1,{2|0}|-1,{0|-2}}"]) == 0
    assert capsys.readouterr().out == "+-{1,{2|0}}\n"


def test_eval_with_props(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cgt", "eval", "{3||2|1}", "--props"]) == 0
    assert capsys.readouterr().out == (
        "{3||2|1} left_stop=3 right_stop=2 mean=9/4 temperature=3/4 outcome=L\n"
    )


def test_eval_of_a_negative_after_double_dash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cgt", "eval", "--props", "--", "-{1|-1}+^"]) == 0
    assert capsys.readouterr().out == (
        "{1^|-1^} left_stop=1 right_stop=-1 mean=0 temperature=1 outcome=N\n"
    )


def test_eval_reads_stdin_one_result_per_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = run(capsys, monkeypatch, "cgt", "eval", "-", stdin="+-1+-2\n\n^ + v\n*+*2\n")
    assert status == 0
    assert out.splitlines() == ["+-{3|1}", "0", "*3"]


def test_eval_of_bad_text_exits_2_saying_where(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, err = run(capsys, monkeypatch, "cgt", "eval", "{1|2|3}")
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "ambiguous |: a second one at the same level at column 5" in err


def test_eval_from_stdin_names_the_bad_line_after_the_good_ones(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, err = run(capsys, monkeypatch, "cgt", "eval", "-", stdin="^\n{1|\n*\n")
    assert status == 2
    assert out == "^\n"
    assert err.startswith("arena cgt: error: stdin line 2: ")
    assert "column" in err


def test_value_of_a_position(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cgt", "value", "--fen", "B3/W3 w"]) == 0
    assert capsys.readouterr().out == B3W3 + "\n"


def test_value_reads_positions_from_stdin_in_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = "B1W\nB2W b\n\nB1W1\nB1/1W\n"
    status, out, _ = run(capsys, monkeypatch, "cgt", "value", "--fen", "-", stdin=stdin)
    assert status == 0
    assert out.splitlines() == ["*", "+-1", "-1*", "0"]


def test_value_of_bad_position_text_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, err = run(capsys, monkeypatch, "cgt", "value", "--fen", "-", stdin="B1W\n3/Q2\n")
    assert status == 2
    assert out == "*\n"
    assert err == (
        "arena cgt: error: stdin line 2: rank 1: unknown character 'Q' (expected W, B, x or a "
        "count)\n"
    )


def test_value_prints_a_question_mark_out_of_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cgt", "value", "--fen", "1B2B1/B4B/6/6/W4W/1W2W1 w", "--time", "0.2"]) == 0
    assert capsys.readouterr().out == "?\n"


def test_analyze_lists_regions_sum_winners_and_best_moves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["analyze", "--fen", "B1xW/xxxx/1B1W/2x1 w"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "position B1xW/xxxx/1B1W/2x1 w",
        "3 regions:",
        "  1. contested: 7 squares, white 1, black 1: {4|0,{1|0,*}} (mean 2, temperature 2)",
        "  2. settled: 2 squares, white 0, black 1: 1 (mean 1, temperature -1)",
        "  3. settled: 1 squares, white 1, black 0: 0 (mean 0, temperature -1)",
        "sum: {5|1,{2|1,1*}} (mean 3, temperature 2)",
        "black to move: black wins",
        "white to move: black wins",
        "best moves for white: none, every move loses",
        "judgement: exact: Black wins, White moving first",
        "best line (perfect play): d2-c2/b1 b2-a2/b2 c2-d2/c2 a2-a1/a2 d2-d1/d2 a4-b4/a4",
    ]


def test_analyze_names_the_winning_moves(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--fen", "B3/W3 b"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-5:] == [
        "black to move: black wins",
        "white to move: white wins",
        "best moves for black (3): a2-b1/a2 a2-b1/b2 a2-b2/b1",
        "judgement: exact: Black wins, Black moving first",
        "best line (perfect play): a2-b2/b1 a1-a2/a1 b2-c2/b2",
    ]


def test_analyze_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--fen", "B2W/xxxx/1W2 b", "--json"]) == 0
    # .W.. is worth -3 to White, x..o is +-1: White is ahead whoever starts.
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "position": "B2W/xxxx/1W2 b",
        "side_to_move": "black",
        "regions": [
            {
                "kind": "settled",
                "squares": 4,
                "white": 1,
                "black": 0,
                "value": "-3",
                "mean": "-3",
                "temperature": "-1",
            },
            {
                "kind": "contested",
                "squares": 4,
                "white": 1,
                "black": 1,
                "value": "+-1",
                "mean": "0",
                "temperature": "1",
            },
        ],
        "sum": {"value": "{-2|-4}", "mean": "-3", "temperature": "1"},
        "winner": {"black_to_move": "white", "white_to_move": "white"},
        "best_moves": [],
        "engine": {
            "white_wins": 1.0,
            "line": ["a3-b3/c3", "b1-c1/d1", "b3-a3/b3", "c1-b1/c1"],
            "depth": None,
            "playouts": None,
            "exact": True,
            "note": "exact: White wins, Black moving first",
        },
    }


def test_analyze_marks_what_it_could_not_solve_in_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fen = "B2Wxx/xxxxxx/1B2B1/B4B/6/W5/W4W/1W2W1 w"
    assert main(["analyze", "--fen", fen, "--time", "0.3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # Regions are listed in board order and solved smallest first.
    assert [r["value"] for r in data["regions"]] == ["?", "+-1"]
    assert data["regions"][0]["mean"] == data["regions"][0]["temperature"] == "?"
    assert data["sum"]["value"] == "?"
    assert data["winner"] == {"black_to_move": None, "white_to_move": None}
    assert data["best_moves"] is None


def test_analyze_of_bad_position_text_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["analyze", "--fen", "3/2 w"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == (
        "arena analyze: error: rows of unequal width: rank 2 has 3 squares, rank 1 has 2\n"
    )


def test_the_arena_command_runs_cgt_eval() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "cgt", "eval", "{0|^*}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "^^\n"
