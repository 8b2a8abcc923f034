"""The maximum-likelihood rating list: it finds known strengths from simulated games within its
95% intervals, narrows them as games come in, holds anchors exactly, rates equal records
equally, keeps an unbeaten bot finite, and its ratings are where the likelihood peaks."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ladder.likelihood import (
    PRIOR_DEVIATION,
    UNANCHORED_CENTRE,
    Estimate,
    rating_list,
)
from server.ladder.results import Result


def _expected(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def _simulate(strength: dict[str, float], games: int, rng: random.Random) -> list[Result]:
    results = []
    for _ in range(games):
        white, black = rng.sample(sorted(strength), 2)
        won = rng.random() < _expected(strength[white], strength[black])
        results.append(Result(white, black, won))
    return results


def test_known_strengths_lie_within_their_intervals() -> None:
    inside = total = 0
    for seed in range(12):
        rng = random.Random(seed)
        strength = {f"bot{i}": rng.uniform(1000.0, 2200.0) for i in range(10)}
        anchors = {"bot0": strength["bot0"], "bot1": strength["bot1"]}
        estimates = rating_list(_simulate(strength, 300, rng), anchors)
        for name, estimate in estimates.items():
            if name not in anchors:
                total += 1
                inside += abs(estimate.rating - strength[name]) <= estimate.margin
    # 95% intervals: of 96 bots about 91 should hold their true strength.
    assert inside >= 0.85 * total
    assert inside < total  # intervals this wide would hold everything: they would say nothing


def test_intervals_narrow_as_games_come_in() -> None:
    strength = {f"bot{i}": 1200.0 + 100.0 * i for i in range(6)}
    anchors = {"bot0": 1200.0}
    results = _simulate(strength, 1600, random.Random(4))

    margins = [
        {name: e.margin for name, e in rating_list(results[:games], anchors).items()}
        for games in (100, 400, 1600)
    ]

    for name in strength:
        if name not in anchors:
            assert margins[0][name] > margins[1][name] > margins[2][name]
            # Four times the games, half the width, as the standard error goes.
            assert margins[2][name] == pytest.approx(margins[1][name] / 2, rel=0.25)


def test_anchors_stay_exactly_where_they_are_set() -> None:
    results = _simulate({"a": 1000.0, "b": 1500.0, "c": 2000.0}, 60, random.Random(8))

    estimates = rating_list(results, {"a": 1234.5, "c": 1876.25})

    assert estimates["a"] == Estimate("a", 1234.5, 0.0, anchor=True)
    assert estimates["c"] == Estimate("c", 1876.25, 0.0, anchor=True)
    assert not estimates["b"].anchor
    assert estimates["b"].margin > 0.0


def test_equal_records_give_equal_ratings() -> None:
    # A beat B, B beat C and C beat A, three times each, with both colours.
    cycle = [("a", "b"), ("b", "c"), ("c", "a")]
    results = [
        Result(*(winner, loser) if white else (loser, winner), white_won=white)
        for winner, loser in cycle
        for white in (True, False, True)
    ]

    estimates = rating_list(results, {})

    for name in "abc":
        assert estimates[name].rating == pytest.approx(UNANCHORED_CENTRE, abs=1e-6)
        assert estimates[name].margin == pytest.approx(estimates["a"].margin, abs=1e-6)


def test_mirrored_records_sit_either_side_of_an_anchor() -> None:
    results = [Result("up", "anchor", True)] * 7 + [Result("anchor", "up", True)] * 3
    results += [Result("down", "anchor", True)] * 3 + [Result("anchor", "down", True)] * 7

    estimates = rating_list(results, {"anchor": 1600.0})

    assert estimates["up"].rating - 1600.0 == pytest.approx(1600.0 - estimates["down"].rating)
    assert estimates["up"].rating > 1600.0
    assert estimates["up"].margin == pytest.approx(estimates["down"].margin)


def test_a_bot_that_won_every_game_is_rated_finitely_above_its_opponents() -> None:
    rng = random.Random(3)
    results = _simulate({"a": 1500.0, "b": 1600.0, "c": 1700.0}, 60, rng)
    results += [Result("champion", rng.choice("abc"), True) for _ in range(20)]

    estimates = rating_list(results, {"a": 1500.0})

    champion = estimates["champion"]
    assert math.isfinite(champion.rating)
    assert math.isfinite(champion.margin)
    assert champion.rating > max(estimates[name].rating for name in "abc")


def test_a_member_without_games_sits_at_the_prior() -> None:
    estimates = rating_list([Result("a", "b", True)], {"a": 1800.0, "b": 1400.0}, ["newcomer"])

    assert estimates["newcomer"].rating == pytest.approx(1600.0)
    assert estimates["newcomer"].margin == pytest.approx(1.959964 * PRIOR_DEVIATION)
    assert rating_list([], {}, ["x"])["x"].rating == UNANCHORED_CENTRE


bots = st.sampled_from(["a", "b", "c", "d", "e"])
results = st.lists(
    st.tuples(bots, bots, st.booleans()).filter(lambda game: game[0] != game[1]),
    max_size=40,
).map(lambda games: [Result(*game) for game in games])


@given(results, st.sampled_from([{}, {"a": 1700.0}, {"a": 1200.0, "b": 2000.0}]))
def test_the_ratings_are_where_the_likelihood_peaks(
    results: list[Result], anchors: dict[str, float]
) -> None:
    estimates = rating_list(results, anchors)
    centre = sum(anchors.values()) / len(anchors) if anchors else UNANCHORED_CENTRE
    logistic = math.log(10.0) / 400.0

    for name, estimate in estimates.items():
        assert math.isfinite(estimate.rating)
        if name in anchors:
            continue
        # At the peak a bot's surplus of wins over expectation balances the prior's pull.
        surplus = sum(
            (result.winner == name)
            - _expected(
                estimate.rating,
                estimates[result.black if result.white == name else result.white].rating,
            )
            for result in results
            if name in (result.white, result.black)
        )
        pull = (estimate.rating - centre) / (logistic * PRIOR_DEVIATION**2)
        assert surplus == pytest.approx(pull, abs=1e-6)
    if not anchors:
        mean = sum(e.rating for e in estimates.values()) / max(len(estimates), 1)
        assert not estimates or mean == pytest.approx(UNANCHORED_CENTRE)
