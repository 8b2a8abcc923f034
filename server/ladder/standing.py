"""A ladder's standings: one row per bot, ranked by the maximum-likelihood rating list, with its
score, and the standings as a plain text table, the way a command line prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from server.ladder.likelihood import rating_list
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


def render_standings(rows: Sequence[Standing]) -> str:
    """The rows as a plain text table, one line per bot under a heading line, columns aligned:
    rank, name, rating (rounded to a point), ± its margin or `anchor`, games, games won and the
    share won. Ends with a newline."""
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
        for row in rows
    ]
    widths = [max(len(line[c]) for line in [_HEADINGS, *cells]) for c in range(len(_HEADINGS))]
    lines = []
    for line in [_HEADINGS, *cells]:
        # The name reads from the left; numbers line up on their last digit.
        padded = [
            text.ljust(width) if column == 1 else text.rjust(width)
            for column, (text, width) in enumerate(zip(line, widths, strict=True))
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"
