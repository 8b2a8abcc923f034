"""Ladder games with a winner recorded in the history store as a server hands them over, which
rates them on their ladder: for tests that need a ladder's results and ratings without playing
its games."""

from engine.records import GameRecord, utc_date
from server.db import Database, FinishedGame, Seat, record_finished_game
from server.db.schema import RATINGS
from server.glicko import Rating
from server.ladder.anchors import anchors_of
from server.protocol import PlayerKind

START = "3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w"


async def rated_game(
    database: Database,
    ladder: str,
    game_id: str,
    white: str,
    black: str,
    white_won: bool,
    *,
    ended: int = 1_000,
    game: str = "amazons",
) -> None:
    """Record the game `game_id` of `ladder` (of `game`) that `white` or `black` won; a player
    named as one of the ladder's anchors plays as that house bot."""
    anchors = {anchor.bot for anchor in anchors_of(ladder, game)}
    seats = [
        Seat(name, PlayerKind.HOUSE, f"{name}@10")
        if name in anchors
        else Seat(name, PlayerKind.BOT)
        for name in (white, black)
    ]
    record = GameRecord(
        game=game,
        start=START,
        white=white,
        black=black,
        game_id=game_id,
        date=utc_date(ended / 1000),
        rated=False,
        moves=[],
        seconds=[],
        nodes=[],
        winner="white" if white_won else "black",
        termination="resignation",
        time=[10, 0],
        clocks=[],
    )
    await record_finished_game(
        database, FinishedGame(record, seats[0], seats[1], ended, ended, ladder)
    )


async def set_rating(
    database: Database, ladder: str, bot: str, rating: Rating, game: str = "amazons"
) -> None:
    """Give `bot` the ladder rating `rating`, as if its games had brought it there."""
    values = {"rating": rating.rating, "deviation": rating.deviation}
    async with database.writing() as connection:
        await connection.execute(
            RATINGS.insert().values(
                player=bot.lower(),
                game=game,
                ladder=ladder,
                volatility=rating.volatility,
                updated=0,
                **values,
            )
        )
