"""A ladder's standings: one row per bot, ranked by the maximum-likelihood rating list, with its
score; the table as shown (with each bot's owner, engine and when it was last seen, the ladder's
last games and its cross table), as plain text the way a command line prints it and as the
`standings` event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field

from server.glicko import MAX_DEVIATION, Rating
from server.ladder.likelihood import rating_list
from server.ladder.rating import is_provisional
from server.ladder.results import Result, Score, scores
from server.protocol import Colour, CrossScore, LadderGame, StandingRow, Standings
from server.protocol.limits import MAX_CROSS_PAIRS, MAX_ENGINE_LENGTH, MAX_LISTED, MAX_RATING

__all__ = ["WIDTH", "Standing", "Table", "render_standings", "standings"]


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
    rating (`glicko`, those rated), the bots `online` now, each bot's `owner`, the `engine` it
    last said it plays with and when it was `seen` last (server ms: on the ladder or in a game
    there), the ladder's last `games` (the latest first) and its `cross` table
    (`results.cross_table`)."""

    ladder: str
    rows: list[Standing]
    glicko: Mapping[str, Rating]
    online: frozenset[str]
    owners: Mapping[str, str] = field(default_factory=dict)
    engines: Mapping[str, str] = field(default_factory=dict)
    seen: Mapping[str, int] = field(default_factory=dict)
    games: Sequence[Result] = ()
    cross: Mapping[str, Mapping[str, Score]] = field(default_factory=dict)

    def render(self, now: int) -> str:
        """The table as `arena ladder standings` prints it, ages counted to `now` (server ms),
        within WIDTH columns; the ladder's last games under it."""
        cells = [
            (
                *_cells(row),
                _glicko(self.glicko.get(row.name)),
                "now" if row.name in self.online else _ago(self.seen.get(row.name), now),
                self.owners.get(row.name, "-"),
                self.engines.get(row.name, "-"),
            )
            for row in self.rows
        ]
        text = _aligned(_HEADINGS + _LIVE_HEADINGS, cells, left={1, 8, 9, 10}, shrink=(10, 9, 1))
        if not self.games:
            return text
        games = [
            (
                result.game_id,
                result.white,
                result.black,
                result.winner,
                _ago(result.ended, now),
            )
            for result in self.games
        ]
        return text + "\n" + _aligned(_GAME_HEADINGS, games, left={0, 1, 2, 3, 4}, shrink=(0, 2, 1))

    def render_cross(self) -> str:
        """The cross table: a row and a column per bot in rank order, headed by rank; a cell is
        the row's wins-losses against the column's bot, `-` for a pair that has not played,
        blank where a bot meets itself."""
        ranks = [str(row.rank) for row in self.rows]
        cells = [
            (
                rank,
                row.name,
                *(
                    "" if other is row else _score(self.cross.get(row.name, {}), other.name)
                    for other in self.rows
                ),
            )
            for rank, row in zip(ranks, self.rows, strict=True)
        ]
        return _aligned(("rank", "bot", *ranks), cells, left={1}, shrink=(1,))

    def to_wire(self, id: int | None = None) -> Standings:
        """The `standings` event that sends the table (ratings rounded to whole points, within
        the protocol's bounds), as the reply to the request `id`."""
        return Standings(
            self.ladder,
            tuple(self._wire_row(row) for row in self.rows),
            tuple(_wire_game(result) for result in self.games[:MAX_LISTED]),
            self._wire_cross(),
            id=id,
        )

    def _wire_row(self, row: Standing) -> StandingRow:
        rated = self.glicko.get(row.name)
        engine = self.engines.get(row.name)
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
            owner=self.owners.get(row.name),
            engine=None if not engine else engine[:MAX_ENGINE_LENGTH],
            last_seen=self.seen.get(row.name),
        )

    def _wire_cross(self) -> tuple[CrossScore, ...]:
        """Each pair that has played once, the higher ranked bot first; as many pairs as the
        protocol allows, those of the highest ranked bots first."""
        pairs = []
        for place, row in enumerate(self.rows):
            against = self.cross.get(row.name, {})
            for other in self.rows[place + 1 :]:
                score = against.get(other.name)
                if score is not None:
                    pairs.append((row.name, other.name, score.wins, score.losses))
        return tuple(pairs[:MAX_CROSS_PAIRS])

    @classmethod
    def from_wire(cls, standings: Standings) -> Table:
        """The table a `standings` event sends (what a client shows)."""
        rows = standings.rows
        standing = [
            Standing(r.rank, r.bot, r.rating, r.margin, r.anchor, Score(r.wins, r.games - r.wins))
            for r in rows
        ]
        glicko = {
            r.bot: Rating(r.glicko, min(max(r.deviation, 1), MAX_DEVIATION))
            for r in rows
            if r.glicko is not None and r.deviation is not None
        }
        cross: dict[str, dict[str, Score]] = {}
        for bot, opponent, wins, losses in standings.cross:
            cross.setdefault(bot, {})[opponent] = Score(wins, losses)
            cross.setdefault(opponent, {})[bot] = Score(losses, wins)
        games = [
            Result(g.white, g.black, g.winner is Colour.WHITE, g.game_id, g.ended)
            for g in standings.games
        ]
        return cls(
            standings.ladder,
            standing,
            glicko,
            frozenset(r.bot for r in rows if r.online),
            owners={r.bot: r.owner for r in rows if r.owner is not None},
            engines={r.bot: r.engine for r in rows if r.engine is not None},
            seen={r.bot: r.last_seen for r in rows if r.last_seen is not None},
            games=games,
            cross=cross,
        )


WIDTH = 100  # columns a printed table keeps within, shortening its long names to fit
_HEADINGS = ("rank", "bot", "rating", "95%", "games", "won", "score")
_LIVE_HEADINGS = ("glicko", "seen", "owner", "engine")
_GAME_HEADINGS = ("game", "white", "black", "winner", "ended")
_NARROWEST = 6  # characters a shortened column keeps


def render_standings(rows: Sequence[Standing]) -> str:
    """The rows as a plain text table, one line per bot under a heading line, columns aligned:
    rank, name, rating (rounded to a point), ± its margin or `anchor`, games, games won and the
    share won. Ends with a newline."""
    return _aligned(_HEADINGS, [_cells(row) for row in rows], left={1}, shrink=(1,))


def _cells(row: Standing) -> tuple[str, ...]:
    return (
        str(row.rank),
        row.name,
        f"{row.rating:.0f}",
        "anchor" if row.anchor else f"±{row.margin:.0f}",
        str(row.score.games),
        str(row.score.wins),
        f"{100.0 * row.score.fraction:.1f}%" if row.score.games else "-",
    )


def _aligned(
    headings: Sequence[str],
    cells: Sequence[Sequence[str]],
    *,
    left: Set[int],
    shrink: Sequence[int],
) -> str:
    """`cells` under `headings`, one line each, the columns in `left` read from the left and
    the others lined up on their last character; while wider than WIDTH, the columns in
    `shrink`, in that order, are shortened (to _NARROWEST at the least, their cells cut with
    `…`). Ends with a newline."""
    lines = [tuple(headings), *(tuple(line) for line in cells)]
    widths = [max(len(line[c]) for line in lines) for c in range(len(headings))]
    for column in shrink:
        excess = sum(widths) + 2 * (len(widths) - 1) - WIDTH
        if excess <= 0:
            break
        widths[column] = max(_NARROWEST, len(headings[column]), widths[column] - excess)
    text = []
    for line in lines:
        padded = [
            _cut(cell, width).ljust(width) if c in left else _cut(cell, width).rjust(width)
            for c, (cell, width) in enumerate(zip(line, widths, strict=True))
        ]
        text.append("  ".join(padded).rstrip())
    return "\n".join(text) + "\n"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _ago(then: int | None, now: int) -> str:
    """How long before `now` the time `then` was (both server ms), in whole minutes, hours or
    days: `5 min ago`; `-` for a time not known."""
    if then is None:
        return "-"
    minutes = max(now - then, 0) // 60_000
    if minutes < 60:
        return f"{max(minutes, 1)} min ago"
    if minutes < 24 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // (24 * 60)} d ago"


def _score(against: Mapping[str, Score], opponent: str) -> str:
    """A cell of the cross table: `3-1`, or `-` before the pair's first game."""
    score = against.get(opponent)
    return "-" if score is None else f"{score.wins}-{score.losses}"


def _wire_game(result: Result) -> LadderGame:
    winner = Colour.WHITE if result.white_won else Colour.BLACK
    return LadderGame(result.game_id, result.white, result.black, winner, result.ended)


def _glicko(rating: Rating | None) -> str:
    if rating is None:
        return "-"
    mark = "?" if is_provisional(rating) else ""
    return f"{rating.rating:.0f}±{rating.deviation:.0f}{mark}"


def _points(value: float) -> int:
    return min(max(round(value), 0), MAX_RATING)
