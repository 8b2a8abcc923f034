"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2012): a player's rating after a
rating period, and after one game when each game is its own period, as online servers rate.
Pure arithmetic on `Rating` values; storing them and choosing who is rated is the caller's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "MAX_DEVIATION",
    "TAU",
    "Rating",
    "expected_score",
    "rate_game",
    "update",
]

# Glicko-2 works on a scale where 1500 is 0 and one unit is this many rating points.
SCALE = 173.7178
CENTRE = 1500.0

# A new player's deviation; nobody is ever less known than that.
MAX_DEVIATION = 350.0

# The system constant: how far one period's results may move the volatility. Glickman suggests
# 0.3 to 1.2; 0.5 is his example's value.
TAU = 0.5

# Stop the volatility search when the bracket is this narrow (the paper's epsilon).
CONVERGENCE = 1e-6


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating: `rating` in points, `deviation` (RD) its uncertainty in points,
    and `volatility` how erratic the player's results have been."""

    rating: float = CENTRE
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise ValueError(f"rating must be a finite number, got {self.rating}")
        if not 0.0 < self.deviation <= MAX_DEVIATION:
            raise ValueError(f"deviation must be in (0, {MAX_DEVIATION}], got {self.deviation}")
        if not 0.0 < self.volatility < math.inf:
            raise ValueError(f"volatility must be positive and finite, got {self.volatility}")


def _g(phi: float) -> float:
    # Results against an uncertain opponent say less about the player.
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, opponent_mu: float, opponent_phi: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(opponent_phi) * (mu - opponent_mu)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The score `player` is expected to make against `opponent`, from 0 to 1."""
    return _expected(
        (player.rating - CENTRE) / SCALE,
        (opponent.rating - CENTRE) / SCALE,
        opponent.deviation / SCALE,
    )


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        spread = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * spread * spread) - (x - a) / tau2

    A = a
    if delta2 > phi2 + v:
        B = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0.0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    while abs(B - A) > CONVERGENCE:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0.0:
            A, fA = B, fB
        else:
            # Halving the stale end's value is what makes this Illinois rather than plain
            # regula falsi, which can crawl when one end never moves.
            fA /= 2.0
        B, fB = C, fC
    return math.exp(A / 2.0)


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """`player`'s rating after one rating period with `results`, each an opponent's rating at the
    start of the period and the player's score against them (1 a win, 0.5 a draw, 0 a loss).
    With no results only the deviation grows, by the player's volatility. The deviation never
    goes above MAX_DEVIATION."""
    if tau <= 0.0:
        raise ValueError(f"tau must be positive, got {tau}")
    for _, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score must be from 0 to 1, got {score}")
    mu = (player.rating - CENTRE) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        grown = math.sqrt(phi * phi + sigma * sigma) * SCALE
        return Rating(player.rating, min(grown, MAX_DEVIATION), sigma)

    information = 0.0
    improvement = 0.0
    for opponent, score in results:
        opponent_mu = (opponent.rating - CENTRE) / SCALE
        opponent_phi = opponent.deviation / SCALE
        g = _g(opponent_phi)
        expected = _expected(mu, opponent_mu, opponent_phi)
        information += g * g * expected * (1.0 - expected)
        improvement += g * (score - expected)
    v = 1.0 / information
    delta = v * improvement

    sigma_new = _new_volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(
        mu_new * SCALE + CENTRE,
        min(phi_new * SCALE, MAX_DEVIATION),
        sigma_new,
    )


def rate_game(
    white: Rating, black: Rating, white_won: bool, tau: float = TAU
) -> tuple[Rating, Rating]:
    """White's and Black's ratings after one game between them, the game being its own rating
    period. Each is rated against the other's rating from before the game."""
    white_score = 1.0 if white_won else 0.0
    return (
        update(white, [(black, white_score)], tau),
        update(black, [(white, 1.0 - white_score)], tau),
    )
