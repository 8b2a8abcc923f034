"""The ladders in the history store: their definitions, and what their games leave: each bot's
ladder rating (Glicko-2, `rate_ladder_game`, the anchors held at their fixed ratings) with its
history, and the ladder's results. A ladder game is rated by the transaction that records it
(`record_finished_game` calls `rate_ladder_game_in`), so it is rated once whoever hands it
over. A bot is known here by its name in lower case, as the ratings of games' pools are.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Final

import structlog
from sqlalchemy import ColumnElement, Connection, Row, and_, delete, func, select

from server.db.database import Database
from server.db.pools import add_points, dialect_insert, insert, lock_ratings, store_ratings
from server.db.schema import GAMES, LADDER_RESULTS, LADDERS, RATING_HISTORY, RATINGS
from server.glicko import Rating
from server.ladder.anchors import anchors_of
from server.ladder.definition import Ladder
from server.ladder.rating import anchor_rating, rate_ladder_game
from server.ladder.results import Result
from server.protocol import PlayerKind, Termination, TimeControl

if TYPE_CHECKING:
    from server.db.finished_games import FinishedGame
    from server.rating_history import RatingPoint

__all__ = [
    "create_ladder",
    "find_ladder",
    "ladder_games",
    "ladder_ratings",
    "ladder_results",
    "ladders",
    "rate_ladder_game_in",
    "rating_history",
    "rating_of",
    "remove_ladder",
]

log = structlog.get_logger(__name__)

COLOURS: Final = ("white", "black")


# Definitions


async def create_ladder(db: Database, ladder: Ladder, created: int | None) -> bool:
    """Add `ladder` unless one of its name is there; whether it was added."""

    async with db.writing() as connection:
        added = await connection.execute(
            insert(connection, LADDERS)
            .values(
                name=ladder.name,
                game=ladder.game,
                setup=ladder.setup,
                time_base=ladder.time.base,
                time_increment=ladder.time.increment,
                created=created,
            )
            .on_conflict_do_nothing()
            .returning(LADDERS.c.name)
        )
        return added.first() is not None


async def remove_ladder(db: Database, name: str) -> bool:
    """Remove the definition of the ladder `name` (its ratings and results stay); whether there
    was one."""
    async with db.writing() as connection:
        removed = await connection.execute(
            delete(LADDERS).where(LADDERS.c.name == name.lower()).returning(LADDERS.c.name)
        )
        return removed.first() is not None


async def find_ladder(db: Database, name: str) -> Ladder | None:
    async with db.reading() as connection:
        found = await connection.execute(select(LADDERS).where(LADDERS.c.name == name.lower()))
        row = found.first()
    return None if row is None else _ladder(row)


async def ladders(db: Database) -> list[Ladder]:
    """Every ladder, by name."""
    async with db.reading() as connection:
        found = await connection.execute(select(LADDERS).order_by(LADDERS.c.name))
        return [_ladder(row) for row in found]


def _ladder(row: Row[Any]) -> Ladder:
    return Ladder(row.name, row.setup, TimeControl(row.time_base, row.time_increment), row.game)


# What its games leave


def _of_ladder(name: str) -> ColumnElement[bool]:
    """The ratings of the ladder `name` in its game (a ladder removed has none to show)."""
    return and_(
        RATINGS.c.ladder == name.lower(),
        RATINGS.c.ladder == LADDERS.c.name,
        RATINGS.c.game == LADDERS.c.game,
    )


async def ladder_ratings(db: Database, name: str) -> dict[str, Rating]:
    """The ladder rating of each bot (lower case) that has played a rated game on the ladder
    `name`, anchors at their fixed ratings."""
    async with db.reading() as connection:
        found = await connection.execute(select(RATINGS).where(_of_ladder(name)))
        return {row.player: Rating(row.rating, row.deviation, row.volatility) for row in found}


async def rating_of(db: Database, name: str, bot: str) -> Rating | None:
    """`bot`'s rating on the ladder `name` (any case), or None before its first rated game."""
    async with db.reading() as connection:
        found = await connection.execute(
            select(RATINGS).where(_of_ladder(name), RATINGS.c.player == bot.lower())
        )
        row = found.first()
    return None if row is None else Rating(row.rating, row.deviation, row.volatility)


async def rating_history(db: Database, name: str, bot: str) -> list[RatingPoint]:
    """`bot`'s ladder rating after each of its last HISTORY_POINTS rated games on the ladder
    `name`, oldest first (an anchor, whose rating is fixed, has none)."""
    # Not at the top: server.rating_history reads the accounts, which import this module.
    from server.rating_history import HISTORY_POINTS, RatingPoint

    async with db.reading() as connection:
        found = await connection.execute(
            select(RATING_HISTORY)
            .join(
                LADDERS,
                and_(
                    LADDERS.c.name == RATING_HISTORY.c.ladder,
                    LADDERS.c.game == RATING_HISTORY.c.game,
                ),
            )
            .where(RATING_HISTORY.c.ladder == name.lower(), RATING_HISTORY.c.player == bot.lower())
            .order_by(RATING_HISTORY.c.at.desc(), RATING_HISTORY.c.id.desc())
            .limit(HISTORY_POINTS)
        )
        points = [
            RatingPoint(row.at, row.game_id, row.rating, row.deviation, row.setup) for row in found
        ]
    return points[::-1]


async def ladder_results(db: Database, name: str) -> list[Result]:
    """The ladder's rated games with a winner, in the order they ended (those moved from a
    data folder whose servers did not keep when they ended first, by id)."""
    async with db.reading() as connection:
        found = await connection.execute(
            select(LADDER_RESULTS)
            .where(LADDER_RESULTS.c.ladder == name.lower())
            .order_by(func.coalesce(LADDER_RESULTS.c.ended, 0), LADDER_RESULTS.c.game_id)
        )
        return [
            Result(row.white, row.black, row.white_won, row.game_id, row.ended) for row in found
        ]


async def ladder_games(db: Database, name: str) -> list[str]:
    """The ids of the finished games the ladder `name` started, oldest first."""
    async with db.reading() as connection:
        found = await connection.execute(
            select(GAMES.c.game_id)
            .where(GAMES.c.ladder == name.lower())
            .order_by(GAMES.c.created, GAMES.c.game_id)
        )
        return list(found.scalars())


# Rating a game


def house_flagged(game: FinishedGame) -> bool:
    """Whether the game ended with a house bot losing on time: a house bot's clock is the
    server's charge (its worker's queue and thinking), never a measure of its strength."""
    record = game.record
    # A record spells its termination in words (`time forfeit`).
    ended = record.termination.replace(" ", "_")
    if ended != Termination.TIME_FORFEIT or record.winner not in COLOURS:
        return False
    loser = game.black if record.winner == "white" else game.white
    return loser.kind is PlayerKind.HOUSE


def rate_ladder_game_in(connection: Connection, game: FinishedGame) -> bool:
    """In the transaction on `connection` that records the ladder game `game`: its result and
    its players' new ratings on the ladder, anchors at their fixed ratings (stored at them) and
    the others' history points. A game without a winner, one a house bot lost on time, and one
    whose result is there already (moved from an older data folder) move nothing. Whether it
    rated the game."""
    record, ladder = game.record, game.ladder
    assert ladder is not None, "a ladder game has its ladder"
    if record.winner not in COLOURS:
        return False
    if house_flagged(game):
        log.warning("ladder_game_not_rated", ladder=ladder, game_id=game.game_id)
        return False
    result = connection.execute(
        _result(connection.dialect.name),
        {
            "ladder": ladder,
            "game_id": game.game_id,
            "white": game.white.name,
            "black": game.black.name,
            "white_won": record.winner == "white",
            "ended": game.ended,
        },
    )
    if result.first() is None:
        return False
    seats = (game.white, game.black)
    fixed = {anchor.bot.lower(): anchor.rating for anchor in anchors_of(ladder, record.game)}
    anchors = [seat.kind is PlayerKind.HOUSE and seat.key in fixed for seat in seats]
    players = [seat.key for seat in seats]
    pool = {"game": record.game, "ladder": ladder}

    def first(player: str, anchor: bool) -> Rating:
        return anchor_rating(fixed[player]) if anchor else Rating()

    firsts = {
        player: first(player, anchor) for player, anchor in zip(players, anchors, strict=True)
    }
    stored = lock_ratings(connection, pool, firsts, game.ended)
    # An anchor plays at its fixed rating whatever was stored for it.
    white, black = (
        firsts[player] if anchor else stored[player]
        for player, anchor in zip(players, anchors, strict=True)
    )
    after = rate_ladder_game(
        white,
        black,
        record.winner == "white",
        white_is_anchor=anchors[0],
        black_is_anchor=anchors[1],
    )
    store_ratings(connection, pool, dict(zip(players, after, strict=True)), game.ended)
    points = [
        (player, rating)
        for player, rating, anchor in zip(players, after, anchors, strict=True)
        if not anchor
    ]
    add_points(connection, pool, points, game.game_id, game.ended, record.setup)
    return True


@functools.cache
def _result(dialect: str) -> Any:
    """Insert a ladder game's result unless it is there, saying whether it was."""
    return (
        dialect_insert(dialect, LADDER_RESULTS)
        .on_conflict_do_nothing()
        .returning(LADDER_RESULTS.c.game_id)
    )
