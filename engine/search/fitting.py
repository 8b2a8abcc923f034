"""Weights for the evaluation's terms fitted to game results (`arena fit`).

Every position of the recorded games is a sample: its terms (t1, t2, c1, c2, mobility, each
split into a late share, times f1, and an early one, times 1 - f1, as `weighted_evaluate` mixes
them) and whether the side to move went on to win. A logistic regression of the result on those
ten numbers gives weights under which a score is a log-odds of winning. Checked game by game
held out (positions of one game are never split between fitting and testing), against
Lieberum's mix turned into a chance by the one slope that fits it best.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.amazons import Position
from engine.errors import NotationError
from engine.records import GameRecord
from engine.search.evaluation import LIEBERUM, evaluation_terms, late_share

__all__ = ["PHASES", "Fit", "PhaseScore", "Samples", "fit_logistic", "fit_records", "samples"]

FloatArray = npt.NDArray[np.float64]

# Plies of each phase the figures are given for.
PHASES: tuple[tuple[int, int], ...] = ((0, 16), (16, 32), (32, 48), (48, 1000))
RIDGE = 1e-3  # on the mean log loss, per squared weight: keeps rare terms from running off
FOLDS = 5


@dataclass(frozen=True, slots=True)
class Samples:
    terms: FloatArray  # (n, 10): the terms split into late and early shares
    won: FloatArray  # 1.0 when the side to move won the game
    game: npt.NDArray[np.int64]  # the record each position comes from
    ply: npt.NDArray[np.int64]


def _split_terms(position: Position) -> list[float]:
    terms = evaluation_terms(position)
    late = late_share(terms.w)
    values = (terms.t1, terms.t2, terms.c1, terms.c2, terms.mobility)
    return [late * v for v in values] + [(1.0 - late) * v for v in values]


def samples(records: Sequence[GameRecord]) -> Samples:
    """The positions of finished Amazons games, each with its terms and its side's result."""
    rows: list[list[float]] = []
    won: list[float] = []
    game: list[int] = []
    ply: list[int] = []
    for number, record in enumerate(records):
        if record.game != "amazons" or record.winner not in ("white", "black"):
            continue
        try:
            position = Position.parse(record.start)
        except NotationError as error:
            raise NotationError(f"game {number + 1}, start: {error}") from None
        for index, text in enumerate(record.moves):
            if position.is_terminal():
                break
            rows.append(_split_terms(position))
            won.append(float((position.current_player == 0) == (record.winner == "white")))
            game.append(number)
            ply.append(index)
            try:
                position.apply(position.parse_move(text))
            except ValueError as error:
                raise NotationError(
                    f"game {number + 1}, move {index + 1} {text!r}: {error}"
                ) from None
    if not rows:
        raise NotationError("no finished Amazons games in the records")
    return Samples(
        np.array(rows, np.float64),
        np.array(won, np.float64),
        np.array(game, np.int64),
        np.array(ply, np.int64),
    )


def fit_logistic(x: FloatArray, y: FloatArray, ridge: float = RIDGE) -> FloatArray:
    """The weights b minimising the mean of log(1 + e^(x b)) - y x b, plus ridge |b|^2, by
    Newton's method."""
    b = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ b)))
        gradient = x.T @ (p - y) / len(y) + 2 * ridge * b
        hessian = (x.T * (p * (1 - p))) @ x / len(y) + 2 * ridge * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        b -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return b


@dataclass(frozen=True, slots=True)
class PhaseScore:
    plies: tuple[int, int]
    positions: int
    loss: float  # mean log loss of the chance given to the side to move
    sign: float  # share of positions whose score's sign names the winner


@dataclass(frozen=True, slots=True)
class Fit:
    weights: FloatArray  # over all the samples, in log-odds
    lieberum_slope: float  # the slope that turns Lieberum's mix into the best chance
    fitted: list[PhaseScore]  # held out, game by game
    lieberum: list[PhaseScore]
    games: int
    positions: int

    def table(self, slope: float) -> str:
        """The figures, and the weights divided by `slope` (how invader's FITTED holds them)."""
        lines = [
            f"{self.positions} positions of {self.games} games. Log loss, and share of scores "
            "whose sign names the winner;",
            "each game's positions scored by weights fitted to the other games:",
            f"{'plies':>8} {'positions':>9}   Lieberum (slope {self.lieberum_slope:.3f})   fitted",
        ]
        for ours, theirs in zip(self.fitted, self.lieberum, strict=True):
            low, high = ours.plies
            span = f"{low}-{high - 1}" if high < PHASES[-1][1] else f"{low}-"
            lines.append(
                f"{span:>8} {ours.positions:>9}   {theirs.loss:.3f} {theirs.sign:6.1%}"
                f"{'':>12}{ours.loss:.3f} {ours.sign:6.1%}"
            )
        lines.append("weights of t1, t2, c1, c2, mobility late (times f1), then early:")
        lines.append("  log-odds: " + _numbers(self.weights))
        lines.append(f"  / slope {slope}: " + _numbers(self.weights / slope))
        return "\n".join(lines)


def _scores(logits: FloatArray, data: Samples) -> list[PhaseScore]:
    loss = np.logaddexp(0.0, logits) - data.won * logits
    right = (logits > 0) == (data.won > 0.5)
    out = []
    for low, high in PHASES:
        inside = (data.ply >= low) & (data.ply < high)
        if inside.any():
            out.append(
                PhaseScore(
                    (low, high),
                    int(inside.sum()),
                    float(loss[inside].mean()),
                    float(right[inside].mean()),
                )
            )
    return out


def fit_records(records: Iterable[GameRecord], seed: int = 0) -> Fit:
    """Fit the weights to the records and score them, and Lieberum's, on held-out games."""
    data = samples(list(records))
    lieberum = (data.terms @ LIEBERUM)[:, None]
    games = np.unique(data.game)
    if len(games) < 2:
        raise NotationError("fitting needs two finished games or more, to hold some out")
    np.random.default_rng(seed).shuffle(games)
    held_fitted = np.zeros(len(data.won))
    held_lieberum = np.zeros(len(data.won))
    for fold in np.array_split(games, min(FOLDS, len(games))):
        test = np.isin(data.game, fold)
        held_fitted[test] = data.terms[test] @ fit_logistic(data.terms[~test], data.won[~test])
        slope = fit_logistic(lieberum[~test], data.won[~test])
        held_lieberum[test] = lieberum[test, 0] * slope[0]
    return Fit(
        weights=fit_logistic(data.terms, data.won),
        lieberum_slope=float(fit_logistic(lieberum, data.won)[0]),
        fitted=_scores(held_fitted, data),
        lieberum=_scores(held_lieberum, data),
        games=len(games),
        positions=len(data.won),
    )


def _numbers(values: FloatArray) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"
