"""Glicko-2 against Glickman's worked example, and the properties a player would notice: a win
never costs points, a loss never gains any, and nobody's deviation passes 350."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.glicko import MAX_DEVIATION, Rating, expected_score, rate_game, update

ratings = st.builds(
    Rating,
    rating=st.floats(0.0, 4000.0),
    deviation=st.floats(30.0, MAX_DEVIATION),
    volatility=st.floats(0.01, 0.2),
)
scores = st.sampled_from([0.0, 0.5, 1.0])


def _finite(rating: Rating) -> bool:
    return all(map(math.isfinite, (rating.rating, rating.deviation, rating.volatility)))


def test_glickmans_example() -> None:
    player = Rating(1500.0, 200.0, 0.06)
    results = [
        (Rating(1400.0, 30.0), 1.0),
        (Rating(1550.0, 100.0), 0.0),
        (Rating(1700.0, 300.0), 0.0),
    ]

    after = update(player, results, tau=0.5)

    # The paper rounds its intermediate values, so its r' of 1464.06 is within 0.01 of exact.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_new_players_split_the_points_evenly() -> None:
    winner, loser = rate_game(Rating(), Rating(), white_won=True)

    assert winner.rating - 1500.0 == pytest.approx(1500.0 - loser.rating, abs=1e-9)
    assert winner.rating == pytest.approx(1662.31, abs=0.01)
    assert winner.deviation == loser.deviation == pytest.approx(290.32, abs=0.01)


def test_black_winning_mirrors_white_winning() -> None:
    white, black = Rating(1620.0, 80.0, 0.05), Rating(1480.0, 120.0, 0.07)

    white_wins = rate_game(white, black, white_won=True)
    black_wins = rate_game(black, white, white_won=False)

    assert white_wins == (black_wins[1], black_wins[0])


def test_a_period_without_games_only_grows_the_deviation() -> None:
    player = Rating(1710.0, 200.0, 0.06)

    after = update(player, [])

    assert after.rating == 1710.0
    assert after.volatility == 0.06
    assert after.deviation == pytest.approx(math.hypot(200.0, 0.06 * 173.7178))


def test_an_idle_new_player_stays_at_the_deviation_cap() -> None:
    assert update(Rating(), []).deviation == MAX_DEVIATION


def test_the_favourite_is_expected_to_score_more() -> None:
    strong, weak = Rating(1900.0, 50.0), Rating(1500.0, 50.0)

    assert expected_score(strong, weak) == pytest.approx(1.0 - expected_score(weak, strong))
    assert expected_score(strong, weak) > 0.9
    assert expected_score(Rating(), Rating()) == 0.5


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"deviation": 0.0}, "deviation"),
        ({"deviation": 351.0}, "deviation"),
        ({"volatility": -0.1}, "volatility"),
        ({"rating": math.nan}, "rating"),
    ],
)
def test_impossible_ratings_are_refused(fields: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rating(**fields)


def test_a_score_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="score"):
        update(Rating(), [(Rating(), 2.0)])


@given(ratings, ratings)
def test_the_winner_gains_and_the_loser_drops(white: Rating, black: Rating) -> None:
    for white_won in (True, False):
        new_white, new_black = rate_game(white, black, white_won)
        winner, new_winner = (white, new_white) if white_won else (black, new_black)
        loser, new_loser = (black, new_black) if white_won else (white, new_white)

        assert new_winner.rating > winner.rating
        assert new_loser.rating < loser.rating


@given(ratings, st.lists(st.tuples(ratings, scores), max_size=8))
def test_a_period_moves_the_rating_towards_the_results(
    player: Rating, results: list[tuple[Rating, float]]
) -> None:
    after = update(player, results)

    assert _finite(after)
    assert 0.0 < after.deviation <= MAX_DEVIATION
    surprise = sum(score - expected_score(player, opponent) for opponent, score in results)
    if all(score == 1.0 for _, score in results) and results:
        assert after.rating > player.rating
    if all(score == 0.0 for _, score in results) and results:
        assert after.rating < player.rating
    if not results:
        assert after.rating == player.rating
        assert after.deviation >= player.deviation
    elif len(results) == 1 and abs(surprise) > 1e-6:
        assert math.copysign(1.0, after.rating - player.rating) == math.copysign(1.0, surprise)


@given(ratings, ratings, st.booleans())
def test_one_game_never_leaves_a_deviation_above_the_cap(
    white: Rating, black: Rating, white_won: bool
) -> None:
    for after in rate_game(white, black, white_won):
        assert _finite(after)
        assert 0.0 < after.deviation <= MAX_DEVIATION
        assert after.volatility > 0.0
