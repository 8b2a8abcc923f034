"""Glicko-2 on the ladder: anchors keep their rating whatever happens, their opponents are rated
as against anyone, and a rating is provisional from a deviation of 110. (Glicko-2 itself is
checked against Glickman's worked example in tests/server/test_glicko.py.)"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.glicko import MAX_DEVIATION, Rating, rate_game
from server.ladder.rating import (
    PROVISIONAL_DEVIATION,
    anchor_rating,
    is_provisional,
    rate_ladder_game,
)

ratings = st.builds(
    Rating,
    rating=st.floats(500.0, 3000.0),
    deviation=st.floats(30.0, MAX_DEVIATION),
    volatility=st.floats(0.01, 0.2),
)


@given(st.floats(500.0, 3000.0), ratings, st.booleans(), st.booleans())
def test_an_anchor_keeps_its_rating_and_its_opponent_is_rated_as_usual(
    anchored: float, opponent: Rating, white_won: bool, anchor_has_white: bool
) -> None:
    anchor = anchor_rating(anchored)
    if anchor_has_white:
        after = rate_ladder_game(anchor, opponent, white_won, white_is_anchor=True)
        usual = rate_game(anchor, opponent, white_won)[1]
        assert after == (anchor, usual)
    else:
        after = rate_ladder_game(opponent, anchor, white_won, black_is_anchor=True)
        usual = rate_game(opponent, anchor, white_won)[0]
        assert after == (usual, anchor)
    assert anchor.rating == anchored


@given(ratings, ratings, st.booleans())
def test_between_two_bots_that_are_not_anchors_it_is_glicko_2(
    white: Rating, black: Rating, white_won: bool
) -> None:
    assert rate_ladder_game(white, black, white_won) == rate_game(white, black, white_won)


def test_two_anchors_both_stay() -> None:
    low, high = anchor_rating(1200.0), anchor_rating(2200.0)

    after = rate_ladder_game(low, high, True, white_is_anchor=True, black_is_anchor=True)

    assert after == (low, high)


def test_a_rating_is_provisional_from_a_deviation_of_110() -> None:
    assert is_provisional(Rating())
    assert is_provisional(Rating(1500.0, PROVISIONAL_DEVIATION))
    assert not is_provisional(Rating(1500.0, 109.9))
    assert not is_provisional(anchor_rating(1800.0))


def test_ten_games_against_anchors_end_a_new_bots_provisional_rating() -> None:
    bot, anchor = Rating(), anchor_rating(1500.0)
    for game in range(10):
        assert is_provisional(bot)
        bot, _ = rate_ladder_game(bot, anchor, game % 2 == 0, black_is_anchor=True)

    assert not is_provisional(bot)
