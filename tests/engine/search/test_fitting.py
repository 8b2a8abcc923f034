import math
import random
from pathlib import Path

import numpy as np
import pytest

from engine.amazons import Position
from engine.cli import main
from engine.errors import NotationError
from engine.records import GameRecord
from engine.search.bot import Budget
from engine.search.evaluation import LIEBERUM, evaluate_position
from engine.search.fitting import fit_logistic, fit_records, samples
from engine.search.registry import make_bot


def _game(seed: int, opening: int = 4) -> GameRecord:
    """A 6x6 game: `opening` random moves, then the greedy bot's for both sides."""
    rng = random.Random(seed)
    greedy = make_bot("greedy", seed=seed)
    position = Position.setup("6x6")
    record = GameRecord("amazons", position.text(), "greedy", "greedy", setup="6x6")
    while not position.is_terminal():
        if len(record.moves) < opening:
            move = rng.choice(list(position.legal_moves))
        else:
            move = greedy.choose(position, Budget(seconds=10.0)).move
        record.moves.append(str(move))
        position.apply(move)
    record.winner = str(position.winner)
    return record


def test_the_regression_finds_the_weights_that_made_the_results() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40_000, 3))
    truth = np.array([1.5, -0.7, 0.0])
    y = (rng.random(len(x)) < 1 / (1 + np.exp(-(x @ truth)))).astype(np.float64)
    assert fit_logistic(x, y, ridge=0.0) == pytest.approx(truth, abs=0.06)
    # The ridge pulls the weights towards 0.
    assert np.linalg.norm(fit_logistic(x, y, ridge=0.1)) < np.linalg.norm(truth) / 2


def test_every_position_before_the_end_is_a_sample_with_its_sides_result() -> None:
    record = _game(1)
    data = samples([record])
    assert len(data.won) == len(record.moves)
    assert list(data.ply) == list(range(len(record.moves)))
    position = Position.parse(record.start)
    for index, text in enumerate(record.moves):
        assert data.won[index] == ((position.current_player == 0) == (record.winner == "white"))
        # Lieberum's weights over the split terms give the evaluation back.
        assert data.terms[index] @ LIEBERUM == pytest.approx(evaluate_position(position))
        position.apply(position.parse_move(text))


def test_unfinished_games_and_other_games_are_left_out() -> None:
    finished = _game(2)
    unfinished = GameRecord("amazons", finished.start, "a", "b", moves=finished.moves[:3])
    other = GameRecord("bao", "x", "a", "b", moves=["a1"], winner="white")
    assert len(samples([finished, unfinished, other]).won) == len(finished.moves)
    with pytest.raises(NotationError, match="no finished Amazons games"):
        samples([unfinished])
    with pytest.raises(NotationError, match="two finished games or more"):
        fit_records([finished, unfinished])


def test_a_bad_move_or_start_in_a_record_is_named() -> None:
    record = _game(3)
    record.moves[4] = "a1-a2/a3"
    with pytest.raises(NotationError, match="game 2, move 5 'a1-a2/a3'"):
        samples([_game(4), record])
    record.start = "3/2 w"
    with pytest.raises(NotationError, match="game 1, start: rows of unequal width"):
        samples([record])


def test_fitted_weights_foretell_held_out_results_late_in_the_game() -> None:
    fit = fit_records([_game(seed) for seed in range(60)])
    assert fit.games == 60
    assert sum(score.positions for score in fit.fitted) == fit.positions
    assert [score.plies for score in fit.fitted] == [score.plies for score in fit.lieberum]
    # Late in the game the terms tell who wins far better than a coin, and weighted as
    # fitted, better than Lieberum's mix at its best slope.
    late, lieberum = fit.fitted[-1], fit.lieberum[-1]
    assert late.plies == (16, 32)
    assert late.loss < math.log(2) - 0.2
    assert late.sign > 0.8
    assert late.loss < lieberum.loss
    table = fit.table(0.3)
    assert "Lieberum (slope" in table
    assert "/ slope 0.3: [" in table


def test_fit_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(_game(seed).to_json() + "\n" for seed in range(20)))
    assert main(["fit", str(path)]) == 0
    out = capsys.readouterr().out
    assert "positions of 20 games." in out
    assert "log-odds: [" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("not json\n", "not a game record"),
        ("", "no finished Amazons games"),
    ],
)
def test_fit_command_names_bad_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "games.jsonl"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", str(path)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
