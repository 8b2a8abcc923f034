"""Ratings in a pool (a game's, or a ladder's) as the transaction that records a finished game
moves them: both players' rows made if new, read under a lock, written back, and their history
points added. The statements are built once and run with their values as parameters: building
one from literal values costs more than SQLite's running it (a game's end spent most of its
time there).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from server.db.schema import RATING_HISTORY, RATINGS
from server.glicko import Rating

__all__ = ["Pool", "add_points", "dialect_insert", "insert", "lock_ratings", "store_ratings"]

Pool = Mapping[str, str]  # the columns naming a pool: `game`, and `ladder` (GAME_POOL or a name)

_LOCKED = (
    select(RATINGS)
    .where(
        RATINGS.c.player.in_(bindparam("players", expanding=True)),
        RATINGS.c.game == bindparam("pool_game"),
        RATINGS.c.ladder == bindparam("pool_ladder"),
    )
    # Locked in one order, whoever is White, so two games of the same players cannot wait on
    # each other (PostgreSQL; SQLite's write transaction holds the whole file already).
    .order_by(RATINGS.c.player)
    .with_for_update()
)
_STORED = (
    update(RATINGS)
    .where(
        RATINGS.c.player == bindparam("holder"),
        RATINGS.c.game == bindparam("pool_game"),
        RATINGS.c.ladder == bindparam("pool_ladder"),
    )
    .values(
        rating=bindparam("new_rating"),
        deviation=bindparam("new_deviation"),
        volatility=bindparam("new_volatility"),
        updated=bindparam("at"),
    )
)


def insert(connection: AsyncConnection | Connection, table: Table) -> Any:
    """An INSERT that can be told to do nothing on a conflict (SQLite and PostgreSQL alike)."""
    return dialect_insert(connection.dialect.name, table)


@functools.cache
def dialect_insert(dialect: str, table: Table) -> Any:
    """`insert` for the dialect named `dialect`, built once per table."""
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


@functools.cache
def _insert_new(dialect: str) -> Any:
    return dialect_insert(dialect, RATINGS).on_conflict_do_nothing()


def lock_ratings(
    connection: Connection, pool: Pool, first: Mapping[str, Rating], at: int
) -> dict[str, Rating]:
    """The ratings in `pool` of the players that are `first`'s keys, read under a lock; a
    player without one is given (and stored) its `first` rating, as of `at`."""
    connection.execute(
        _insert_new(connection.dialect.name),
        [_row(player, pool, rating, at) for player, rating in first.items()],
    )
    found = connection.execute(
        _LOCKED, {"players": list(first), "pool_game": pool["game"], "pool_ladder": pool["ladder"]}
    )
    return {row.player: Rating(row.rating, row.deviation, row.volatility) for row in found}


def store_ratings(
    connection: Connection, pool: Pool, ratings: Mapping[str, Rating], at: int
) -> None:
    """Write the players' new `ratings` in `pool`, as of `at`."""
    connection.execute(
        _STORED,
        [
            {
                "holder": player,
                "pool_game": pool["game"],
                "pool_ladder": pool["ladder"],
                "new_rating": rating.rating,
                "new_deviation": rating.deviation,
                "new_volatility": rating.volatility,
                "at": at,
            }
            for player, rating in ratings.items()
        ],
    )


def add_points(
    connection: Connection,
    pool: Pool,
    ratings: Sequence[tuple[str, Rating]],
    game_id: str,
    at: int,
    setup: str | None,
) -> None:
    """Add each player's point after the game `game_id` to its history in `pool`."""
    if ratings:
        connection.execute(
            RATING_HISTORY.insert(),
            [
                {
                    "player": player,
                    **pool,
                    "game_id": game_id,
                    "at": at,
                    "rating": rating.rating,
                    "deviation": rating.deviation,
                    "setup": setup,
                }
                for player, rating in ratings
            ],
        )


def _row(player: str, pool: Pool, rating: Rating, at: int) -> dict[str, object]:
    return {
        "player": player,
        **pool,
        "rating": rating.rating,
        "deviation": rating.deviation,
        "volatility": rating.volatility,
        "updated": at,
    }
