"""A player's rating written straight into the history store, as rated games leave it, for
tests of what reads it."""

from server.db.database import Database
from server.db.pools import insert
from server.db.schema import GAME_POOL, RATINGS

T0 = 1_790_000_000_000


async def store_rating(
    db: Database, player: str, game: str, rating: float, deviation: float = 80.0
) -> None:
    """Give `player` (a lower-case name, or a house bot's spec) `rating` in `game`'s pool."""
    async with db.writing() as connection:
        await connection.execute(
            insert(connection, RATINGS).on_conflict_do_update(
                index_elements=[RATINGS.c.player, RATINGS.c.game, RATINGS.c.ladder],
                set_={"rating": rating, "deviation": deviation},
            ),
            [
                {
                    "player": player,
                    "game": game,
                    "ladder": GAME_POOL,
                    "rating": rating,
                    "deviation": deviation,
                    "volatility": 0.06,
                    "updated": T0,
                }
            ],
        )
