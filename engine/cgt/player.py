"""Exact endgame play for a bot, from the regions' combinatorial values.

Once the board has split so that every contested region is small enough (`max_empty` empty
squares in all), `ExactEndgame` finds every region's value, from the endgame database when
one is given and holds the region, else by the region solver within a budget (seconds, or new
region positions when nothing may depend on the time), and then plays perfectly in the sum: a
move after which the sum is still a win for the mover (for Black a G' >= 0, for White G' <= 0),
the one that leaves the mover the largest mean. When more than `exact_hot` regions are hot,
adding their canonical forms can cost more than a move's time, so it plays in the hottest region
instead: there the move that leaves the region the best mean for the mover (the hot strategy of
CGT, exact once at most `exact_hot` hot regions are left).

It gives no move (None, so the bot searches as usual) when a contested region is too big or
not solved within the budget (then it waits until the contested regions have fewer empty
squares before it tries again), when every region is settled (the bot's own play is exact
there), and when every move loses: against a fallible opponent the search's choice keeps more
chances.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from engine.amazons.notation import Move, Side
from engine.amazons.position import Position
from engine.amazons.regions import Region, RegionKind
from engine.cgt.amazons import BudgetExceededError, LocalMove, LocalValues, RegionSolver
from engine.cgt.endgame import EndgameDatabase
from engine.cgt.endgame_cli import default_db
from engine.cgt.form import ZERO, Form

__all__ = ["ExactEndgame", "ExactReport"]

MEMO_LIMIT = 1_000_000  # region positions the solver keeps before it starts afresh


@dataclass(frozen=True, slots=True)
class ExactReport:
    """What the last call did: `how` is "database", "sum", "hottest", or why no move came
    ("open", "settled", "unsolved", "lost")."""

    how: str
    seconds: float
    value: Form | None = None  # the sum after the move played, when known


class ExactEndgame:
    """A bot's endgame hook: `exact(position, seconds, positions)` is a move played exactly
    within that many seconds or new region positions (None: no limit), or None."""

    def __init__(
        self,
        *,
        max_empty: int = 12,
        exact_hot: int = 4,
        database: EndgameDatabase | Path | str | None = None,
        solver: RegionSolver | None = None,
    ) -> None:
        self.max_empty = max_empty
        self.exact_hot = exact_hot
        if isinstance(database, str | Path):
            database = EndgameDatabase(database)
        self.database = database
        self.solver = solver or RegionSolver()
        self.report: ExactReport | None = None
        # Empty squares in the contested regions when the solver last ran out of time: it
        # tries again once there are fewer (its memo keeps what it learnt meanwhile).
        self._unsolved_at: int | None = None

    @classmethod
    def with_default_database(cls, *, max_empty: int = 12, exact_hot: int = 4) -> ExactEndgame:
        """With the endgame database at its default place ($ARENA_ENDGAME_DB, else
        ./.arena/endgame.sqlite) when one was built there; a file there that is not one
        raises DatabaseError."""
        path = default_db()
        database = _open(path.resolve(), path.stat().st_mtime_ns) if path.is_file() else None
        return cls(max_empty=max_empty, exact_hot=exact_hot, database=database)

    def __call__(
        self, position: Position, seconds: float | None, positions: int | None = None
    ) -> Move | None:
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        how, move, value = self._choose(position, deadline, positions)
        self.report = ExactReport(how, time.perf_counter() - start, value)
        return move

    def _choose(
        self, position: Position, deadline: float | None, positions: int | None
    ) -> tuple[str, Move | None, Form | None]:
        regions = position.regions()
        contested = [r for r in regions if r.kind is RegionKind.CONTESTED]
        if not contested:
            return "settled", None, None
        empty = sum(r.empty for r in contested)
        if empty > self.max_empty:
            self._unsolved_at = None  # a new game, or one not that far yet
            return "open", None, None
        if self._unsolved_at is not None and empty >= self._unsolved_at:
            return "unsolved", None, None
        if self.database is not None and self._in_database(regions):
            moves = self.database.best_moves(position)
            if moves:
                return "database", moves[0], None
            if moves is not None:
                return "lost", None, None
        if self.solver.stats.positions > MEMO_LIMIT:
            self.solver.clear()
        try:
            seconds = None if deadline is None else max(0.0, deadline - time.perf_counter())
            local = self.solver.local_move_values(position, seconds=seconds, positions=positions)
        except BudgetExceededError:
            self._unsolved_at = empty
            return "unsolved", None, None
        self._unsolved_at = None
        black = position.side_to_move is Side.BLACK
        hot = [g for g in local.regions if g.temperature > 0]
        if len(hot) > self.exact_hot:
            chosen = _hottest(local, black)
            return "hottest", chosen.move, None
        return _best_in_sum(local, black, deadline)

    def _in_database(self, regions: list[Region]) -> bool:
        assert self.database is not None
        database = self.database
        return all(
            r.kind is not RegionKind.CONTESTED or database.value(r) is not None for r in regions
        )


@functools.lru_cache(maxsize=4)
def _open(path: Path, mtime_ns: int) -> EndgameDatabase:
    """A database opened once per process (reading its shape table takes a while: 0.6 s for
    8 cells), again only when the file changed."""
    return EndgameDatabase(path)


def _best_in_sum(
    local: LocalValues, black: bool, deadline: float | None
) -> tuple[str, Move | None, Form | None]:
    """A move that keeps the sum a win for the mover, with the best mean for it (then the
    coolest sum left, then board order); "lost" when there is none, "unsolved" when the sums
    take past the deadline."""
    total = ZERO
    for g in local.regions:
        total = total + g
    best: tuple[Fraction, Fraction] | None = None
    chosen: tuple[Move, Form] | None = None
    for m in local.moves:
        if deadline is not None and time.perf_counter() > deadline:
            return "unsolved", None, None
        after = total - local.regions[m.region] + m.after
        if not (after >= ZERO if black else after <= ZERO):
            continue
        key = (after.mean if black else -after.mean, -after.temperature)
        if best is None or key > best:
            best, chosen = key, (m.move, after)
    if chosen is None:
        return "lost", None, None
    return "sum", chosen[0], chosen[1]


def _hottest(local: LocalValues, black: bool) -> LocalMove:
    """In the hottest region the mover can play in, the move leaving that region the best
    mean for the mover (then the coolest)."""
    playable = {m.region for m in local.moves}
    region = max(playable, key=lambda r: (local.regions[r].temperature, -r))
    return max(
        (m for m in local.moves if m.region == region),
        key=lambda m: (m.after.mean if black else -m.after.mean, -m.after.temperature),
    )
