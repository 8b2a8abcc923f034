"""`arena explain`: the alpha-beta tree, its cut-offs, its bounds on size, and bad input."""

from __future__ import annotations

import pytest

from engine.cli import main
from engine.search.explain import explain

# The Bao start searched two plies deep: South (max) has 4 moves, North 2 to 4 replies.
BAO_TWO_PLIES = """\
0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22-22 SN - s namua 0
bao: South to move; alpha-beta 2 plies; values are the earlier program's evaluation for South \
(0 to 100, a win 1000 less its plies); South maximises
1 A6>  (min to move, window -inf..+inf)
  2 A6> = 46.25
  2 A6< = 43.63
  2 A7> = 45.11
  2 A7< = 43.63
1 A6> = 43.63
1 A6<  (min to move, window 43.63..+inf)
  2 A5> = 46.69
  2 A5< = 46.69
  2 A6> = 50.50
  2 A6< = 50.50
1 A6< = 46.69
1 A7>  (min to move, window 46.69..+inf)
  2 A6> = 48.02
  2 A6< = 44.88
    pruned: alpha cut-off at 44.88 <= 46.69: A7>, A7< not searched
1 A7> = 44.88
1 A7<  (min to move, window 46.69..+inf)
  2 A5> = 41.48
    pruned: alpha cut-off at 41.48 <= 46.69: A5< not searched
1 A7< = 41.48
best A6< = 46.69: 16 states considered, 2 cut-offs spared 3 moves"""


def test_explain_prints_the_bao_tree_with_its_cut_offs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--game", "bao", "--depth", "2"]) == 0
    assert capsys.readouterr().out == BAO_TWO_PLIES + "\n"


def test_one_ply_is_the_evaluation_of_each_move() -> None:
    lines = explain("bao", None, 1).splitlines()
    assert lines[2:] == [
        "1 A6> = 51.96",
        "1 A6< = 54.69",
        "1 A7> = 52.06",
        "1 A7< = 53.96",
        "best A6< = 54.69: 5 states considered, 0 cut-offs spared 0 moves",
    ]


def test_the_tree_is_cut_at_the_line_limit_and_says_so() -> None:
    lines = explain("bao", None, 4, lines=10).splitlines()
    assert len(lines) == 2 + 10 + 2
    assert lines[-2].startswith("... ")
    assert lines[-2].endswith(" more lines not shown (--lines raises the limit)")
    assert lines[-1].startswith("best ")


def test_explain_searches_amazons_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    # White's only way to win at once is a2-b2/a2, walling Black's a1 amazon in.
    assert main(["explain", "--fen", "x2/W2/Bx1 w", "--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("amazons: white to move; alpha-beta 2 plies")
    assert "1 a2-b2/a2 = 999999.00" in out
    assert out[-1].startswith("best a2-b2/a2 = 999999.00: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--depth", "0"], "depth 0 is out of range: explain searches 1 to 8 plies"),
        (["--depth", "9"], "depth 9 is out of range: explain searches 1 to 8 plies"),
        (["--game", "bao", "--fen", "1,2/3 22-22"], "Bao position text has 7 fields"),
        (["--fen", "3/2 w"], "rows of unequal width"),
        (["--game", "go"], "unknown game 'go': registered games are amazons, bao"),
        (["--fen", "xWB b"], "the game is over in 'xWB b': there is nothing to search"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["explain", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("arena explain: error: ")
    assert message in err
