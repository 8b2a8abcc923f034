"""A signed-in person's own account over real websockets, a real Redis and the test's
database: the password changed with the old one (wrong guesses throttled as logins are), every
other session of the account ended, and nobody else's account touched."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server import identity
from server.db import Database
from server.identity import create_account
from server.throttle import LoginLimits
from tests.server.endpoint import serving
from tests.server.wire import Frame, Wire

OLD = "plum-kettle-harbour"
SIX = {"base": 300, "increment": 0}
NEW = "quince-lantern-meadow"


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    await create_account(database, "Ann", OLD)
    await create_account(database, "Bea", OLD)
    async with serving(redis_url, login_limits=LoginLimits(pair=3)) as found:
        yield found


async def _login(url: str, user: str = "Ann", password: str = OLD) -> tuple[Wire, Frame]:
    wire = await Wire.connect(url)
    await wire.call("hello", version=1)
    return wire, await wire.call("login", user=user, password=password)


async def _resume(url: str, session: str) -> Frame:
    wire = await Wire.connect(url)
    await wire.call("hello", version=1)
    reply = await wire.call("resume", session=session)
    await wire.close()
    return reply


def _refusal(reply: Frame) -> tuple[str, str | None, str]:
    assert reply["t"] == "error", reply
    return reply["code"], reply.get("field"), reply["message"]


@pytest.mark.asyncio
async def test_a_changed_password_ends_the_accounts_other_sessions(url: str) -> None:
    here, welcome = await _login(url)
    elsewhere, _ = await _login(url)
    _, away = await _login(url)  # a session not connected now, to be resumed later
    bea, bea_welcome = await _login(url, "Bea")

    assert (await here.call("change_password", old=OLD, new=NEW))["t"] == "ok"

    await elsewhere.wait_closed()
    assert elsewhere.socket.close_code == 1008
    assert "session ended" in (elsewhere.socket.close_reason or "")
    assert _refusal(await _resume(url, away["session"]))[0] == "bad_credentials"
    assert (await here.call("ping"))["t"] == "pong"
    assert (await _resume(url, welcome["session"]))["t"] == "welcome"
    # Another account's sessions go on.
    assert (await bea.call("ping"))["t"] == "pong"
    assert (await _resume(url, bea_welcome["session"]))["t"] == "welcome"

    assert _refusal((await _login(url, password=OLD))[1])[0] == "bad_credentials"
    assert (await _login(url, password=NEW))[1]["t"] == "welcome"
    assert (await _login(url, "Bea", OLD))[1]["t"] == "welcome"


@pytest.mark.asyncio
async def test_each_refusal_names_what_is_wrong(url: str) -> None:
    here, _ = await _login(url)
    code, _, message = _refusal(await here.call("change_password", old="not-it-at-all", new=NEW))
    assert (code, message) == ("bad_credentials", "wrong password: the old one is needed")
    code, field, message = _refusal(await here.call("change_password", old=OLD, new="short"))
    assert (code, field) == ("bad_field", "new")
    assert "at least 8 characters" in message
    code, field, message = _refusal(await here.call("change_password", old=OLD, new="password1"))
    assert (code, field) == ("bad_field", "new")
    assert "most common passwords" in message
    # Nothing refused changed anything.
    assert (await _login(url, password=OLD))[1]["t"] == "welcome"


@pytest.mark.asyncio
async def test_wrong_old_passwords_are_throttled_as_failed_logins(url: str) -> None:
    here, _ = await _login(url)
    for _ in range(3):
        reply = await here.call("change_password", old="a-wrong-guess", new=NEW)
        assert _refusal(reply)[0] == "bad_credentials"
    reply = await here.call("change_password", old=OLD, new=NEW)
    assert _refusal(reply)[0] == "rate_limited"
    assert reply["retry_after"] > 0
    # The guesses counted against logins too, and the right one was not let through.
    assert _refusal((await _login(url, password=OLD))[1])[0] == "rate_limited"


@pytest.mark.asyncio
async def test_guests_and_bots_have_no_password_to_change(url: str) -> None:
    guest = await Wire.guest(url)
    code, _, message = _refusal(await guest.call("change_password", old=OLD, new=NEW))
    assert code == "forbidden"
    assert "not a guest" in message


@pytest.mark.asyncio
async def test_a_session_opened_before_sessions_were_indexed_ends_with_the_password(
    url: str, redis: Redis, database: Database
) -> None:
    # As servers before the index kept a session: its key only.
    old_session = await identity.open_session(redis, database, "Ann")
    ann = await identity.find(redis, database, "Ann")
    assert ann is not None
    assert ann.id is not None
    await redis.delete(f"sessions:ann {ann.id}")
    assert (await _resume(url, old_session))["t"] == "welcome"
    here, _ = await _login(url)
    assert (await here.call("change_password", old=OLD, new=NEW))["t"] == "ok"
    assert _refusal(await _resume(url, old_session))[0] == "bad_credentials"


def _ids(reply: Frame) -> list[str]:
    assert reply["t"] == "session_list", reply
    return [session["session_id"] for session in reply["sessions"]]


@pytest.mark.asyncio
async def test_a_person_lists_their_sessions_and_ends_one(url: str) -> None:
    here, _ = await _login(url)
    elsewhere, _ = await _login(url)
    _, away = await _login(url)
    bea, _ = await _login(url, "Bea")

    listed = await here.call("list_sessions")
    assert len(_ids(listed)) == 3
    assert [s["current"] for s in listed["sessions"]] == [True, False, False]
    assert {s["address"] for s in listed["sessions"]} == {"127.0.0.1"}
    assert away["session"] not in str(listed)  # ids, never tokens
    assert len(_ids(await elsewhere.call("list_sessions"))) == 3
    assert len(_ids(await bea.call("list_sessions"))) == 1

    # Ending a session not connected: it is resumed no more.
    third = _ids(listed)[2]
    assert _ids(await here.call("end_session", session_id=third)) == _ids(listed)[:2]
    assert _refusal(await _resume(url, away["session"]))[0] == "bad_credentials"
    # Ending a connected one closes its connection; this one goes on.
    second = _ids(listed)[1]
    assert _ids(await here.call("end_session", session_id=second)) == _ids(listed)[:1]
    await elsewhere.wait_closed()
    assert "session ended" in (elsewhere.socket.close_reason or "")
    assert (await here.call("ping"))["t"] == "pong"


@pytest.mark.asyncio
async def test_ending_this_session_logs_out(url: str) -> None:
    here, welcome = await _login(url)
    mine = _ids(await here.call("list_sessions"))
    assert _ids(await here.call("end_session", session_id=mine[0])) == []
    await here.wait_closed()
    assert _refusal(await _resume(url, welcome["session"]))[0] == "bad_credentials"


@pytest.mark.asyncio
async def test_nobody_lists_ends_or_changes_anothers_sessions(url: str) -> None:
    ann, ann_welcome = await _login(url)
    bea, _ = await _login(url, "Bea")
    anns = _ids(await ann.call("list_sessions"))
    code, field, message = _refusal(await bea.call("end_session", session_id=anns[0]))
    assert (code, field) == ("not_found", "session_id")
    assert "no live session" in message
    assert _ids(await bea.call("list_sessions")) != anns
    # Ann's password is not Bea's to change, even knowing it.
    reply = await bea.call("change_password", old=OLD, new=NEW)
    assert (await _login(url, password=OLD))[1]["t"] == "welcome"
    assert (await _login(url, "Bea", NEW))[1]["t"] == "welcome"  # Bea changed her own
    assert reply["t"] == "ok"
    assert (await ann.call("ping"))["t"] == "pong"
    assert (await _resume(url, ann_welcome["session"]))["t"] == "welcome"
    guest = await Wire.guest(url)
    for request in ("list_sessions", "end_session"):
        fields = {"session_id": anns[0]} if request == "end_session" else {}
        assert _refusal(await guest.call(request, **fields))[0] == "forbidden"


@pytest.mark.asyncio
async def test_a_deleted_account_logs_in_no_more_and_its_games_stay(
    url: str, database: Database
) -> None:
    await identity.create_owned_bot(database, "Ann", "annbot")
    token, _ = await identity.create_owned_bot_token(database, "Ann", "annbot")
    bot = await Wire.connect(url)
    await bot.call("hello", version=1)
    assert (await bot.call("bot_login", token=token))["t"] == "welcome"
    assert _refusal(await bot.call("delete_account", password=OLD))[0] == "forbidden"
    here, _ = await _login(url)
    elsewhere, _ = await _login(url)
    _, away = await _login(url)
    bea, bea_welcome = await _login(url, "Bea")
    added = await here.call("seek", time=SIX, setup="6x6")
    started = await bea.call("accept_seek", seek_id=added["seek"]["seek_id"])
    game_id = started["game_id"]

    # While it plays, the account stays.
    code, _, message = _refusal(await here.call("delete_account", password=OLD))
    assert (code, message) == (
        "conflict",
        f"you are playing game {game_id}: finish or resign your games first",
    )
    assert (await here.call("resign", game_id=game_id))["t"] == "game_ended"

    assert (await here.call("delete_account", password=OLD))["t"] == "ok"

    for wire in (here, elsewhere):
        await wire.wait_closed()
        assert wire.socket.close_code == 1008
        assert "account deleted" in (wire.socket.close_reason or "")
    await bot.wait_closed()
    assert "bot token revoked" in (bot.socket.close_reason or "")
    assert _refusal(await _resume(url, away["session"]))[0] == "bad_credentials"
    assert _refusal((await _login(url, password=OLD))[1])[0] == "bad_credentials"
    again = await Wire.connect(url)
    await again.call("hello", version=1)
    assert _refusal(await again.call("bot_login", token=token))[0] == "bad_credentials"
    # Its finished games stay under its name, which nobody may take.
    page = await bea.call("player_games", name="ann")
    assert [game["game_id"] for game in page["games"]] == [game_id]
    code, field, _ = _refusal(await again.call("sign_up", user="ANN", password=NEW))
    assert (code, field) == ("conflict", "user")
    # Another account's sessions go on.
    assert (await bea.call("ping"))["t"] == "pong"
    assert (await _resume(url, bea_welcome["session"]))["t"] == "welcome"


@pytest.mark.asyncio
async def test_a_deleted_accounts_challenges_close_both_ways(url: str, database: Database) -> None:
    await create_account(database, "Cy", OLD)
    ann, _ = await _login(url)
    bea, _ = await _login(url, "Bea")
    cy, _ = await _login(url, "Cy")
    to_bea = await ann.call("challenge", opponent="Bea", time=SIX, setup="6x6")
    from_cy = await cy.call("challenge", opponent="Ann", time=SIX, setup="6x6")
    await bea.wait_for(lambda frame: frame["t"] == "challenge_added")

    assert (await ann.call("delete_account", password=OLD))["t"] == "ok"

    def removed(challenge: Frame) -> Callable[[Frame], bool]:
        wanted = challenge["challenge"]["challenge_id"]
        return lambda frame: frame["t"] == "challenge_removed" and (frame["challenge_id"] == wanted)

    cancelled = await bea.wait_for(removed(to_bea))
    declined = await cy.wait_for(removed(from_cy))
    assert (cancelled["outcome"], cancelled["reason"]) == ("cancelled", "Ann deleted their account")
    assert (declined["outcome"], declined["reason"]) == ("declined", "Ann deleted their account")
    refused = await bea.call("accept_challenge", challenge_id=to_bea["challenge"]["challenge_id"])
    assert _refusal(refused)[0] == "not_found"


@pytest.mark.asyncio
async def test_nobody_deletes_an_account_without_its_password(url: str) -> None:
    ann, ann_welcome = await _login(url)
    bea, _ = await _login(url, "Bea")
    # Bea's request is about Bea's own account: Ann's password is not hers.
    reply = await bea.call("delete_account", password="not-bea-s-password")
    assert _refusal(reply) == (
        "bad_credentials",
        None,
        "wrong password: your password is needed",
    )
    for _ in range(3):
        reply = await ann.call("delete_account", password="a-wrong-guess")
        assert _refusal(reply)[0] == "bad_credentials"
    # The guesses are counted as failed logins are.
    assert _refusal(await ann.call("delete_account", password=OLD))[0] == "rate_limited"
    assert (await ann.call("ping"))["t"] == "pong"
    assert (await _resume(url, ann_welcome["session"]))["t"] == "welcome"
    assert (await bea.call("ping"))["t"] == "pong"
    guest = await Wire.guest(url)
    code, _, message = _refusal(await guest.call("delete_account", password=OLD))
    assert code == "forbidden"
    assert "not a guest" in message
