"""The ladders in the history store, on SQLite and PostgreSQL: their definitions, and a ladder
game rated by the transaction that records it (Glicko-2, the anchors held at their fixed
ratings, a house bot's loss on time not rated), once, and read back as ratings, histories,
results and the ladder's games."""

import dataclasses

import pytest
from sqlalchemy import func, select

from server.db.database import Database
from server.db.finished_games import FinishedGame, Seat, finished_game, record_finished_game
from server.db.ladders import (
    create_ladder,
    find_ladder,
    ladder_games,
    ladder_ratings,
    ladder_results,
    ladders,
    rating_history,
    rating_of,
    remove_ladder,
)
from server.db.schema import LADDER_RESULTS, RATING_HISTORY, RATINGS
from server.glicko import Rating
from server.ladder.definition import Ladder
from server.ladder.rating import anchor_rating, rate_ladder_game
from server.ladder.results import Result
from server.protocol import PlayerKind, TimeControl
from server.rating_history import RatingPoint
from tests.server.db.test_finished_games import T0, _game

FAST = Ladder("fast", "6x6", TimeControl(10, 0))
ADA, BEA = Seat("Ada", PlayerKind.BOT), Seat("Bea", PlayerKind.BOT)
GREEDY = Seat("greedy", PlayerKind.HOUSE, "greedy@10")  # an anchor of `fast` at 1600


def _ladder_game(
    game_id: str,
    white: Seat,
    black: Seat,
    winner: str | None,
    ended: int,
    termination: str = "resignation",
) -> FinishedGame:
    game = _game(game_id, white, black, winner=winner, rated=False, ended=ended, ladder="fast")
    if winner is None:
        termination = "aborted"
    record = dataclasses.replace(game.record, setup="6x6", termination=termination)
    return dataclasses.replace(game, record=record)


async def _count(db: Database, table: object) -> int:
    async with db.reading() as connection:
        found = await connection.execute(select(func.count()).select_from(table))  # type: ignore[arg-type]
        return int(found.scalar_one())


@pytest.mark.asyncio
async def test_definitions_are_made_once_found_in_any_case_listed_and_removed(
    db: Database,
) -> None:
    assert await create_ladder(db, FAST, T0)
    assert not await create_ladder(db, Ladder("FAST", "8x8", TimeControl(30, 0)), T0)
    bao = Ladder("bao", "zanzibar", TimeControl(10, 0), "bao")
    assert await create_ladder(db, bao, None)
    assert await find_ladder(db, "Fast") == FAST
    assert await ladders(db) == [bao, FAST]
    assert await remove_ladder(db, "FAST")
    assert not await remove_ladder(db, "fast")
    assert await find_ladder(db, "fast") is None


@pytest.mark.asyncio
async def test_a_ladder_game_is_rated_in_its_record_s_transaction_once(db: Database) -> None:
    await create_ladder(db, FAST, T0)
    game = _ladder_game("g1", ADA, BEA, "black", T0)
    await record_finished_game(db, game)
    # Again, as a retry or another process would: nothing changes.
    again = await record_finished_game(db, game)
    assert not again.first
    ada, bea = rate_ladder_game(Rating(), Rating(), white_won=False)
    assert await ladder_ratings(db, "fast") == {"ada": ada, "bea": bea}
    assert await rating_of(db, "FAST", "ADA") == ada
    assert await rating_of(db, "fast", "cy") is None
    assert await rating_history(db, "fast", "Bea") == [
        RatingPoint(T0, "g1", bea.rating, bea.deviation, "6x6")
    ]
    assert await ladder_results(db, "fast") == [Result("Ada", "Bea", False, "g1", T0)]
    recorded = await finished_game(db, "g1")
    assert recorded is not None
    assert recorded.ladder == "fast"
    assert not recorded.record.rated  # in no game's pool: its ladder's only
    assert await ladder_games(db, "fast") == ["g1"]
    assert (await _count(db, RATINGS), await _count(db, RATING_HISTORY)) == (2, 2)
    # A second game goes on from the first's ratings.
    await record_finished_game(db, _ladder_game("g2", BEA, ADA, "black", T0 + 1_000))
    bea2, ada2 = rate_ladder_game(bea, ada, white_won=False)
    assert await ladder_ratings(db, "fast") == {"ada": ada2, "bea": bea2}
    assert [point.game_id for point in await rating_history(db, "fast", "ada")] == ["g1", "g2"]
    assert await ladder_games(db, "fast") == ["g1", "g2"]
    # A ladder removed shows no ratings; made again, it takes them up.
    await remove_ladder(db, "fast")
    assert await ladder_ratings(db, "fast") == {}
    await create_ladder(db, FAST, T0)
    assert await rating_of(db, "fast", "ada") == ada2


@pytest.mark.asyncio
async def test_an_anchor_keeps_its_fixed_rating_and_has_no_history(db: Database) -> None:
    await create_ladder(db, FAST, T0)
    bot = Rating()
    for number, winner in enumerate(("white", "black", "white")):
        game = _ladder_game(f"g{number}", GREEDY, ADA, winner, T0 + number)
        await record_finished_game(db, game)
        _, bot = rate_ladder_game(
            anchor_rating(1600.0), bot, winner == "white", white_is_anchor=True
        )
    assert await ladder_ratings(db, "fast") == {"greedy": anchor_rating(1600.0), "ada": bot}
    assert await rating_history(db, "fast", "greedy") == []
    assert len(await rating_history(db, "fast", "ada")) == 3


@pytest.mark.asyncio
async def test_a_house_bot_s_loss_on_time_and_a_game_without_a_winner_move_nothing(
    db: Database,
) -> None:
    await create_ladder(db, FAST, T0)
    flagged = _ladder_game("g1", GREEDY, ADA, "black", T0, termination="time forfeit")
    aborted = _ladder_game("g2", ADA, BEA, None, T0 + 1)
    for game in (flagged, aborted):
        assert (await record_finished_game(db, game)).first
    assert await ladder_ratings(db, "fast") == {}
    assert await _count(db, LADDER_RESULTS) == 0
    assert await ladder_games(db, "fast") == ["g1", "g2"]
    # A bot's loss on time is the bot's own: it is rated.
    await record_finished_game(
        db, _ladder_game("g3", ADA, GREEDY, "black", T0 + 2, termination="time forfeit")
    )
    assert await ladder_results(db, "fast") == [Result("Ada", "greedy", False, "g3", T0 + 2)]
