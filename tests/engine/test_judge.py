"""engine.judge: the engine's judgement of a position of either game, and a reviewed game."""

from __future__ import annotations

import math

import pytest

from engine.amazons import SETUPS, Position
from engine.amazons.notation import Side
from engine.bao.position import BaoPosition
from engine.cgt.amazons import RegionSolver
from engine.cgt.analysis import analyze
from engine.cgt.form import ZERO
from engine.errors import NotationError
from engine.judge import Judgement, absolute_chance, judge, review, summary

# White to move wins with some moves and loses with others: a settled region of White's
# worth three moves beside a contested one worth +-1.
ENDGAME = "B2W/xxxx/1W2 w"


def test_the_same_position_is_judged_the_same_every_time() -> None:
    first = judge("amazons", SETUPS["6x6"], effort=1)
    assert judge("amazons", SETUPS["6x6"], effort=1) == first
    assert not first.exact
    assert 0.0 < first.white_wins < 1.0
    assert first.playouts == 500
    legal = {str(m) for m in Position.parse(SETUPS["6x6"]).legal_moves}
    assert first.line
    assert first.line[0] in legal
    assert first.note.startswith("not solved: the board is one region of 28 empty squares")
    assert first.note.endswith(f"the engine's estimate is White {round(100 * first.white_wins)}%")


@pytest.mark.parametrize("text", [ENDGAME, "B2W/xxxx/1W2 b", "B3/W3 b", "B3/W3 w"])
def test_a_solved_endgame_is_exact_with_the_solver_s_winner(text: str) -> None:
    position = Position.parse(text)
    mover = position.side_to_move
    expected = analyze(position, solver=RegionSolver()).winner(mover)
    assert expected is not None
    judgement = judge("amazons", text, effort=1)
    assert judgement.exact
    assert judgement.white_wins == (1.0 if expected is Side.WHITE else 0.0)
    assert judgement.regions is not None
    assert judgement.regions["position"] == text
    names = {Side.WHITE: "White", Side.BLACK: "Black"}
    assert judgement.note == f"exact: {names[expected]} wins, {names[mover]} moving first"
    assert judgement.line, "a solved position has a line of perfect play"


def test_a_region_too_large_to_solve_is_named_with_the_estimate() -> None:
    # A big contested region beside a small one worth +-1.
    text = "B2Wxx/xxxxxx/1B2B1/B4B/6/W5/W4W/1W2W1 w"
    judgement = judge("amazons", text, effort=1)
    assert not judgement.exact
    assert judgement.regions is not None
    regions = judgement.regions["regions"]
    assert isinstance(regions, list)
    assert [r["value"] for r in regions if isinstance(r, dict)] == ["?", "+-1"]
    assert judgement.note == (
        "not solved: the main region (27 empty squares) is too large to solve; "
        f"the engine's estimate is White {round(100 * judgement.white_wins)}%"
    )


@pytest.mark.parametrize(("x", "par"), [(0.0, 0.0), (2.0, 1.5), (-3.0, 4.0), (5.0, -2.0)])
def test_a_win_rate_from_a_par_is_the_fitted_chance_of_the_score(x: float, par: float) -> None:
    def chance(score: float) -> float:
        return 1 / (1 + math.exp(-0.3 * score))

    assert absolute_chance(chance(x - par), par, 0.3) == pytest.approx(chance(x))


def _losing_move(text: str) -> str:
    """A move of White's after which Black, moving first, wins."""
    position = Position.parse(text)
    for option in RegionSolver().move_values(position):
        if not option.value <= ZERO:
            return str(option.move)
    raise AssertionError("every move wins")


def test_a_move_that_throws_a_won_endgame_away_is_a_blunder_with_the_better_move() -> None:
    move = _losing_move(ENDGAME)
    after = Position.parse(ENDGAME)
    after.apply(after.parse_move(move))
    judgements = [judge("amazons", p, effort=1) for p in (ENDGAME, after.text())]
    (found,) = review([move], judgements)
    assert (found.mover, found.before, found.after, found.loss) == ("white", 1.0, 0.0, 1.0)
    assert found.mark == "blunder"
    assert found.better == judgements[0].line[0]
    assert found.better in {str(m) for m in analyze(Position.parse(ENDGAME)).best_moves or ()}
    white, black = summary([found])
    assert (white.blunders, white.mistakes, white.inaccuracies, white.average_loss) == (
        1,
        0,
        0,
        1.0,
    )
    assert (black.blunders, black.average_loss) == (0, 0.0)


def _judgement(
    white_wins: float, position: str, line: tuple[str, ...] = ("b1-b2/b1",)
) -> Judgement:
    return Judgement("amazons", position, white_wins, line, None, 1, False, None, "")


@pytest.mark.parametrize(
    ("after", "mark"),
    [(0.61, None), (0.60, "inaccuracy"), (0.50, "mistake"), (0.40, "blunder"), (0.9, None)],
)
def test_marks_follow_the_drop_in_the_mover_s_chance(after: float, mark: str | None) -> None:
    start = Position.setup("6x6")
    moved = start.clone()
    move = str(next(iter(moved.legal_moves)))
    moved.apply(moved.parse_move(move))
    (found,) = review([move], [_judgement(0.70, start.text()), _judgement(after, moved.text())])
    assert found.mark == mark
    assert found.loss == pytest.approx(max(0.0, 0.70 - after))


def test_a_black_move_loses_when_white_s_chance_rises() -> None:
    start = Position.setup("6x6")
    start.apply(next(iter(start.legal_moves)))
    moved = start.clone()
    move = str(next(iter(moved.legal_moves)))
    moved.apply(moved.parse_move(move))
    (found,) = review([move], [_judgement(0.40, start.text()), _judgement(0.75, moved.text())])
    assert (found.mover, found.mark) == ("black", "blunder")
    assert found.loss == pytest.approx(0.35)
    assert summary([found])[1].blunders == 1


def test_bao_is_judged_by_a_fixed_depth_search() -> None:
    text = BaoPosition().text()
    judgement = judge("bao", text, effort=1)
    assert judgement == judge("bao", text, effort=1)
    assert judgement.game == "bao"
    assert judgement.regions is None
    assert judgement.depth == 6
    assert judgement.playouts is None
    assert 0.0 < judgement.white_wins < 1.0
    assert not judgement.exact
    position = BaoPosition.parse(text)
    for move in judgement.line:
        position.apply(position.parse_move(move))


def test_a_finished_game_is_judged_exactly() -> None:
    judgement = judge("amazons", "B1/xx/xW w", effort=1)
    assert (judgement.white_wins, judgement.exact, judgement.line) == (0.0, True, ())
    assert judgement.note == "exact: the game is over, Black has won"


@pytest.mark.parametrize(
    ("game", "text", "effort", "message"),
    [
        ("chess", "x", 1, "unknown game 'chess'"),
        ("amazons", SETUPS["6x6"], 0, "effort must run from 1 to 8, not 0"),
        ("amazons", "3/2 w", 1, "rows of unequal width"),
    ],
)
def test_bad_input_is_a_notation_error(game: str, text: str, effort: int, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        judge(game, text, effort=effort)
