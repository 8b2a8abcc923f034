"""The census of short games: every canonical form born by a given day."""

from __future__ import annotations

from itertools import combinations

from engine.cgt import forms
from engine.cgt.form import Form

__all__ = ["born_by"]


def born_by(day: int) -> list[Form]:
    """Every game born by `day`, oldest first (1, 4, 22 and 1474 games by days 0..3).

    Canonical options are pairwise incomparable, so each side is drawn from the antichains of
    the day before rather than from all its subsets; that keeps day 3 within reach.
    """
    if day < 0:
        raise ValueError(f"day {day} is before day 0")
    games = [forms.ZERO]
    for _ in range(day):
        sides = _antichains(games)
        found = {forms.construct(left, right) for left in sides for right in sides}
        games = sorted(found, key=lambda g: (forms.birthday(g), g))
    return [Form(g) for g in games]


def _antichains(games: list[int]) -> list[tuple[int, ...]]:
    """Every set of pairwise incomparable games among `games` (the empty set included)."""
    comparable = {(g, h) for g, h in combinations(games, 2) if forms.leq(g, h) or forms.leq(h, g)}
    found: list[tuple[int, ...]] = [()]
    frontier: list[tuple[int, ...]] = [()]
    while frontier:
        grown = []
        for antichain in frontier:
            start = games.index(antichain[-1]) + 1 if antichain else 0
            for h in games[start:]:
                if all((g, h) not in comparable for g in antichain):
                    grown.append((*antichain, h))
        found.extend(grown)
        frontier = grown
    return found
