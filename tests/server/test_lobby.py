"""The lobby in Redis: seeks, challenges and waiting players stored as named fields (those that
servers before named fields stored as lists still read, as Amazons), pools per game, and
players shown with their rating in the game at hand."""

import msgpack
import pytest
import pytest_asyncio
from argon2 import PasswordHasher
from redis.asyncio import Redis

from server.db import Database
from server.identity import create_account
from server.lobby import CHALLENGES, POOLS, SEEK_EXPIRY, SEEKS, Lobby, Pairing
from server.protocol import ChallengeInfo, ColourPreference, Player, PlayerKind, TimeControl
from server.stored import StoredRecordError, pack, unpack
from tests.server.db.stored_ratings import store_rating
from tests.server.endpoint import serving
from tests.server.wire import Wire

ANN = Player("ann", PlayerKind.HUMAN, 1712)
BOB = Player("bob", PlayerKind.HUMAN)
NOW = 1_000_000


@pytest_asyncio.fixture(autouse=True)
async def accounts(database: Database) -> None:
    """Ann with an Amazons rating, Bob none."""
    fast = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    for name in ("ann", "bob"):
        await create_account(database, name, f"{name}-password", hasher=fast)
    await store_rating(database, "ann", "amazons", 1712.4)


@pytest.mark.asyncio
async def test_a_seek_is_stored_as_a_map_of_named_fields(redis: Redis, database: Database) -> None:
    lobby = Lobby(redis, database)
    seek = await lobby.add_seek(
        ANN,
        game="amazons",
        setup="8x8",
        time=TimeControl(180, 2),
        rated=True,
        colour=ColourPreference.WHITE,
        now=NOW,
    )
    stored = msgpack.unpackb(await redis.hget(SEEKS, seek.seek_id))
    assert stored["player"] == {"name": "ann", "kind": "human", "rating": 1712}
    assert (stored["game"], stored["setup"], stored["time"], stored["rated"]) == (
        "amazons",
        "8x8",
        {"base": 180, "increment": 2},
        True,
    )
    assert await lobby.seeks(NOW) == [seek]


@pytest.mark.asyncio
async def test_a_seek_stored_as_a_list_by_an_earlier_server_still_reads(redis: Redis) -> None:
    # Exactly what the server stored before records had named fields.
    await redis.hset(
        SEEKS, "s7", msgpack.packb(["s7", ["ann", "human", 1712], "10x10", [180, 2], True, "white"])
    )
    await redis.zadd(SEEK_EXPIRY, {"s7": NOW + 60_000})
    lobby = Lobby(redis)
    (seek,) = await lobby.seeks(NOW)
    assert (seek.seek_id, seek.player, seek.game, seek.setup) == ("s7", ANN, "amazons", "10x10")
    assert (seek.time, seek.rated, seek.colour) == (
        TimeControl(180, 2),
        True,
        ColourPreference.WHITE,
    )
    assert await lobby.take_seek("s7", taker="bob") == seek


@pytest.mark.asyncio
async def test_a_challenge_stored_as_a_list_by_an_earlier_server_still_reads(
    redis: Redis, database: Database
) -> None:
    await redis.hset(
        CHALLENGES,
        "c3",
        msgpack.packb(
            ["c3", ["ann", "human", 1712], ["bob", "human", None], "8x8", [60, 0], False, "random"]
        ),
    )
    lobby = Lobby(redis, database)
    expected = ChallengeInfo(
        "c3", ANN, BOB, "8x8", TimeControl(60, 0), False, ColourPreference.RANDOM
    )
    assert expected.game == "amazons"
    assert await lobby.challenges_for("Bob") == [expected]
    assert await lobby.challenge("c3") == expected
    # The new form is what is stored from now on, and reads back the same.
    await lobby.add_challenge(expected)
    assert msgpack.unpackb(await redis.hget(CHALLENGES, "c3"))["opponent"] == {
        "name": "bob",
        "kind": "human",
    }
    assert await lobby.challenge("c3") == expected


@pytest.mark.asyncio
async def test_players_waiting_in_a_pool_an_earlier_server_filled_are_paired(
    redis: Redis,
) -> None:
    pool = "lobby:pool:6x6:180+2:casual"
    await redis.zadd(pool, {"ann": 1712, "bob": 1500})
    await redis.hset(pool + ":since", mapping={"ann": NOW, "bob": NOW})
    await redis.hset(
        pool + ":who",
        mapping={
            "ann": msgpack.packb(["ann", "human", 1712]),
            "bob": msgpack.packb(["bob", "human", None]),
        },
    )
    await redis.sadd(POOLS, pool)
    # A 212-point gap is inside the window once the earlier of them has waited 5 s.
    (pairing,) = await Lobby(redis).pair(NOW + 5_000)
    assert pairing == Pairing(BOB, ANN, "amazons", "6x6", TimeControl(180, 2), False)


def test_a_record_that_fails_its_schema_names_the_field() -> None:
    data = msgpack.packb({"name": "ann", "kind": "wizard"})
    with pytest.raises(StoredRecordError, match="field 'kind' must be one of 'human'"):
        unpack(Player, data, "player")
    with pytest.raises(StoredRecordError, match="stored player is not a map"):
        unpack(Player, msgpack.packb(["ann", "human", None]), "player")


def test_a_field_a_later_server_added_is_skipped() -> None:
    data = msgpack.packb({"name": "ann", "kind": "human", "rating": 1712, "title": "GM"})
    assert unpack(Player, data, "player") == ANN
    assert unpack(Player, pack(ANN), "player") == ANN


@pytest.mark.asyncio
async def test_quick_pairing_pairs_only_players_waiting_for_the_same_game(
    redis: Redis, database: Database
) -> None:
    lobby = Lobby(redis, database)
    blitz = TimeControl(180, 2)
    await lobby.join_pool(ANN, "amazons", "6x6", blitz, False, NOW)
    await lobby.join_pool(BOB, "toy", "6x6", blitz, False, NOW)
    assert await lobby.pair(NOW + 60_000) == []
    cat = Player("cat", PlayerKind.GUEST)
    await lobby.join_pool(cat, "amazons", "6x6", blitz, False, NOW)
    assert await lobby.pair(NOW + 60_000) == [Pairing(cat, ANN, "amazons", "6x6", blitz, False)]
    assert await lobby.leave_pools("bob")
    assert not await lobby.leave_pools("ann")


@pytest.mark.asyncio
async def test_the_lobby_shows_a_player_with_the_rating_in_the_game_asked_for(
    redis: Redis, database: Database
) -> None:
    await store_rating(database, "bob", "toy", 1820.7)
    lobby = Lobby(redis, database)
    stale = Player("bob", PlayerKind.HUMAN, 1400)  # as a connection had it at login
    terms = {"setup": "6x6", "time": TimeControl(60, 0), "rated": True, "now": NOW}
    toy = await lobby.add_seek(stale, game="toy", colour=ColourPreference.RANDOM, **terms)
    amazons = await lobby.add_seek(stale, game="amazons", colour=ColourPreference.RANDOM, **terms)
    assert (toy.player.rating, amazons.player.rating) == (1821, None)
    made = await lobby.add_challenge(
        ChallengeInfo(
            "c1", stale, ANN, "6x6", TimeControl(60, 0), True, ColourPreference.RANDOM, "toy"
        )
    )
    assert (made.challenger.rating, made.opponent.rating) == (1821, None)
    assert await lobby.challenge("c1") == made


@pytest.mark.asyncio
async def test_a_challenge_an_earlier_server_stored_is_accepted_as_an_amazons_game(
    redis: Redis, redis_url: str
) -> None:
    await redis.hset(
        CHALLENGES,
        "c3",
        msgpack.packb(
            ["c3", ["ann", "human", 1712], ["bob", "human", None], "6x6", [60, 0], True, "black"]
        ),
    )
    async with serving(redis_url) as url:
        bob = await Wire.connect(url)
        await bob.call("hello", version=1)
        await bob.call("login", user="bob", password="bob-password")
        incoming = await bob.wait_for(lambda frame: frame["t"] == "challenge_added")
        assert incoming["challenge"]["game"] == "amazons"
        started = await bob.call("accept_challenge", challenge_id="c3")
        assert started["t"] == "game_started", started
        assert (started["white"]["name"], started["black"]["name"]) == ("bob", "ann")
        assert (started["setup"], started["rated"], started["black"]["rating"]) == (
            "6x6",
            True,
            1712,
        )
        await bob.close()
