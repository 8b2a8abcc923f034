"""The ladders' store: definitions (in the database), members and their lapse, colour history,
the games under way, the lease (in Redis)."""

import pytest
from redis.asyncio import Redis

from server.db import Database
from server.ladder.pairing import Pairing
from server.ladder.store import (
    DEFAULT_LADDERS,
    MEMBERSHIP_MS,
    Ladder,
    LadderError,
    LadderStore,
    parse_time,
)
from server.offers import Offered, TimeControls
from server.protocol import TimeControl
from server.worker import HOUSE_BOTS


@pytest.mark.asyncio
async def test_a_ladder_is_created_listed_found_by_any_case_and_removed(
    redis: Redis, database: Database
) -> None:
    store = LadderStore(redis, database)
    assert await store.create(Ladder("Blitz", "8x8", TimeControl(30, 1)))
    assert not await store.create(Ladder("blitz", "6x6", TimeControl(60, 0)))
    assert await store.ladders() == [Ladder("blitz", "8x8", TimeControl(30, 1))]
    found = await store.get("BLITZ")
    assert (found.setup, found.time, found.terms) == ("8x8", TimeControl(30, 1), "amazons 8x8 30+1")
    assert (await store.remove("blitz")).name == "blitz"
    assert await store.ladders() == []
    with pytest.raises(LadderError, match=r"^no ladder blitz; there are no ladders$"):
        await store.get("blitz")


@pytest.mark.asyncio
async def test_the_defaults_are_created_once_and_never_overwritten(
    redis: Redis, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.create(Ladder("fast", "8x8", TimeControl(20, 0)))
    assert [ladder.name for ladder in await store.ensure_defaults()] == ["main", "bao"]
    assert await store.ensure_defaults() == []
    ladders = {ladder.name: ladder for ladder in await store.ladders()}
    assert ladders["fast"].terms == "amazons 8x8 20+0"
    assert ladders["main"].terms == "amazons 10x10 60+1"
    assert ladders["bao"].terms == "bao zanzibar 10+0"
    assert [ladder.terms for ladder in DEFAULT_LADDERS] == [
        "amazons 10x10 60+1",
        "amazons 6x6 10+0",
        "bao zanzibar 10+0",
    ]


def test_bad_names_and_time_controls_are_refused_with_one_line() -> None:
    with pytest.raises(LadderError, match=r"^a ladder name is 1 to 32 letters"):
        Ladder("no spaces", "6x6", TimeControl(10, 0))
    with pytest.raises(LadderError, match=r"^time control '10\+0.1' is not BASE\+INCREMENT"):
        parse_time("10+0.1")
    with pytest.raises(LadderError, match=r"^time control '0\+5': a base of 1 to 10800 s"):
        parse_time("0+5")
    assert parse_time(" 60+1 ") == TimeControl(60, 1)


def test_a_new_ladder_is_of_a_registered_game_on_one_of_its_setups() -> None:
    assert Ladder.new("b", TimeControl(10, 0), "bao") == Ladder(
        "b", "zanzibar", TimeControl(10, 0), "bao"
    )
    assert Ladder.new("a", TimeControl(10, 0)).terms == "amazons 10x10 10+0"
    with pytest.raises(LadderError, match=r"^bao has no setup '10x10': its setups are zanzibar$"):
        Ladder.new("b", TimeControl(10, 0), "bao", "10x10")
    with pytest.raises(LadderError, match=r"^unknown game 'chess': registered games are "):
        Ladder.new("c", TimeControl(10, 0), "chess")


def test_a_ladder_the_server_does_not_offer_says_why() -> None:
    offered = Offered.every_game(TimeControls.parse("60+0,180+2"), HOUSE_BOTS)
    assert Ladder("x", "6x6", TimeControl(60, 0)).refusal(offered) is None
    assert Ladder("x", "6x6", TimeControl(10, 0)).refusal(offered) == (
        "ladder x: time control 10+0 is not offered; offered: 60+0, 180+2"
    )
    assert Ladder("x", "7x7", TimeControl(60, 0)).refusal(offered) == (
        "ladder x: setup '7x7' is not offered for amazons; offered: 10x10, 8x8, 6x6"
    )
    default = Offered.every_game(TimeControls.parse("10-10800+180"), HOUSE_BOTS)
    assert all(ladder.refusal(default) is None for ladder in DEFAULT_LADDERS)


@pytest.mark.asyncio
async def test_members_lapse_unless_renewed_and_a_late_leave_keeps_a_new_join(
    redis: Redis, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.join("fast", "alpha", 2, now=1_000, connection="c1")
    await store.join("fast", "beta", 1, now=1_000, connection="c2")
    assert await store.members("fast", now=1_000) == {"alpha": 2, "beta": 1}
    await store.renew([("fast", "alpha"), ("fast", "gamma")], now=5_000)
    assert await store.members("fast", now=1_000 + MEMBERSHIP_MS) == {"alpha": 2}
    # alpha reconnects and joins again before its old connection is seen to close.
    await store.join("fast", "alpha", 1, now=6_000, connection="c3")
    assert not await store.leave("fast", "alpha", "c1")
    assert await store.members("fast", now=6_000) == {"alpha": 1}
    assert await store.leave("fast", "alpha")
    assert await store.members("fast", now=6_000) == {}


@pytest.mark.asyncio
async def test_history_and_games_are_kept_per_ladder(redis: Redis, database: Database) -> None:
    store = LadderStore(redis, database)
    await store.started("fast", Pairing("a", "b"), "g1")
    await store.started("fast", Pairing("a", "b"), "g2")
    await store.started("fast", Pairing("b", "a"), "g3")
    await store.started("main", Pairing("b", "a"), "g4")
    history = await store.history("fast")
    assert (history.whites("a", "b"), history.whites("b", "a")) == (2, 1)
    assert await store.games("fast") == ["g1", "g2", "g3"]
    assert (await store.ladder_of("g4"), await store.ladder_of("g9")) == ("main", None)
    # A game handed over leaves Redis: the database has it from then on.
    await store.handed_over("fast", "g2")
    assert await store.unrated("fast") == ["g1", "g3"]
    assert await store.ladder_of("g2") is None
    assert (await store.history("fast")).whites("a", "b") == 2


@pytest.mark.asyncio
async def test_a_store_without_a_database_has_no_ladders_and_says_why(redis: Redis) -> None:
    store = LadderStore(redis)
    assert await store.ladders() == []
    with pytest.raises(LadderError, match=r"^no ladder fast; there are no ladders$"):
        await store.get("fast")
    with pytest.raises(LadderError, match=r"^the ladders are kept in a database, and this"):
        await store.create(Ladder("fast", "6x6", TimeControl(10, 0)))


@pytest.mark.asyncio
async def test_one_token_holds_the_lease_until_it_releases_it(
    redis: Redis, database: Database
) -> None:
    store = LadderStore(redis, database)
    assert await store.take_lease("one", 10_000)
    assert not await store.take_lease("two", 10_000)
    assert await store.take_lease("one", 10_000)
    await store.release_lease("two")
    assert await store.lease_holder() == "one"
    await store.release_lease("one")
    assert await store.take_lease("two", 10_000)
    assert await store.lease_holder() == "two"
