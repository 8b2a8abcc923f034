"""`player_info` with only what the players' handlers are given, on a real Redis: the profile of
an account after rated and casual games (each rated game a point of its rating's history), of a
house bot at the strength it played, and of a ladder bot; an unknown name and a bad field."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgpack
import pytest
from redis.asyncio import Redis

from server import identity
from server.db import Database
from server.games import GameStore
from server.handlers.players import PlayersServices, player_info
from server.ladder.pairing import Pairing
from server.ladder.store import LadderStore
from server.protocol import (
    Colour,
    ErrorCode,
    Event,
    Player,
    PlayerInfo,
    PlayerKind,
    PlayerProfile,
    ProtocolError,
    Termination,
    TimeControl,
    decode_request,
)
from server.worker import HOUSE_BOTS

BLITZ = TimeControl(300, 5)


@dataclass
class Standin:
    replies: list[Event] = field(default_factory=list)

    def reply(self, event: Event) -> None:
        self.replies.append(event)


def _services(redis: Redis, database: Database) -> PlayersServices:
    store = GameStore(redis, database=database)
    return PlayersServices(redis, store, LadderStore(redis, database), HOUSE_BOTS)


async def _profile(redis: Redis, database: Database, name: str) -> PlayerProfile:
    connection = Standin()
    await player_info(_services(redis, database), connection, PlayerInfo(name, id=4))
    [reply] = connection.replies
    assert isinstance(reply, PlayerProfile)
    assert reply.id == 4
    return reply


async def _resigned(
    store: GameStore,
    white: Player,
    black: Player,
    loser: str,
    now: int,
    *,
    rated: bool = True,
    house: tuple[str | None, str | None] = (None, None),
) -> str:
    started = await store.create(
        white, black, time=BLITZ, rated=rated, now=now, setup="6x6", house=house
    )
    await store.resign(started.game_id, loser, now + 1000)
    return started.game_id


@pytest.mark.asyncio
async def test_an_accounts_profile_has_its_rating_history_and_finished_games(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "Alice", "secret-a")
    await identity.create_account(database, "bob", "secret-b")
    alice, bob = Player("Alice", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    store = GameStore(redis)
    ids = [
        await _resigned(store, alice, bob, "bob", 1_000_000),
        await _resigned(store, bob, alice, "bob", 2_000_000),
        await _resigned(store, alice, bob, "Alice", 3_000_000),
        await _resigned(store, alice, bob, "bob", 4_000_000, rated=False),
    ]
    profile = await _profile(redis, database, "ALICE")
    assert (profile.name, profile.kind, profile.owner) == ("Alice", PlayerKind.HUMAN, None)
    [pool] = profile.ratings
    assert (pool.game, pool.ladder, pool.strength) == ("amazons", None, None)
    assert [point.game_id for point in pool.history] == ids[:3]  # the casual game has none
    assert [point.at for point in pool.history] == [1_001_000, 2_001_000, 3_001_000]
    assert {point.setup for point in pool.history} == {"6x6"}
    ratings = [point.rating for point in pool.history]
    assert ratings[0] > 1500  # a win, a win, a loss
    assert ratings[1] > ratings[0]
    assert ratings[2] < ratings[1]
    assert (pool.rating, pool.deviation) == (ratings[-1], pool.history[-1].deviation)
    assert pool.provisional  # three games leave the deviation far above 110
    stored = await identity.rating_in(redis, "Alice", "amazons")
    assert pool.rating == stored

    assert [game.game_id for game in profile.games] == ids[::-1]
    latest = profile.games[0]
    assert (latest.opponent.name, latest.colour, latest.winner, latest.rated) == (
        "bob",
        Colour.WHITE,
        Colour.WHITE,
        False,
    )
    as_black = profile.games[2]
    assert (as_black.colour, as_black.winner, as_black.termination) == (
        Colour.BLACK,
        Colour.BLACK,
        Termination.RESIGNATION,
    )
    assert (as_black.setup, as_black.ended, as_black.game) == ("6x6", 2_001_000, "amazons")
    assert [game.opponent.name for game in (await _profile(redis, database, "bob")).games] == [
        "Alice"
    ] * 4


@pytest.mark.asyncio
async def test_an_aborted_game_is_listed_without_a_winner_and_moves_no_rating(
    redis: Redis,
    database: Database,
) -> None:
    await identity.create_account(database, "carol", "secret-c")
    guest = await identity.new_guest(redis)
    store = GameStore(redis)
    started = await store.create(
        Player("carol", PlayerKind.HUMAN),
        guest.player(),
        time=BLITZ,
        rated=False,
        now=1000,
        setup="6x6",
    )
    await store.abort(started.game_id, "carol", 2000)
    profile = await _profile(redis, database, guest.name)
    assert (profile.kind, profile.ratings) == (PlayerKind.GUEST, ())
    [game] = profile.games
    assert (game.winner, game.termination, game.opponent.name) == (
        None,
        Termination.ABORTED,
        "carol",
    )


@pytest.mark.asyncio
async def test_a_house_bot_is_rated_at_each_strength_it_played(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "dave", "secret-d")
    store = GameStore(redis)
    dave, invader = Player("dave", PlayerKind.HUMAN), Player("invader", PlayerKind.HOUSE)
    first = await _resigned(store, dave, invader, "dave", 1000, house=(None, "invader@3"))
    second = await _resigned(store, invader, dave, "dave", 5000, house=("invader@7", None))
    profile = await _profile(redis, database, "Invader")
    assert (profile.name, profile.kind) == ("invader", PlayerKind.HOUSE)
    assert [(pool.strength, [p.game_id for p in pool.history]) for pool in profile.ratings] == [
        (3, [first]),
        (7, [second]),
    ]
    assert [game.game_id for game in profile.games] == [second, first]


@pytest.mark.asyncio
async def test_a_ladder_bot_has_its_ladder_rating_history_and_its_owner(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "erin", "secret-e")
    await identity.create_bot_token(database, "Erinbot", owner="erin")
    await identity.create_bot_token(database, "other")
    ladders = LadderStore(redis)
    await ladders.ensure_defaults()
    for number, white_won in enumerate((True, False, True)):
        game_id = f"ladder{number}"
        await ladders.started("fast", Pairing("Erinbot", "other"), game_id)
        assert await ladders.rate(
            "fast", game_id, "Erinbot", "other", white_won, ended=10_000 * (number + 1)
        )
    profile = await _profile(redis, database, "erinbot")
    assert (profile.name, profile.kind, profile.owner) == ("Erinbot", PlayerKind.BOT, "erin")
    [pool] = profile.ratings
    assert (pool.game, pool.ladder, pool.strength) == ("amazons", "fast", None)
    assert [(point.game_id, point.at) for point in pool.history] == [
        ("ladder0", 10_000),
        ("ladder1", 20_000),
        ("ladder2", 30_000),
    ]
    rating = (await ladders.ratings("fast"))["Erinbot"]
    assert (pool.rating, pool.deviation) == (round(rating.rating), round(rating.deviation))


@pytest.mark.asyncio
async def test_an_unknown_name_is_not_found_and_named(redis: Redis, database: Database) -> None:
    with pytest.raises(ProtocolError) as refused:
        await player_info(_services(redis, database), Standin(), PlayerInfo("nosuch", id=1))
    assert refused.value.code is ErrorCode.NOT_FOUND
    assert str(refused.value) == "no player nosuch: no account or house bot"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "field 'name' must be a string of 1 to 32 characters, got ''"),
        ("x" * 33, f"field 'name' must be a string of 1 to 32 characters, got {'x' * 33!r}"),
        (7, "field 'name' must be a string of 1 to 32 characters, got 7"),
    ],
)
def test_a_bad_name_is_a_bad_field(name: object, message: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request(msgpack.packb({"t": "player_info", "id": 1, "name": name}))
    assert (refused.value.code, str(refused.value)) == (ErrorCode.BAD_FIELD, message)
