"""An older data folder's ratings and rating histories, as servers wrote them in Redis, moved into
the history store on SQLite and PostgreSQL: every value read back, once, before the first game
handed over rates from them; Redis forgets them after, and a process that read a player as
unrated before reads the moved rating."""

import dataclasses
import json

import pytest
from redis.asyncio import Redis
from sqlalchemy import select

from server.clock import now_ms
from server.db.database import Database
from server.db.finished_games import FinishedGame, copy_finished_games, finished_game
from server.db.moved_ratings import UNRATED, MovedRatings, move_ratings
from server.db.schema import RATING_HISTORY, RATINGS
from server.game_index import GameIndex
from server.games import GameStore, open_redis
from server.glicko import Rating, rate_game
from server.protocol import Player, PlayerKind, TimeControl
from server.ratings import rating_in
from server.storage import ARCHIVE

T0 = 1_790_000_000_000

# Hashes as the servers wrote them (identity.create_account, ratings.settle): rating fields are
# repr() of floats, one triple a game; the unsuffixed triple is the older servers' for Amazons.
HASHES: dict[str, dict[str, str]] = {
    "user:ann": {
        "name": "Ann",
        "kind": "human",
        "id": "0f3a9c1e",
        "password": "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
        "rating:amazons": "1662.3077478559583",
        "deviation:amazons": "290.31896371798047",
        "volatility:amazons": "0.05999967537233814",
        "rating:hex": "1437.6922521440417",
        "deviation:hex": "290.31896371798047",
        "volatility:hex": "0.05999967537233814",
    },
    "user:old": {  # rated before ratings were per game
        "name": "Old",
        "kind": "bot",
        "id": "77aa01",
        "rating": "1711.25",
        "deviation": "80.5",
        "volatility": "0.0601",
    },
    "user:both": {  # the game's own fields win over the unsuffixed ones
        "name": "Both",
        "kind": "human",
        "id": "b0b0",
        "rating": "1400.0",
        "deviation": "100.0",
        "volatility": "0.06",
        "rating:amazons": "1555.5",
        "deviation:amazons": "120.25",
        "volatility:amazons": "0.0599",
    },
    "house:invader@5": {
        "rating:amazons": "1337.6922521440417",
        "deviation:amazons": "290.31896371798047",
        "volatility:amazons": "0.05999967537233814",
    },
    "user:guest-7": {"name": "guest-7", "kind": "guest", "id": "9"},  # guests are never rated
}

# Histories as servers wrote them: each point as JSON, oldest first.
HISTORIES: dict[str, list[str]] = {
    "user:ann:history:amazons": [
        '{"at": 1789999000000, "game_id": "g1", "rating": 1500.5, "deviation": 340.25, '
        '"setup": "10x10"}',
        '{"at": 1789999500000, "game_id": "g2", "rating": 1662.3077478559583, '
        '"deviation": 290.31896371798047, "setup": null}',
    ],
    "user:ann:history:hex": [
        '{"at": 1789999600000, "game_id": "h1", "rating": 1437.6922521440417, '
        '"deviation": 290.31896371798047, "setup": "11x11"}',
    ],
    "house:invader@5:history:amazons": [
        '{"at": 1789999500000, "game_id": "g2", "rating": 1337.6922521440417, '
        '"deviation": 290.31896371798047, "setup": null}',
    ],
}


async def _write_older_folder(redis: Redis) -> None:
    for key, fields in HASHES.items():
        await redis.hset(key, mapping=fields)
    for key, points in HISTORIES.items():
        await redis.rpush(key, *points)
    # Keys that are not ratings, under the same and near prefixes.
    await redis.sadd("user-games:ann", "g9")
    await redis.rpush("user-finished:ann", "g2", "g1")
    await redis.hset("ladder:main:ratings", "ann", json.dumps({"rating": 1500.0}))


async def _ratings(db: Database) -> dict[tuple[str, str], tuple[float, float, float, int]]:
    async with db.reading() as connection:
        rows = await connection.execute(select(RATINGS))
        return {
            (row.player, row.game): (row.rating, row.deviation, row.volatility, row.updated)
            for row in rows
        }


async def _history(db: Database) -> list[tuple[str, str, str, int, float, float, str | None]]:
    async with db.reading() as connection:
        rows = await connection.execute(select(RATING_HISTORY).order_by(RATING_HISTORY.c.id))
        return [
            (row.player, row.game, row.game_id, row.at, row.rating, row.deviation, row.setup)
            for row in rows
        ]


@pytest.mark.asyncio
async def test_every_rating_and_history_point_of_an_older_folder_moves_once(
    redis: Redis, db: Database
) -> None:
    await _write_older_folder(redis)
    before = now_ms()

    # The accounts have not moved (`identity.move_to_database`): their hashes stay for it.
    assert await move_ratings(db, redis) == MovedRatings(ratings=5, points=4, deleted=4)

    ratings = await _ratings(db)
    now = ratings.pop(("both", "amazons"))
    assert now[:3] == (1555.5, 120.25, 0.0599)
    assert now[3] >= before  # no history: moved now
    old = ratings.pop(("old", "amazons"))
    assert old[:3] == (1711.25, 80.5, 0.0601)
    assert old[3] >= before
    assert ratings == {
        ("ann", "amazons"): (
            1662.3077478559583,
            290.31896371798047,
            0.05999967537233814,
            T0 - 500_000,
        ),
        ("ann", "hex"): (1437.6922521440417, 290.31896371798047, 0.05999967537233814, T0 - 400_000),
        ("invader@5", "amazons"): (
            1337.6922521440417,
            290.31896371798047,
            0.05999967537233814,
            T0 - 500_000,
        ),
    }
    assert sorted(await _history(db)) == sorted(
        [
            ("ann", "amazons", "g1", T0 - 1_000_000, 1500.5, 340.25, "10x10"),
            ("ann", "amazons", "g2", T0 - 500_000, 1662.3077478559583, 290.31896371798047, None),
            ("ann", "hex", "h1", T0 - 400_000, 1437.6922521440417, 290.31896371798047, "11x11"),
            (
                "invader@5",
                "amazons",
                "g2",
                T0 - 500_000,
                1337.6922521440417,
                290.31896371798047,
                None,
            ),
        ]
    )
    assert sorted(key.decode() for key in await redis.keys("*")) == [
        "ladder:main:ratings",
        "rating-version:ann",
        "rating-version:both",
        "rating-version:invader@5",
        "rating-version:old",
        "user-finished:ann",
        "user-games:ann",
        "user:ann",
        "user:both",
        "user:guest-7",
        "user:old",
    ]
    # Once: a second start finds the ratings there and moves nothing.
    assert await move_ratings(db, redis) is None
    assert len(await _history(db)) == 4


@pytest.mark.asyncio
async def test_a_player_read_as_unrated_before_the_move_is_read_again_after_it(
    redis: Redis, db: Database
) -> None:
    await _write_older_folder(redis)
    assert await rating_in(redis, db, "ann", "amazons") is None  # cached so

    await move_ratings(db, redis)

    assert await rating_in(redis, db, "ann", "amazons") == 1662
    assert await rating_in(redis, db, "invader", "amazons", "invader@5") == 1338


@pytest.mark.asyncio
async def test_the_first_game_handed_over_rates_from_the_moved_ratings(
    redis: Redis, redis_url: str, db: Database
) -> None:
    await _write_older_folder(redis)
    store = GameStore(open_redis(redis_url), database=db)
    try:
        ann, both = Player("Ann", PlayerKind.HUMAN), Player("Both", PlayerKind.HUMAN)
        started = await store.create(
            ann, both, time=TimeControl(60, 2), rated=True, now=T0, setup="6x6"
        )
        await store.play(started.game_id, "Ann", 0, "b1-b4/d4", T0 + 1_000)
        await store.play(started.game_id, "Both", 1, "e6-e3/c3", T0 + 2_000)
        await store.resign(started.game_id, "Both", T0 + 3_000)
    finally:
        await store.redis.aclose()

    after = rate_game(
        Rating(1662.3077478559583, 290.31896371798047, 0.05999967537233814),
        Rating(1555.5, 120.25, 0.0599),
        white_won=True,
    )
    ratings = await _ratings(db)
    assert ratings[("ann", "amazons")][:3] == (
        after[0].rating,
        after[0].deviation,
        after[0].volatility,
    )
    assert ratings[("both", "amazons")][:3] == (
        after[1].rating,
        after[1].deviation,
        after[1].volatility,
    )
    assert ratings[("ann", "hex")][0] == 1437.6922521440417


@pytest.mark.asyncio
async def test_an_older_folders_finished_games_move_as_they_were_rated(
    redis: Redis, redis_url: str, db: Database
) -> None:
    older = GameStore(open_redis(redis_url))  # the games as stored, before the database
    try:
        ann, bob = Player("Ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
        won = await older.create(ann, bob, time=TimeControl(60, 2), rated=True, now=T0, setup="6x6")
        await older.play(won.game_id, "Ann", 0, "b1-b4/d4", T0 + 1_250)
        await older.play(won.game_id, "bob", 1, "e6-e3/c3", T0 + 4_000)
        await older.resign(won.game_id, "bob", T0 + 9_000)
        aborted = await older.create(
            bob, ann, time=TimeControl(180, 0), rated=False, now=T0 + 10_000, setup="8x8"
        )
        await older.abort(aborted.game_id, "Ann", T0 + 11_000)
        stored = [await older.load(won.game_id), await older.load(aborted.game_id)]
    finally:
        await older.redis.aclose()
    # What those servers kept besides: no hand-over set, every ended game on the archive, and
    # the ratings the won game gave its players, with their history points.
    for game in (won, aborted):
        await GameIndex(redis).handed_over(game.game_id)
    await redis.zadd(ARCHIVE, {won.game_id: T0 + 9_000, aborted.game_id: T0 + 11_000})
    for name, rating in (("ann", "1662.3"), ("bob", "1337.7")):
        await redis.hset(f"user:{name}", mapping={"rating:amazons": rating})
        point = {"at": T0 + 9_000, "game_id": won.game_id, "rating": float(rating)}
        await redis.rpush(f"user:{name}:history:amazons", json.dumps(point | {"deviation": 290.3}))

    store = GameStore(open_redis(redis_url), database=db)
    try:
        assert await store.hand_over_leftovers() == 0
    finally:
        await store.redis.aclose()

    for game in stored:
        found = await finished_game(db, game.game_id)
        assert found is not None
        assert found.record == game.record()
        assert (found.created, found.ended) == (game.created, game.ended)
        assert found.changes is None  # rated in Redis: its ratings moved with the players'
    aborted_found = await finished_game(db, aborted.game_id)
    assert aborted_found is not None
    assert (aborted_found.abort_cause, aborted_found.abort_side) == ("called_off", "black")
    won_ann = (await _ratings(db))[("ann", "amazons")]
    assert won_ann[0] == 1662.3  # rated once, in Redis
    assert len(await _history(db)) == 2


@pytest.mark.asyncio
async def test_an_older_folders_game_left_unrated_is_rated_at_its_hand_over(
    redis: Redis, redis_url: str, db: Database
) -> None:
    """Servers before the database rated a game after the commit that ended it, which put it on
    `games:unrated`: a game its server stopped before rating is rated once, from the moved
    ratings, when the first process with a database hands it over."""
    await _write_older_folder(redis)
    older = GameStore(open_redis(redis_url))
    try:
        ann, both = Player("Ann", PlayerKind.HUMAN), Player("Both", PlayerKind.HUMAN)
        started = await older.create(
            ann, both, time=TimeControl(60, 2), rated=True, now=T0, setup="6x6"
        )
        await older.play(started.game_id, "Ann", 0, "b1-b4/d4", T0 + 1_000)
        await older.play(started.game_id, "Both", 1, "e6-e3/c3", T0 + 2_000)
        await older.resign(started.game_id, "Both", T0 + 3_000)
    finally:
        await older.redis.aclose()
    # As those servers left it: on the archive and the set to rate, no hand-over set.
    await GameIndex(redis).handed_over(started.game_id)
    await redis.zadd(ARCHIVE, {started.game_id: T0 + 3_000})
    await redis.sadd(UNRATED, started.game_id)

    store = GameStore(open_redis(redis_url), database=db)
    try:
        assert await store.hand_over_leftovers() == 1
        assert await store.hand_over_leftovers() == 0
    finally:
        await store.redis.aclose()

    found = await finished_game(db, started.game_id)
    assert found is not None
    assert found.changes is not None
    after = rate_game(
        Rating(1662.3077478559583, 290.31896371798047, 0.05999967537233814),
        Rating(1555.5, 120.25, 0.0599),
        white_won=True,
    )
    assert (await _ratings(db))[("ann", "amazons")][0] == after[0].rating
    assert len(await _history(db)) == 4 + 2
    assert not await redis.exists(UNRATED)
    assert await GameIndex(redis).waiting_handover() == []


@pytest.mark.asyncio
async def test_a_finished_game_that_cannot_be_recorded_holds_up_no_other(
    redis: Redis, redis_url: str, db: Database
) -> None:
    older = GameStore(open_redis(redis_url))
    try:
        ann, bob = Player("Ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
        ended = []
        for number in range(2):
            started = await older.create(
                ann, bob, time=TimeControl(60, 2), rated=False, now=T0 + number, setup="6x6"
            )
            await older.play(started.game_id, "Ann", 0, "b1-b4/d4", T0 + 1_000)
            await older.resign(started.game_id, "bob", T0 + 2_000)
            ended.append(FinishedGame.of(await older.load(started.game_id)))
    finally:
        await older.redis.aclose()
    broken = dataclasses.replace(
        ended[0], record=dataclasses.replace(ended[0].record, clocks=[])
    )  # moves without their clocks

    assert await copy_finished_games(db, [broken, ended[1]]) == 1

    assert await finished_game(db, ended[0].game_id) is None
    assert await finished_game(db, ended[1].game_id) is not None


@pytest.mark.asyncio
async def test_a_rating_or_point_edited_out_of_shape_is_left_out_of_the_move(
    redis: Redis, db: Database
) -> None:
    await redis.hset("user:cat", mapping={"rating:amazons": "high", "rating:hex": "1600.5"})
    await redis.rpush(
        "user:cat:history:hex",
        "not json",
        '{"at": 1789999000000, "game_id": "h9"}',
        '{"at": 1789999000000, "game_id": "h8", "rating": 1600.5, "deviation": 300.0}',
    )

    assert await move_ratings(db, redis) == MovedRatings(ratings=1, points=1, deleted=2)
    assert list(await _ratings(db)) == [("cat", "hex")]
    assert [point[2] for point in await _history(db)] == ["h8"]
