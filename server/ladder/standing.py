"""A ladder's standings: one row per bot, ranked by the maximum-likelihood rating list, with its
score, and the standings as a plain text table, the way a command line prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from server.glicko import MAX_DEVIATION, Rating
from server.ladder.likelihood import rating_list
from server.ladder.rating import is_provisional
from server.ladder.results import Result, Score, scores
from server.protocol import StandingRow
from server.protocol.limits import MAX_RATING

__all__ = ["Standing", "Table", "render_standings", "standings"]


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


@dataclass(frozen=True)
class Table:
    """The standings of the ladder named `ladder` as shown: the `rows`, each bot's Glicko-2
    rating (`glicko`, those rated) and the bots `online` now."""

    ladder: str
    rows: list[Standing]
    glicko: Mapping[str, Rating]
    online: frozenset[str]

    def render(self) -> str:
        return render_standings(self.rows, self.glicko, self.online)

    def to_wire(self) -> tuple[StandingRow, ...]:
        """The rows as the protocol sends them (ratings rounded to whole points, within the
        protocol's bounds)."""
        return tuple(self._wire_row(row) for row in self.rows)

    def _wire_row(self, row: Standing) -> StandingRow:
        rated = self.glicko.get(row.name)
        return StandingRow(
            rank=row.rank,
            bot=row.name,
            rating=_points(row.rating),
            margin=_points(row.margin),
            anchor=row.anchor,
            games=row.score.games,
            wins=row.score.wins,
            glicko=None if rated is None else _points(rated.rating),
            deviation=None if rated is None else _points(rated.deviation),
            provisional=rated is None or is_provisional(rated),
            online=row.name in self.online,
        )

    @classmethod
    def from_wire(cls, ladder: str, rows: Iterable[StandingRow]) -> Table:
        """The table of `ladder` that a `standings` event sends (what a client shows)."""
        rows = list(rows)
        standing = [
            Standing(r.rank, r.bot, r.rating, r.margin, r.anchor, Score(r.wins, r.games - r.wins))
            for r in rows
        ]
        glicko = {
            r.bot: Rating(r.glicko, min(max(r.deviation, 1), MAX_DEVIATION))
            for r in rows
            if r.glicko is not None and r.deviation is not None
        }
        return cls(ladder, standing, glicko, frozenset(r.bot for r in rows if r.online))


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


def _points(value: float) -> int:
    return min(max(round(value), 0), MAX_RATING)
