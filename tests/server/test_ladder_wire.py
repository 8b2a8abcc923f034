"""`join_ladder` and `leave_ladder` frame by frame, as an outside client written from
docs/protocol.md sends them: the replies, the refusals, and a membership that ends with its
connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import cast

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.clock import now_ms
from server.db import Database
from server.identity import create_account, create_bot_token
from server.ladder.standing import Table
from server.ladder.store import Ladder, LadderStore
from server.offers import TimeControls
from server.protocol import Standings, TimeControl, decode_event
from tests.server.endpoint import serving
from tests.server.ladder.rated import rated_game
from tests.server.wire import Wire


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    await store.create(Ladder("slow", "10x10", TimeControl(3600, 30)))
    # The default ladders are offered; `slow`'s hour is not.
    async with serving(redis_url, time_controls=TimeControls.parse("10-600+10")) as found:
        yield found


async def _bot(url: str, database: Database, name: str) -> Wire:
    wire = await Wire.connect(url)
    await wire.call("hello", version=1)
    welcome = await wire.call("bot_login", token=await create_bot_token(database, name))
    assert welcome["t"] == "welcome", welcome
    return wire


@pytest.mark.asyncio
async def test_a_bot_joins_and_leaves_and_each_reply_says_what_happened(
    url: str, redis: Redis, database: Database
) -> None:
    wire = await _bot(url, database, "Ladderbot")
    store = LadderStore(redis, database)
    joined = await wire.call("join_ladder", ladder="FAST")
    assert joined == {
        "t": "ladder_membership",
        "id": joined["id"],
        "ladder": "fast",
        "member": True,
        "games": 1,
        "changed": True,
        "game": "amazons",
        "setup": "6x6",
        "time": {"base": 10, "increment": 0},
    }
    again = await wire.call("join_ladder", ladder="fast")
    assert (again["member"], again["games"], again["changed"]) == (True, 1, False)
    more = await wire.call("join_ladder", ladder="fast", games=3)
    assert (more["member"], more["games"], more["changed"]) == (True, 3, True)
    await wire.call("join_ladder", ladder="main")
    assert await store.members("fast", now_ms()) == {"Ladderbot": 3}
    assert await store.members("main", now_ms()) == {"Ladderbot": 1}

    left = await wire.call("leave_ladder", ladder="fast")
    assert (left["t"], left["ladder"], left["member"], left["games"], left["changed"]) == (
        "ladder_membership",
        "fast",
        False,
        0,
        True,
    )
    not_there = await wire.call("leave_ladder", ladder="fast")
    assert (not_there["member"], not_there["changed"]) == (False, False)
    assert await store.members("fast", now_ms()) == {}
    assert await store.members("main", now_ms()) == {"Ladderbot": 1}
    await wire.close()


@pytest.mark.asyncio
async def test_a_membership_ends_with_the_connection_that_joined(
    url: str, redis: Redis, database: Database
) -> None:
    store = LadderStore(redis, database)
    wire = await _bot(url, database, "Goner")
    await wire.call("join_ladder", ladder="fast")
    await wire.close()
    async with asyncio.timeout(30):
        while await store.members("fast", now_ms()):
            await asyncio.sleep(0.05)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("request_fields", "code", "message"),
    [
        (
            {"t": "join_ladder", "ladder": "nowhere"},
            "not_found",
            "no ladder nowhere; the ladders are bao, fast, main, slow",
        ),
        (
            {"t": "leave_ladder", "ladder": "nowhere"},
            "not_found",
            "no ladder nowhere; the ladders are bao, fast, main, slow",
        ),
        (
            {"t": "join_ladder", "ladder": "slow"},
            "unavailable",
            "this server does not play ladder slow: time control 3600+30 is not offered: the "
            "base must be 10 to 600 s",
        ),
        (
            {"t": "join_ladder", "ladder": "fast", "games": 0},
            "bad_field",
            "field 'games' must be an int from 1 to 100, got 0",
        ),
        (
            {"t": "join_ladder", "ladder": "fast", "engine": ""},
            "bad_field",
            "field 'engine' must be a string of 1 to 100 characters, got ''",
        ),
    ],
)
async def test_bad_requests_are_refused_with_one_clear_line(
    url: str,
    redis: Redis,
    request_fields: dict[str, object],
    code: str,
    message: str,
    database: Database,
) -> None:
    wire = await _bot(url, database, "Refused")
    tag = str(request_fields.pop("t"))
    reply = await wire.call(tag, **request_fields)
    assert (reply["t"], reply["code"], reply["message"]) == ("error", code, message)
    await wire.close()


@pytest.mark.asyncio
async def test_only_bot_accounts_join_ladders(url: str, redis: Redis, database: Database) -> None:
    wire = await Wire.guest(url)
    reply = await wire.call("join_ladder", ladder="fast")
    assert (reply["t"], reply["code"], reply["message"]) == (
        "error",
        "forbidden",
        "only bot accounts play on ladders",
    )
    assert await LadderStore(redis, database).members("fast", now_ms()) == {}
    await wire.close()


@pytest.mark.asyncio
async def test_anyone_may_ask_for_a_ladders_standings(
    redis: Redis, redis_url: str, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    await create_account(database, "ann", "ann-password")
    await create_bot_token(database, "ace", owner="ann")
    for number, (white, black) in enumerate([("ace", "bee"), ("bee", "ace"), ("cid", "bee")]):
        won = white != "bee"
        await rated_game(database, "fast", f"g{number}", white, black, won, ended=1_000 * number)
    async with serving(redis_url) as url:
        await _ask_for_the_standings(url, store, database)


async def _ask_for_the_standings(url: str, store: LadderStore, database: Database) -> None:
    bot = await Wire.connect(url)
    await bot.call("hello", version=1)
    await bot.call("bot_login", token=await create_bot_token(database, "cid"))
    await bot.call("join_ladder", ladder="fast", engine="cid's own engine 1.0")
    wire = await Wire.connect(url)
    await wire.call("hello", version=1)
    await wire.call("guest")
    shown = await wire.call("ladder_standings", ladder="FAST")
    assert (shown["t"], shown["ladder"]) == ("standings", "fast")
    rows = shown["rows"]
    # ace won both its games, cid its one, bee none: ranked by the rating list.
    assert [(r["rank"], r["bot"], r["games"], r["wins"]) for r in rows] == [
        (1, "ace", 2, 2),
        (2, "cid", 1, 1),
        (3, "bee", 3, 0),
    ]
    assert all(r["provisional"] and not r["anchor"] for r in rows)
    assert [r["online"] for r in rows] == [False, True, False]
    assert rows[0]["rating"] > 1500 > rows[2]["rating"]
    assert [r.get("owner") for r in rows] == ["ann", "cid", "bee"]
    assert [r.get("engine") for r in rows] == [None, "cid's own engine 1.0", None]
    # bee's last game ended at 2000 ms; cid joined since (now).
    assert rows[2]["last_seen"] == 2_000
    assert rows[1]["last_seen"] >= now_ms() - 60_000
    assert shown["games"] == [
        {"game_id": "g2", "white": "cid", "black": "bee", "winner": "white", "ended": 2_000},
        {"game_id": "g1", "white": "bee", "black": "ace", "winner": "black", "ended": 1_000},
        {"game_id": "g0", "white": "ace", "black": "bee", "winner": "white", "ended": 0},
    ]
    assert shown["cross"] == [["ace", "bee", 2, 0], ["cid", "bee", 1, 0]]
    # What a client prints from the event is the table the store prints.
    now = now_ms()
    table = await store.table("fast", now)
    sent = Table.from_wire(cast(Standings, decode_event(msgpack.packb(shown))))
    assert sent.render(now) == table.render(now)
    assert sent.render_cross() == table.render_cross()
    unknown = await wire.call("ladder_standings", ladder="nosuch")
    assert (unknown["t"], unknown["code"]) == ("error", "not_found")
    assert "nosuch" in unknown["message"]
    await wire.close()
    await bot.close()
