"""Signing up over real websockets, a real Redis and the test's database: a stranger makes an
account and is logged in to it, each refusal names what is wrong, and nothing a stranger sends
takes over, locks out or renames an account that exists."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.db import Database
from server.identity import create_account
from server.throttle import SignupLimits
from tests.server.endpoint import serving
from tests.server.wire import Frame, Wire

SIX = {"base": 300, "increment": 0}
STRONG = "plum-kettle-harbour"


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    async with serving(redis_url, signup_limits=SignupLimits(hour=3, day=5)) as found:
        yield found


async def _hello(url: str, address: str = "127.0.0.1") -> tuple[Wire, Frame]:
    wire = await Wire.connect(url, local_addr=(address, 0))
    return wire, await wire.call("hello", version=1)


async def _sign_up(url: str, user: str, password: str, address: str = "127.0.0.1") -> Frame:
    """One sign-up on a fresh connection from `address`."""
    wire, _ = await _hello(url, address)
    reply = await wire.call("sign_up", user=user, password=password)
    await wire.close()
    return reply


async def _login(url: str, user: str, password: str) -> Frame:
    wire, _ = await _hello(url)
    reply = await wire.call("login", user=user, password=password)
    await wire.close()
    return reply


def _refusal(reply: Frame) -> tuple[str, str | None, str]:
    assert reply["t"] == "error", reply
    return reply["code"], reply.get("field"), reply["message"]


@pytest.mark.asyncio
async def test_a_stranger_signs_up_and_is_logged_in(url: str) -> None:
    wire, ok = await _hello(url)
    assert ok == {"t": "ok", "id": 1, "signups": True}
    welcome = await wire.call("sign_up", user="Ann_Lee", password=STRONG)
    assert welcome["t"] == "welcome", welcome
    assert welcome["user"] == {"name": "Ann_Lee", "kind": "human"}
    # Logged in: the lobby answers, and the session resumes.
    assert (await wire.call("list_seeks"))["t"] == "seek_list"
    await wire.close()
    again, _ = await _hello(url)
    assert (await again.call("resume", session=welcome["session"]))["t"] == "welcome"
    await again.close()
    assert (await _login(url, "ann_lee", STRONG))["user"]["name"] == "Ann_Lee"


@pytest.mark.asyncio
async def test_a_closed_server_says_so_before_the_login_and_makes_no_account(
    redis_url: str, database: Database
) -> None:
    async with serving(redis_url, signups=False) as url:
        wire, ok = await _hello(url)
        assert ok == {"t": "ok", "id": 1, "signups": False}
        reply = await wire.call("sign_up", user="ann", password=STRONG)
        assert _refusal(reply) == (
            "forbidden",
            None,
            "sign-ups are closed on this server: its operator makes the accounts",
        )
        await wire.close()
        assert (await _login(url, "ann", STRONG))["code"] == "bad_credentials"


@pytest.mark.parametrize(
    ("user", "message"),
    [
        ("ann ", "user name 'ann ' may only have letters a-z and A-Z, digits, '_' and '-'"),
        # A Cyrillic a (U+0430): names are ASCII, so no name looks like another.
        ("\u0430nn", "user name '\u0430nn' may only have letters a-z and A-Z, digits, '_' and '-'"),
        ("Guest-12", "user name 'Guest-12': names starting 'guest-' are for guests"),
        ("Invader", "user name 'Invader' is the name of a house bot"),
    ],
)
@pytest.mark.asyncio
async def test_a_name_against_the_rules_is_refused(url: str, user: str, message: str) -> None:
    assert _refusal(await _sign_up(url, user, STRONG)) == ("bad_field", "user", message)


@pytest.mark.asyncio
async def test_a_name_too_long_or_empty_is_refused(url: str) -> None:
    for user in ("", "a" * 33):
        code, field, _ = _refusal(await _sign_up(url, user, STRONG))
        assert (code, field) == ("bad_field", "user")


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("plum-7", "a password has at least 8 characters; this one has 6"),
        ("Sunshine", "the password is one of the 10,000 most common passwords; choose another"),
        ("qwertyuiop", "the password is one of the 10,000 most common passwords; choose another"),
        ("BEA_TRIX", "the password is the user name"),
    ],
)
@pytest.mark.asyncio
async def test_a_weak_password_is_refused(url: str, password: str, message: str) -> None:
    reply = await _sign_up(url, "bea_trix", password)
    assert _refusal(reply) == ("bad_field", "password", message)


@pytest.mark.asyncio
async def test_a_taken_name_in_any_case_takes_nothing_over(url: str, database: Database) -> None:
    await create_account(database, "carol", "carols-own-password")
    for user in ("carol", "CAROL", "Carol"):
        reply = await _sign_up(url, user, STRONG)
        assert _refusal(reply) == ("conflict", "user", f"user name {user!r} is taken")
    assert (await _login(url, "carol", "carols-own-password"))["user"]["name"] == "carol"
    assert (await _login(url, "Carol", STRONG))["code"] == "bad_credentials"


@pytest.mark.asyncio
async def test_one_name_signed_up_at_once_in_two_cases_makes_one_account(url: str) -> None:
    replies = await asyncio.gather(
        _sign_up(url, "dave", STRONG, "127.0.0.4"), _sign_up(url, "DAVE", STRONG, "127.0.0.5")
    )
    assert sorted(reply["t"] for reply in replies) == ["error", "welcome"]
    [refused] = [reply for reply in replies if reply["t"] == "error"]
    assert (refused["code"], refused["field"]) == ("conflict", "user")


@pytest.mark.asyncio
async def test_a_logged_in_connection_cannot_sign_up(url: str, database: Database) -> None:
    await create_account(database, "erin", "erins-own-password")
    wire, _ = await _hello(url)
    assert (await wire.call("login", user="erin", password="erins-own-password"))["t"] == (
        "welcome"
    )
    reply = await wire.call("sign_up", user="erin2", password=STRONG)
    assert _refusal(reply) == (
        "conflict",
        None,
        "already logged in as erin: sign up from the sign-in screen (a new connection)",
    )
    # The connection is still erin's, and no account was made.
    assert (await wire.call("list_seeks"))["t"] == "seek_list"
    await wire.close()
    assert (await _login(url, "erin2", STRONG))["code"] == "bad_credentials"


@pytest.mark.asyncio
async def test_a_guest_in_a_game_is_told_to_finish_or_leave_it_first(url: str) -> None:
    guest, other = await Wire.guest(url), await Wire.guest(url)
    added = await guest.call("seek", time=SIX, setup="6x6")
    started = await other.call("accept_seek", seek_id=added["seek"]["seek_id"])
    assert started["t"] == "game_started", started
    reply = await guest.call("sign_up", user="frank", password=STRONG)
    assert _refusal(reply) == (
        "conflict",
        None,
        f"you are playing game {started['game_id']} as {guest.user}, and a game keeps the "
        "players it started with: finish or leave it, then sign up from the sign-in screen",
    )
    await guest.close()
    await other.close()


@pytest.mark.asyncio
async def test_sign_ups_from_one_address_are_limited_and_refusals_do_not_count(url: str) -> None:
    here = "127.0.0.7"
    # Refused sign-ups make no account and count for nothing.
    for _ in range(4):
        assert (await _sign_up(url, "guest-1", STRONG, here))["code"] == "bad_field"
    for index in range(3):
        assert (await _sign_up(url, f"gina{index}", STRONG, here))["t"] == "welcome"
    held = await _sign_up(url, "gina3", STRONG, here)
    assert held["code"] == "rate_limited"
    assert held["message"] == (
        f"too many accounts made from your address: try again in {held['retry_after']} s"
    )
    assert 3500 < held["retry_after"] <= 3600
    assert (await _login(url, "gina3", STRONG))["code"] == "bad_credentials"
    # Another address is not held back.
    assert (await _sign_up(url, "gina3", STRONG, "127.0.0.8"))["t"] == "welcome"


@pytest.mark.asyncio
async def test_a_flood_of_sign_ups_at_once_makes_no_more_than_the_limit(url: str) -> None:
    replies = await asyncio.gather(
        *(_sign_up(url, f"hank{index}", STRONG, "127.0.0.9") for index in range(8))
    )
    assert sorted(str(reply.get("code", reply["t"])) for reply in replies) == [
        *["rate_limited"] * 5,
        *["welcome"] * 3,
    ]


@pytest.mark.asyncio
async def test_the_day_limit_holds_after_the_hours_window(url: str, redis: Redis) -> None:
    here = "127.0.0.10"
    for index in range(3):
        assert (await _sign_up(url, f"ivy{index}", STRONG, here))["t"] == "welcome"
    await redis.delete(f"signup:{{{here}}}:hour")  # as if the hour had passed
    for index in range(3, 5):
        assert (await _sign_up(url, f"ivy{index}", STRONG, here))["t"] == "welcome"
    held = await _sign_up(url, "ivy5", STRONG, here)
    assert held["code"] == "rate_limited"
    assert 3600 < held["retry_after"] <= 24 * 3600
