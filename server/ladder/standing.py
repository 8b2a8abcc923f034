"""A ladder's standings: one row per bot, ranked by the maximum-likelihood rating list, with its
score, and the standings as a plain text table, the way a command line prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from server.glicko import Rating
from server.ladder.likelihood import rating_list
from server.ladder.rating import is_provisional
from server.ladder.results import Result, Score, scores

__all__ = ["Standing", "render_standings", "standings"]


@dataclass(frozen=True)
class Standing:
    """A bot's row: its `rank` (1 the highest rated), `name`, rating on the list with the
    half-width of its 95% interval (`margin`, 0 for an anchor) and its `score`."""

    rank: int
    name: str
    rating: float
    margin: float
    anchor: bool
    score: Score


def standings(
    results: Sequence[Result], anchors: Mapping[str, float], members: Iterable[str] = ()
) -> list[Standing]:
    """The rows of every bot in `results`, `anchors` and `members`, highest rating first (equal
    ratings by name)."""
    estimates = rating_list(results, anchors, members)
    score = scores(results)
    ranked = sorted(estimates.values(), key=lambda e: (-e.rating, e.name))
    return [
        Standing(rank, e.name, e.rating, e.margin, e.anchor, score.get(e.name, Score()))
        for rank, e in enumerate(ranked, start=1)
    ]


_HEADINGS = ("rank", "bot", "rating", "95%", "games", "won", "score")
_LIVE_HEADINGS = ("glicko", "online")


def render_standings(
    rows: Sequence[Standing],
    glicko: Mapping[str, Rating] | None = None,
    online: Set[str] = frozenset(),
) -> str:
    """The rows as a plain text table, one line per bot under a heading line, columns aligned:
    rank, name, rating (rounded to a point), ± its margin or `anchor`, games, games won and the
    share won; with `glicko`, also each bot's Glicko-2 rating and deviation (`?` after it while
    provisional, `-` before its first rated game) and whether it is in `online`. Ends with a
    newline."""
    headings = _HEADINGS if glicko is None else _HEADINGS + _LIVE_HEADINGS
    cells = [
        (
            str(row.rank),
            row.name,
            f"{row.rating:.0f}",
            "anchor" if row.anchor else f"±{row.margin:.0f}",
            str(row.score.games),
            str(row.score.wins),
            f"{100.0 * row.score.fraction:.1f}%" if row.score.games else "-",
        )
        + (() if glicko is None else (_glicko(glicko.get(row.name)), _online(row.name, online)))
        for row in rows
    ]
    widths = [max(len(line[c]) for line in [headings, *cells]) for c in range(len(headings))]
    lines = []
    for line in [headings, *cells]:
        # The name reads from the left; numbers line up on their last digit.
        padded = [
            text.ljust(width) if column == 1 else text.rjust(width)
            for column, (text, width) in enumerate(zip(line, widths, strict=True))
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"


def _glicko(rating: Rating | None) -> str:
    if rating is None:
        return "-"
    mark = "?" if is_provisional(rating) else ""
    return f"{rating.rating:.0f}±{rating.deviation:.0f}{mark}"


def _online(name: str, online: Set[str]) -> str:
    return "yes" if name in online else "no"
