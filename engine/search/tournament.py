"""Round-robin tournaments: every pair of bots plays a match; a cross table of scores and a
rating list fitted to all the games (Bradley-Terry on the Elo scale)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import TextIO

from engine.search.match import MatchResult, run_match

__all__ = ["TournamentResult", "fit_ratings", "run_tournament"]


@dataclass(slots=True)
class TournamentResult:
    bots: list[str]
    matches: dict[tuple[int, int], MatchResult]  # (i, j), i < j: i is the match's A

    def score(self, i: int, j: int) -> tuple[int, int]:
        """(wins of bot i against bot j, games between them)."""
        if i == j:
            return (0, 0)
        if i < j:
            result = self.matches.get((i, j))
            return (result.wins, result.games) if result else (0, 0)
        wins, games = self.score(j, i)
        return games - wins, games

    def cross_table(self) -> str:
        width = max(len(b) for b in self.bots) + 2
        labels = "".join(f"{k + 1:>8}" for k in range(len(self.bots)))
        lines = [f"{'':<4}{'bot':<{width}}{labels}{'total':>9}"]
        for i, bot in enumerate(self.bots):
            cells = []
            won = played = 0
            for j in range(len(self.bots)):
                wins, games = self.score(i, j)
                won += wins
                played += games
                cells.append(f"{wins / games:>8.0%}" if games else f"{'-':>8}")
            total = f"{won / played:>9.0%}" if played else f"{'-':>9}"
            lines.append(f"{i + 1:<4}{bot:<{width}}{''.join(cells)}{total}")
        return "\n".join(lines)

    def rating_list(self) -> str:
        wins = [[self.score(i, j)[0] for j in range(len(self.bots))] for i in range(len(self.bots))]
        ratings = fit_ratings(wins)
        order = sorted(range(len(self.bots)), key=lambda i: -ratings[i])
        lines = [f"{'rank':<6}{'bot':<32}{'Elo':>7}"]
        lines += [f"{n + 1:<6}{self.bots[i]:<32}{ratings[i]:>+7.0f}" for n, i in enumerate(order)]
        return "\n".join(lines)


def fit_ratings(wins: list[list[int]], iterations: int = 2000) -> list[float]:
    """Elo ratings (mean 0) that best explain `wins[i][j]` (wins of i over j), by the
    minorise-maximise iteration for Bradley-Terry. Each pair that met also counts one virtual
    draw, so that a bot that won or lost every game still gets a finite rating."""
    n = len(wins)
    games = [[wins[i][j] + wins[j][i] for j in range(n)] for i in range(n)]
    prior = [[1.0 if games[i][j] else 0.0 for j in range(n)] for i in range(n)]
    strength = [1.0] * n
    for _ in range(iterations):
        updated = []
        for i in range(n):
            won = sum(wins[i][j] + prior[i][j] / 2 for j in range(n))
            denominator = sum(
                (games[i][j] + prior[i][j]) / (strength[i] + strength[j])
                for j in range(n)
                if j != i
            )
            updated.append(won / denominator if denominator else strength[i])
        mean_log = sum(math.log(s) for s in updated) / n
        strength = [s / math.exp(mean_log) for s in updated]
    return [400 * math.log10(s) for s in strength]


def run_tournament(
    bots: list[str],
    games: int,
    seconds: float,
    setup: str,
    jobs: int = 1,
    out: TextIO | None = None,
    progress: Callable[[str], None] | None = None,
    game: str = "amazons",
) -> TournamentResult:
    """Every pair plays `games` games, colours alternating. Ctrl-C ends the current match and
    the tournament with what has finished."""
    result = TournamentResult(list(bots), {})
    for i, j in combinations(range(len(bots)), 2):
        match = run_match(
            bots[i],
            bots[j],
            games,
            seconds,
            setup,
            jobs=jobs,
            out=out,
            progress=progress,
            game=game,
        )
        result.matches[(i, j)] = match
        if match.games < games:
            break
    return result
