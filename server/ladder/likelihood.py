"""The maximum-likelihood rating list of a ladder (Bradley-Terry on the Elo scale, as BayesElo
fits): every rating at once from all of the ladder's games, the anchors held at their ratings,
each with a 95% interval. Fitted afresh from all the games each time it is asked for.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from server.ladder.results import Result

__all__ = [
    "PRIOR_DEVIATION",
    "UNANCHORED_CENTRE",
    "Estimate",
    "rating_list",
]

Vector = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]

# The Elo scale's logistic slope: 400 points more is odds of 10 to 1.
_LOGISTIC = math.log(10.0) / 400.0

# Each rating but an anchor's has a Gaussian prior of this deviation (Elo) round the centre:
# weak enough to move a bot that scored 27 of 30 against the centre only 11 points towards it
# (less with more games), strong enough that a bot that won (or lost) every game gets a finite
# rating, as BayesElo's virtual draws do.
PRIOR_DEVIATION = 600.0

# The prior's centre is the anchors' mean rating; a ladder without anchors has its ratings'
# mean here, and differences between them are all its list says.
UNANCHORED_CENTRE = 1500.0

# Half the width of a 95% interval, in standard errors.
_Z95 = 1.959964

# Newton's method stops when no rating moves more than this (Elo) in a step.
_SETTLED = 1e-6
# Within about this many Elo of the peak Newton's full step is taken as it is.
_NEAR = 1.0
_MOST_STEPS = 100


@dataclass(frozen=True)
class Estimate:
    """A bot's rating on the list (Elo) and `margin`, the half-width of its 95% interval: the
    bot's strength is `rating ± margin` against the anchors. An anchor's margin is 0."""

    name: str
    rating: float
    margin: float
    anchor: bool = False


def rating_list(
    results: Iterable[Result], anchors: Mapping[str, float], members: Iterable[str] = ()
) -> dict[str, Estimate]:
    """The rating of every bot in `results`, `anchors` and `members` (a member without games has
    the prior's centre and its wide interval), each anchor at its rating in `anchors`.

    The ratings maximise the likelihood of the results, P(a beats b) = 1 / (1 + 10^((b - a) /
    400)), times the prior (PRIOR_DEVIATION round the anchors' mean rating, or
    UNANCHORED_CENTRE without anchors), found by Newton's method; the intervals come from the
    inverse of the observed information (the curvature of that at its peak). Colours are not
    modelled: the pairing balances them between every two bots."""
    results = list(results)
    names = sorted({*members, *anchors, *(r.white for r in results), *(r.black for r in results)})
    index = {name: i for i, name in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for result in results:
        wins[index[result.winner], index[result.loser]] += 1.0
    centre = float(np.mean(list(anchors.values()))) if anchors else UNANCHORED_CENTRE
    ratings = np.full(len(names), centre)
    free = np.ones(len(names), dtype=bool)
    for name, rating in anchors.items():
        ratings[index[name]] = rating
        free[index[name]] = False
    ratings, covariance = _fit(wins, ratings, free, centre)
    margins = np.zeros(len(names))
    margins[free] = _Z95 * np.sqrt(np.diag(covariance))
    return {
        name: Estimate(name, float(ratings[i]), float(margins[i]), anchor=not free[i])
        for i, name in enumerate(names)
    }


def _cost(wins: Vector, ratings: Vector, free: Mask, centre: float) -> float:
    """Minus the log of likelihood times prior, up to a constant."""
    gaps = ratings[:, None] - ratings[None, :]
    surprise = float(np.sum(wins * np.logaddexp(0.0, -_LOGISTIC * gaps)))
    return surprise + float(np.sum((ratings[free] - centre) ** 2)) / (2.0 * PRIOR_DEVIATION**2)


def _slope_and_curvature(
    wins: Vector, ratings: Vector, free: Mask, centre: float
) -> tuple[Vector, Vector]:
    """The gradient and Hessian of the cost in the free ratings."""
    games = wins + wins.T
    expected = 1.0 / (1.0 + np.exp(-_LOGISTIC * (ratings[:, None] - ratings[None, :])))
    slope = -_LOGISTIC * np.sum(wins - games * expected, axis=1)
    slope += (ratings - centre) / PRIOR_DEVIATION**2
    weights = _LOGISTIC**2 * games * expected * (1.0 - expected)
    curvature = np.diag(weights.sum(axis=1) + 1.0 / PRIOR_DEVIATION**2) - weights
    return slope[free], curvature[np.ix_(free, free)]


def _fit(wins: Vector, start: Vector, free: Mask, centre: float) -> tuple[Vector, Vector]:
    """The free ratings that minimise the cost, from `start`, and their covariance."""
    ratings = start.copy()
    if not free.any():
        return ratings, np.zeros((0, 0))
    for _ in range(_MOST_STEPS):
        slope, curvature = _slope_and_curvature(wins, ratings, free, centre)
        step = np.zeros_like(ratings)
        step[free] = np.linalg.solve(curvature, slope)
        largest = float(np.max(np.abs(step)))
        if largest < _SETTLED:
            covariance: Vector = np.linalg.inv(curvature).astype(np.float64)
            return ratings, covariance
        # The cost is convex, so a full Newton step overshoots only far from the peak (a bot
        # that won every game starts far below it): there, halve it until the cost falls
        # enough. Near the peak the full step is right, and the fall too small to measure.
        length = 1.0
        if largest > _NEAR:
            cost = _cost(wins, ratings, free, centre)
            fall = float(slope @ step[free])
            while _cost(wins, ratings - length * step, free, centre) > cost - 1e-4 * length * fall:
                length /= 2.0
        ratings = ratings - length * step
    raise ArithmeticError(f"the rating list did not settle in {_MOST_STEPS} Newton steps")
