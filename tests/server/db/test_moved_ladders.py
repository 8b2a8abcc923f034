"""An older data folder's ladders moved into the history store, on SQLite and PostgreSQL: the
bytes servers before the database wrote (each value as `git show` of their
server/ladder/store.py writes it) are read back, every value checked, once, and leave Redis; a
game the ladder had not rated yet is rated by the move; the folder's finished ladder games move
as their ladder's."""

import dataclasses

import pytest
from redis.asyncio import Redis
from sqlalchemy import select

from server.clock import now_ms
from server.db.database import Database
from server.db.finished_games import FinishedGame, Seat, finished_game, record_finished_game
from server.db.ladders import (
    ladder_games,
    ladder_ratings,
    ladder_results,
    ladders,
    rating_history,
)
from server.db.moved_ladders import MovedLadders, move_ladders
from server.db.schema import RATINGS
from server.game_index import GameIndex
from server.glicko import Rating
from server.ladder.definition import Ladder
from server.ladder.rating import rate_ladder_game
from server.ladder.results import Result
from server.protocol import PlayerKind, TimeControl
from server.rating_history import RatingPoint
from tests.server.db.test_finished_games import _game

T1, T2 = 1_790_000_000_000, 1_795_812_806_459
ADA = Rating(1781.4396616798806, 224.71750147454645, 0.05999854834358779)
BEA = Rating(1337.6891060937023, 290.31896371798047, 0.05999967537233814)

# What servers before the database kept of two ladders, `fast` with three games: g1 and g2
# rated (g2 against the anchor greedy, before results kept when they ended), g3 not yet.
HASHES = {
    "ladders": {
        "fast": '{"game": "amazons", "setup": "6x6", "base": 10, "increment": 0}',
        "bao": '{"game": "bao", "setup": "zanzibar", "base": 10, "increment": 0}',
        "broken": '{"game": "amazons"}',
    },
    "ladder:{fast}:ratings": {
        "Ada": "[1781.4396616798806, 224.71750147454645, 0.05999854834358779]",
        "Bea": "[1337.6891060937023, 290.31896371798047, 0.05999967537233814]",
        "greedy": "[1600.0, 30.0, 0.06]",
        "Cy": "[1500.0, not a number]",
    },
    "ladder:{fast}:whites": {"Ada Bea": "1", "greedy Ada": "1", "Bea Ada": "1"},
    "ladder:game": {"g1": "fast", "g2": "fast", "g3": "fast"},
}
LISTS = {
    "ladder:{fast}:games": ["g1", "g2", "g3"],
    "ladder:{fast}:results": [
        '{"game_id": "g1", "white": "Ada", "black": "Bea", "white_won": true, '
        '"ended": 1790000000000}',
        '{"game_id": "g2", "white": "greedy", "black": "Ada", "white_won": false, "ended": null}',
    ],
    "ladder:{fast}:history:ada": [
        '{"at": 1790000000000, "game_id": "g1", "rating": 1662.3108939062977, '
        '"deviation": 290.31896371798047, "setup": null}',
        '{"at": 1795812806459, "game_id": "g2", "rating": 1781.4396616798806, '
        '"deviation": 224.71750147454645, "setup": null}',
    ],
    "ladder:{fast}:history:bea": [
        '{"at": 1790000000000, "game_id": "g1", "rating": 1337.6891060937023, '
        '"deviation": 290.31896371798047, "setup": null}'
    ],
}


async def write_older_folder(redis: Redis) -> None:
    for key, fields in HASHES.items():
        await redis.hset(key, mapping=fields)
    for key, items in LISTS.items():
        await redis.rpush(key, *items)
    await redis.sadd("ladder:{fast}:unrated", "g3")


def _handed_over_without_ladder(game_id: str, white: str, black: str, ended: int) -> FinishedGame:
    bots = (Seat(white, PlayerKind.BOT), Seat(black, PlayerKind.BOT))
    game = _game(game_id, *bots, winner="white", rated=False, ended=ended)
    return dataclasses.replace(game, record=dataclasses.replace(game.record, setup="6x6"))


@pytest.mark.asyncio
async def test_every_value_of_an_older_folder_s_ladders_moves_once(
    redis: Redis, db: Database
) -> None:
    await write_older_folder(redis)
    # g1 and g3 were handed over by servers that recorded ladder games without their ladder.
    for game_id, white, black, ended in (("g1", "Ada", "Bea", T1), ("g3", "Bea", "Ada", T2 + 1)):
        await record_finished_game(db, _handed_over_without_ladder(game_id, white, black, ended))
    before = now_ms()
    moved = await move_ladders(db, redis)

    assert moved == MovedLadders(ladders=2, ratings=3, results=2, points=3, rated=1)
    assert str(moved) == (
        "2 ladders, 3 ladder ratings, 2 ladder results, 3 ladder history points and 1 game rated"
    )
    assert await ladders(db) == [
        Ladder("bao", "zanzibar", TimeControl(10, 0), "bao"),
        Ladder("fast", "6x6", TimeControl(10, 0)),
    ]
    bea, ada = rate_ladder_game(BEA, ADA, white_won=True)  # g3, rated from the moved ratings
    assert await ladder_ratings(db, "fast") == {
        "ada": ada,
        "bea": bea,
        "greedy": Rating(1600.0, 30.0, 0.06),
    }
    assert await rating_history(db, "fast", "Ada") == [
        RatingPoint(T1, "g1", 1662.3108939062977, 290.31896371798047),
        RatingPoint(T2, "g2", 1781.4396616798806, 224.71750147454645),
        RatingPoint(T2 + 1, "g3", ada.rating, ada.deviation, "6x6"),
    ]
    assert await rating_history(db, "fast", "bea") == [
        RatingPoint(T1, "g1", 1337.6891060937023, 290.31896371798047),
        RatingPoint(T2 + 1, "g3", bea.rating, bea.deviation, "6x6"),
    ]
    assert await ladder_results(db, "fast") == [
        Result("greedy", "Ada", False, "g2", None),
        Result("Ada", "Bea", True, "g1", T1),
        Result("Bea", "Ada", True, "g3", T2 + 1),
    ]
    # The games the database had are the ladder's now (g2 was never handed over).
    assert await ladder_games(db, "fast") == ["g1", "g3"]
    recorded = await finished_game(db, "g3")
    assert recorded is not None
    assert recorded.ladder == "fast"
    # What lasts left Redis, so a second start moves nothing. `ladder:game` keeps the game not
    # recorded (g2, for an older folder's finished games' move) and the one not rated (g3, the
    # scheduler's until it sees it rated); the other keys of the ladder are live.
    assert sorted(key.decode() for key in await redis.keys("ladder*")) == [
        "ladder:game",
        "ladder:{fast}:unrated",
        "ladder:{fast}:whites",
    ]
    assert await redis.hgetall("ladder:game") == {b"g2": b"fast", b"g3": b"fast"}
    assert await move_ladders(db, redis) is None
    assert await ladder_ratings(db, "fast") == {
        "ada": ada,
        "bea": bea,
        "greedy": Rating(1600.0, 30.0, 0.06),
    }
    assert await _updated(db) == {
        "ada": T2 + 1,
        "bea": T2 + 1,
        "greedy": pytest.approx(before, abs=60_000),
    }


async def _updated(db: Database) -> dict[str, int]:
    async with db.reading() as connection:
        found = await connection.execute(select(RATINGS).where(RATINGS.c.ladder == "fast"))
        return {row.player: row.updated for row in found}


@pytest.mark.asyncio
async def test_a_ladder_game_that_ended_unrated_and_unrecorded_goes_to_its_hand_over(
    redis: Redis, db: Database
) -> None:
    from server.games import GameStore
    from server.protocol import Player

    store = GameStore(redis)
    ada, bea = Player("Ada", PlayerKind.BOT), Player("Bea", PlayerKind.BOT)
    terms = {"time": TimeControl(10, 0), "rated": False, "now": T1, "setup": "6x6"}
    started = await store.create(ada, bea, **terms)  # type: ignore[arg-type]
    playing = await store.create(bea, ada, **terms)  # type: ignore[arg-type]
    await store.resign(started.game_id, "Ada", now=T1 + 1_000)
    # Servers before the database kept no hand-over set: the move puts the ended game there.
    await GameIndex(redis).handed_over(started.game_id)
    await redis.hset("ladders", "fast", HASHES["ladders"]["fast"])
    await redis.sadd("ladder:{fast}:unrated", started.game_id, playing.game_id)

    assert await move_ladders(db, redis) == MovedLadders(1, 0, 0, 0, 0)
    assert await GameIndex(redis).waiting_handover() == [started.game_id]


@pytest.mark.asyncio
async def test_an_older_folder_s_finished_ladder_games_move_as_their_ladder_s(
    redis: Redis, db: Database
) -> None:
    from server.db.moved_games import move_finished_games
    from server.games import GameStore
    from server.protocol import Player

    store = GameStore(redis)
    ada, bea = Player("Ada", PlayerKind.BOT), Player("Bea", PlayerKind.BOT)
    terms = {"time": TimeControl(10, 0), "rated": False, "now": T1, "setup": "6x6"}
    ids = []
    for _ in range(2):
        started = await store.create(ada, bea, **terms)  # type: ignore[arg-type]
        await store.resign(started.game_id, "Ada", now=T1 + 1_000)
        ids.append(started.game_id)
    # As servers before the database kept them: archived, no hand-over set, one a ladder's.
    await redis.zadd("games:archive", {game_id: T1 + 1_000 for game_id in ids})
    for game_id in ids:
        await GameIndex(redis).handed_over(game_id)
    await redis.hset("ladder:game", ids[0], "fast")

    assert await move_finished_games(db, store) == 2
    ladders = [(await finished_game(db, game_id)) for game_id in ids]
    assert [None if game is None else game.ladder for game in ladders] == ["fast", None]
    assert not await redis.exists("ladder:game")  # the database knows it now
