import io

import pytest

from engine.records import GameRecord
from engine.search.tournament import fit_ratings, run_tournament


def test_equal_results_give_equal_ratings() -> None:
    ratings = fit_ratings([[0, 5, 5], [5, 0, 5], [5, 5, 0]])
    assert ratings == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)


def test_ratings_order_follows_the_results() -> None:
    # A beats B 3 times in 4, B beats C 3 times in 4, A beats C every time.
    ratings = fit_ratings([[0, 3, 4], [1, 0, 3], [0, 1, 0]])
    assert ratings[0] > ratings[1] > ratings[2]
    assert sum(ratings) == pytest.approx(0.0, abs=1e-6)
    # Without the virtual draws a 3:1 score between neighbours would mean about 191 Elo.
    assert 100 < ratings[0] - ratings[1] < 191


def test_a_perfect_score_has_a_finite_rating() -> None:
    ratings = fit_ratings([[0, 10], [0, 0]])
    assert 0 < ratings[0] - ratings[1] < 1000


def test_a_tournament_plays_every_pair() -> None:
    out = io.StringIO()
    result = run_tournament(["random", "mobility", "random:seed=9"], 2, 0.05, "6x6", out=out)
    records = [GameRecord.from_json(line) for line in out.getvalue().splitlines()]
    assert len(records) == 6
    assert sorted(result.matches) == [(0, 1), (0, 2), (1, 2)]
    table = result.cross_table()
    lines = table.splitlines()
    assert lines[0].split() == ["bot", "1", "2", "3", "total"]
    assert lines[2].split()[1] == "mobility"
    wins, games = result.score(1, 0)
    assert games == 2
    assert result.score(0, 1) == (games - wins, games)
    assert "rank" in result.rating_list()
