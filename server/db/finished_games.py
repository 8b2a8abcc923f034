"""Finished games in the history store: a game's end is written once, its record, its moves and
the rating changes it makes in one transaction keyed by its id, so a retry or a second process
changes nothing; and read back one by one or a page at a time, newest first (keyset paging), by
player, date, game, ladder and whether rated.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, Row, Select, bindparam, select, tuple_, union, update
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.records import GameRecord, utc_date
from server.db.database import Database
from server.db.ladders import rate_ladder_game_in
from server.db.pools import add_points, dialect_insert, lock_ratings, store_ratings
from server.db.schema import GAME_POOL, GAMES, MOVES, RATING_HISTORY
from server.glicko import Rating, rate_game
from server.protocol import GameStatus, PlayerKind
from server.stored_game import StoredGame

__all__ = [
    "MAX_PAGE",
    "FinishedGame",
    "GameCursor",
    "GamePage",
    "RatingChange",
    "Recorded",
    "Seat",
    "copy_finished_games",
    "every_game",
    "finished_game",
    "games",
    "record_finished_game",
]

MAX_PAGE: Final = 100  # games a page holds at most
COLOURS: Final = ("white", "black")


@dataclass(frozen=True)
class Seat:
    """A player of a finished game: the name shown, what kind of player, and for a house bot
    its spec at the strength it played (`invader@5`), which its ratings are kept by."""

    name: str
    kind: PlayerKind
    house: str | None = None

    @property
    def key(self) -> str:
        """The name as searches compare it: names are case-insensitive."""
        return self.name.lower()

    @property
    def holder(self) -> str | None:
        """Whose rating the game moves: an account's lower-case name, a house bot's spec;
        None for a guest, or a house bot whose strength is not known, which nobody rates."""
        if self.kind is PlayerKind.GUEST:
            return None
        if self.kind is PlayerKind.HOUSE:
            return None if self.house is None else self.house.lower()
        return self.key


@dataclass(frozen=True)
class RatingChange:
    """A player's rating in the game's pool before a rated game and after it."""

    before: float
    after: float


@dataclass(frozen=True)
class FinishedGame:
    """A finished game as the history keeps it: its record (id, game, start, setup, time
    control, rated, moves with the seconds each took and the clocks after it, winner,
    termination; `docs/records.md`), its players, when it was made and ended (ms since the
    epoch), the ladder that started it, the rating changes it made (read back: what
    `record_finished_game` is given there is not used, it rates the game itself), for an
    aborted game why (`called_off`, `no_first_move`) and the side that did it, and the clocks
    (white's, black's ms) when it ended: None for a game recorded before they were kept."""

    record: GameRecord
    white: Seat
    black: Seat
    created: int
    ended: int
    ladder: str | None = None
    changes: tuple[RatingChange, RatingChange] | None = None
    abort_cause: str | None = None
    abort_side: str | None = None
    final_clocks: tuple[int, int] | None = None

    @classmethod
    def of(cls, game: StoredGame, ladder: str | None = None) -> FinishedGame:
        """A game the live store has ended, as the history keeps it (`ladder`: the ladder that
        started it). A ValueError for a game still played."""
        if game.status is not GameStatus.ENDED or game.ended is None:
            raise ValueError(f"game {game.game_id} has not ended")
        white, black = (
            Seat(player.name, player.kind, house)
            for player, house in zip((game.white, game.black), game.house, strict=True)
        )
        cause, side = game.abort_cause, game.abort_side
        return cls(
            game.record(),
            white,
            black,
            game.created,
            game.ended,
            ladder,
            abort_cause=None if cause is None else str(cause),
            abort_side=None if side is None else str(side),
            # Games ended before servers kept the clocks at the end have none.
            final_clocks=None
            if (final := game.extra.get("final_clocks")) is None
            else tuple(final),
        )

    @property
    def game_id(self) -> str:
        assert self.record.game_id is not None
        return self.record.game_id

    @property
    def moves_ratings(self) -> bool:
        """Whether the game moves its players' ratings: rated, won, between two players with
        ratings of their own."""
        holders = (self.white.holder, self.black.holder)
        return (
            bool(self.record.rated)
            and self.record.winner in COLOURS
            and None not in holders
            and holders[0] != holders[1]
        )


@dataclass(frozen=True)
class Recorded:
    """What `record_finished_game` did: `first` is False when the game was recorded already
    (a retry, another process), and then nothing changed; `changes` are the rating changes the
    game made, by whichever call recorded it."""

    first: bool
    changes: tuple[RatingChange, RatingChange] | None


@dataclass(frozen=True, order=True)
class GameCursor:
    """Where a page of games ends: the last game's end and id. Its text, `1700000000000.abc`,
    goes in a request for the next page."""

    ended: int
    game_id: str

    def __str__(self) -> str:
        return f"{self.ended}.{self.game_id}"

    @classmethod
    def parse(cls, text: str) -> GameCursor:
        ended, dot, game_id = text.partition(".")
        if not dot or not ended.isdigit() or not game_id:
            raise ValueError(f"{text!r} is not a place in a list of games (ENDED.GAME_ID)")
        return cls(int(ended), game_id)


@dataclass(frozen=True)
class GamePage:
    """A page of finished games, newest first, and where the next page starts (None after the
    last)."""

    games: list[FinishedGame]
    next: GameCursor | None


def _check(game: FinishedGame) -> None:
    record = game.record
    if not record.game_id:
        raise ValueError("a finished game to record has no game_id")
    if record.time is None or len(record.time) != 2:
        raise ValueError(f"game {record.game_id} has no time control [base, increment]")
    if record.winner not in (None, *COLOURS):
        raise ValueError(f"game {record.game_id}: winner {record.winner!r} is not white or black")
    counts = {len(record.moves), len(record.seconds), len(record.clocks)}
    if len(counts) != 1:
        raise ValueError(
            f"game {record.game_id} has {len(record.moves)} moves, {len(record.seconds)} "
            f"times and {len(record.clocks)} clocks: one of each a move"
        )


async def record_finished_game(db: Database, game: FinishedGame) -> Recorded:
    """Write `game`, its moves and, when it moves ratings (`FinishedGame.moves_ratings`), its
    players' new ratings in its game's pool and their history points, and a ladder game's
    result with its players' new ladder ratings and history points (`rate_ladder_game_in`), all
    in one transaction keyed by the game's id: a second call for the same game
    (a retry, another process, at the same moment or later) writes nothing and says so.
    A ValueError for a game that cannot be recorded (no id, moves without times or clocks)."""
    _check(game)
    return await db.transact(_record, game)


def _record(connection: Connection, game: FinishedGame) -> Recorded:
    """`record_finished_game`'s transaction, on `connection`."""
    if connection.execute(_claim(connection.dialect.name), _game_row(game)).first() is None:
        row = connection.execute(select(GAMES).where(GAMES.c.game_id == game.game_id)).one()
        return Recorded(False, _changes(row))
    if game.record.moves:
        connection.execute(MOVES.insert(), _move_rows(game))
    changes = _rate(connection, game) if game.moves_ratings else None
    if changes is not None:
        shown = {
            f"new_{colour}_{when}": getattr(change, when)
            for colour, change in zip(COLOURS, changes, strict=True)
            for when in ("before", "after")
        }
        connection.execute(_RATED, {"id": game.game_id, **shown})
    if game.ladder is not None:
        rate_ladder_game_in(connection, game)
    return Recorded(True, changes)


@functools.cache
def _claim(dialect: str) -> Any:
    """Insert a game's row unless it is there, saying whether it was."""
    return (
        dialect_insert(dialect, GAMES)
        .on_conflict_do_nothing(index_elements=[GAMES.c.game_id])
        .returning(GAMES.c.game_id)
    )


async def copy_finished_games(db: Database, found: Sequence[FinishedGame]) -> int:
    """Write games rated elsewhere (an older data folder's, whose ratings moved with their
    history points): their records and moves, no rating moved, in one transaction; a game
    recorded already is left as it is, and one that cannot be recorded (see
    `record_finished_game`) is left out, holding up none of the others. How many were
    written."""
    recordable = []
    for game in found:
        try:
            _check(game)
        except ValueError:
            continue
        recordable.append(game)
    written = 0
    async with db.writing() as connection:
        for game in recordable:
            claimed = await connection.execute(_claim(connection.dialect.name), _game_row(game))
            if claimed.first() is None:
                continue
            written += 1
            if game.record.moves:
                await connection.execute(MOVES.insert(), _move_rows(game))
    return written


def _game_row(game: FinishedGame) -> dict[str, object]:
    record = game.record
    assert record.time is not None
    row: dict[str, object] = {
        "game_id": game.game_id,
        "game": record.game,
        "setup": record.setup,
        "start": record.start,
        "time_base": record.time[0],
        "time_increment": record.time[1],
        "rated": bool(record.rated),
        "ladder": game.ladder,
        "created": game.created,
        "ended": game.ended,
        "winner": record.winner,
        "termination": record.termination,
        "plies": len(record.moves),
        "abort_cause": game.abort_cause,
        "abort_side": game.abort_side,
        "white_final_ms": None if game.final_clocks is None else game.final_clocks[0],
        "black_final_ms": None if game.final_clocks is None else game.final_clocks[1],
    }
    shown = (record.white_rating, record.black_rating)
    for colour, seat, rating in zip(COLOURS, (game.white, game.black), shown, strict=True):
        row |= {
            colour: seat.name,
            f"{colour}_key": seat.key,
            f"{colour}_kind": str(seat.kind),
            f"{colour}_house": seat.house,
            # As shown when the game began; a rated game's are replaced by what rated it.
            f"{colour}_rating_before": rating,
        }
    return row


def _move_rows(game: FinishedGame) -> list[dict[str, object]]:
    record = game.record
    return [
        {
            "game_id": game.game_id,
            "ply": ply,
            "move": move,
            "ms": round(seconds * 1000),
            "white_ms": clocks[0],
            "black_ms": clocks[1],
        }
        for ply, (move, seconds, clocks) in enumerate(
            zip(record.moves, record.seconds, record.clocks, strict=True), 1
        )
    ]


def _rate(connection: Connection, game: FinishedGame) -> tuple[RatingChange, RatingChange] | None:
    """Rate the game in its game's pool: both players' ratings read under a lock (rows made
    first for a new player, so two games of one player ending at once both count, one after
    the other), Glicko-2 applied, the new ratings and their history points written. None for a
    game whose history points are there already: the ratings moved from an older data folder
    (`moved_ratings`) had it counted."""
    record = game.record
    white, black = game.white.holder, game.black.holder
    assert white is not None, "a rated game's players have ratings (moves_ratings)"
    assert black is not None, "a rated game's players have ratings (moves_ratings)"
    pool = {"game": record.game, "ladder": GAME_POOL}
    counted = connection.execute(
        _COUNTED,
        {"id": game.game_id, "players": [white, black], "pool_game": record.game},
    )
    if counted.first() is not None:
        return None
    stored = lock_ratings(connection, pool, {white: Rating(), black: Rating()}, game.ended)
    before = (stored[white], stored[black])
    after = rate_game(*before, white_won=record.winner == "white")
    store_ratings(connection, pool, {white: after[0], black: after[1]}, game.ended)
    add_points(
        connection,
        pool,
        [(white, after[0]), (black, after[1])],
        game.game_id,
        game.ended,
        record.setup,
    )
    return (
        RatingChange(before[0].rating, after[0].rating),
        RatingChange(before[1].rating, after[1].rating),
    )


# Whether a game's history points are there already (see `_rate`).
_COUNTED = (
    select(RATING_HISTORY.c.player)
    .where(
        RATING_HISTORY.c.game_id == bindparam("id"),
        RATING_HISTORY.c.player.in_(bindparam("players", expanding=True)),
        RATING_HISTORY.c.game == bindparam("pool_game"),
        RATING_HISTORY.c.ladder == GAME_POOL,
    )
    .limit(1)
)
# A rated game's ratings before and after it, as rating it found and made them.
_RATED = (
    update(GAMES)
    .where(GAMES.c.game_id == bindparam("id"))
    .values(
        {
            f"{colour}_rating_{when}": bindparam(f"new_{colour}_{when}")
            for colour in COLOURS
            for when in ("before", "after")
        }
    )
)


def _changes(row: Row[Any]) -> tuple[RatingChange, RatingChange] | None:
    if row.white_rating_after is None or row.black_rating_after is None:
        return None
    return (
        RatingChange(row.white_rating_before, row.white_rating_after),
        RatingChange(row.black_rating_before, row.black_rating_after),
    )


async def finished_game(db: Database, game_id: str) -> FinishedGame | None:
    """The finished game `game_id`, or None when the history has none."""
    async with db.reading() as connection:
        found = await connection.execute(select(GAMES).where(GAMES.c.game_id == game_id))
        row = found.first()
        if row is None:
            return None
        moves = await _moves(connection, [game_id])
    return _finished(row, moves.get(game_id, []))


async def games(
    db: Database,
    *,
    player: str | None = None,
    since: int | None = None,
    until: int | None = None,
    game: str | None = None,
    rated: bool | None = None,
    ladder: str | None = None,
    limit: int = MAX_PAGE,
    before: GameCursor | None = None,
    moves: bool = True,
) -> GamePage:
    """A page of finished games, newest first (by end, then id), of at most `limit`: those
    `player` played (any case), that ended at or after `since` and before `until` (ms since
    the epoch), of `game`, rated or not, of `ladder`; after `before`, the cursor a previous
    page gave. Each page is a query of its own (keyset paging): a game that ends meanwhile
    never moves a game from one page to another. Without `moves` the records have none (nor
    their times and clocks): a list of games shows none, and they are most of what is read."""
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"a page holds 1 to {MAX_PAGE} games, not {limit}")
    conditions = []
    if since is not None:
        conditions.append(GAMES.c.ended >= since)
    if until is not None:
        conditions.append(GAMES.c.ended < until)
    if game is not None:
        conditions.append(GAMES.c.game == game)
    if rated is not None:
        conditions.append(GAMES.c.rated == rated)
    if ladder is not None:
        conditions.append(GAMES.c.ladder == ladder)
    if before is not None:
        conditions.append(tuple_(GAMES.c.ended, GAMES.c.game_id) < (before.ended, before.game_id))
    chosen = select(GAMES).where(*conditions)
    if player is not None:
        # Each colour's half read in the order of its own index, then the two merged: an OR of
        # the two would sort every game the player ever played on each page.
        key = player.lower()
        halves = (
            select(_newest(chosen.where(column == key), limit + 1).subquery())
            for column in _PLAYER_KEYS
        )
        chosen = select(union(*halves).subquery())
    query = _newest(chosen, limit + 1)
    async with db.reading() as connection:
        rows = list(await connection.execute(query))
        page = rows[:limit]
        played = await _moves(connection, [row.game_id for row in page]) if moves else {}
    found = [_finished(row, played.get(row.game_id, [])) for row in page]
    last = found[-1] if len(rows) > limit else None
    return GamePage(found, None if last is None else GameCursor(last.ended, last.game_id))


async def every_game(db: Database, **filters: Any) -> AsyncIterator[FinishedGame]:
    """Every finished game that passes `filters` (those of `games`), newest first, read a page
    at a time."""
    after: GameCursor | None = None
    while True:
        page = await games(db, before=after, **filters)
        for game in page.games:
            yield game
        if page.next is None:
            return
        after = page.next


_PLAYER_KEYS: Final = (GAMES.c.white_key, GAMES.c.black_key)


def _newest(query: Select[Any], limit: int) -> Select[Any]:
    """`query`'s first `limit` games, newest first (by end, then id)."""
    columns = query.selected_columns
    return query.order_by(columns.ended.desc(), columns.game_id.desc()).limit(limit)


async def _moves(connection: AsyncConnection, ids: Sequence[str]) -> dict[str, list[Row[Any]]]:
    if not ids:
        return {}
    found = await connection.execute(
        select(MOVES).where(MOVES.c.game_id.in_(ids)).order_by(MOVES.c.game_id, MOVES.c.ply)
    )
    by_game: dict[str, list[Row[Any]]] = {}
    for row in found:
        by_game.setdefault(row.game_id, []).append(row)
    return by_game


def _finished(row: Row[Any], moves: Sequence[Row[Any]]) -> FinishedGame:
    shown = (row.white_rating_before, row.black_rating_before)
    record = GameRecord(
        game=row.game,
        start=row.start,
        white=row.white,
        black=row.black,
        game_id=row.game_id,
        date=utc_date(row.created / 1000),
        rated=row.rated,
        white_rating=None if shown[0] is None else round(shown[0]),
        black_rating=None if shown[1] is None else round(shown[1]),
        moves=[move.move for move in moves],
        seconds=[move.ms / 1000 for move in moves],
        nodes=[0] * len(moves),
        winner=row.winner,
        termination=row.termination,
        setup=row.setup,
        time=[row.time_base, row.time_increment],
        clocks=[[move.white_ms, move.black_ms] for move in moves],
    )
    white, black = (
        Seat(
            getattr(row, colour),
            PlayerKind(getattr(row, f"{colour}_kind")),
            getattr(row, f"{colour}_house"),
        )
        for colour in COLOURS
    )
    return FinishedGame(
        record,
        white,
        black,
        row.created,
        row.ended,
        row.ladder,
        changes=_changes(row),
        abort_cause=row.abort_cause,
        abort_side=row.abort_side,
        final_clocks=None
        if row.white_final_ms is None
        else (row.white_final_ms, row.black_final_ms),
    )
