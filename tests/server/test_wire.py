"""What an outside client written from docs/protocol.md relies on, checked frame by frame over
real websockets and a real Redis: each version of a game reaches a connection once, a resync
past the game's end is answered with the game's real state, and the lobby's answers are the
documented ones."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from engine.amazons import Position
from server.analysis_queue import ANALYSTS
from server.clock import now_ms
from server.db import Database
from server.identity import create_account, find
from server.offers import TimeControls
from tests.server.endpoint import analysis_worker, serving
from tests.server.test_offers import AMAZONS_HOUSE_BOTS
from tests.server.wire import REPLY_SECONDS, Frame, Wire

SIX = {"base": 300, "increment": 0}


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    async with serving(redis_url) as found:
        yield found


async def _game(url: str) -> tuple[Wire, Wire, Frame]:
    """Two guests, one seeking and one accepting a 6x6 game: (white, black, game_started)."""
    a, b = await Wire.guest(url), await Wire.guest(url)
    added = await a.call("seek", time=SIX, setup="6x6")
    started = await b.call("accept_seek", seek_id=added["seek"]["seek_id"])
    assert started["t"] == "game_started", started
    assert started["to_move"] == "white"
    white = a if started["white"]["name"] == a.user else b
    return white, (b if white is a else a), started


def _moves(setup: str, count: int) -> list[str]:
    position = Position.setup(setup)
    moves = []
    for ply in range(count):
        move = position.random_move(ply)
        assert move is not None
        moves.append(str(move))
        position.apply(move)
    return moves


def _event_versions(wire: Wire, game_id: str) -> list[int]:
    return [f["version"] for f in wire.game_frames(game_id) if f["t"] != "game_state"]


@pytest.mark.asyncio
async def test_each_version_of_a_game_reaches_each_connection_once(url: str) -> None:
    white, black, started = await _game(url)
    game_id = started["game_id"]
    spectator = await Wire.guest(url)
    await spectator.call("watch", game_id=game_id)
    moves = _moves("6x6", 12)
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        reply = await mover.call("move", game_id=game_id, ply=ply, move=move)
        assert reply["t"] == "move_played", reply
    last = 1 + len(moves)
    for wire in (white, black, spectator):
        await wire.wait_for(lambda f: f.get("version") == last and f["t"] == "move_played")
    await asyncio.sleep(0.2)  # time for a late duplicate to arrive
    for wire in (white, black):
        versions = _event_versions(wire, game_id)
        assert [v for v, n in Counter(versions).items() if n > 1] == []
        assert versions == list(range(1, last + 1))
    assert _event_versions(spectator, game_id) == list(range(2, last + 1))
    for wire in (white, black, spectator):
        await wire.close()


@pytest.mark.asyncio
async def test_a_resync_past_the_games_version_gets_the_real_state_and_later_events(
    url: str,
) -> None:
    white, black, started = await _game(url)
    game_id = started["game_id"]
    moves = _moves("6x6", 4)
    for ply, move in enumerate(moves[:3]):
        await (white if ply % 2 == 0 else black).call("move", game_id=game_id, ply=ply, move=move)
    spectator = await Wire.guest(url)
    state = await spectator.call("watch", game_id=game_id)
    assert state["version"] == 4

    # Only a client the store lost events of can have a version past the game's: the state
    # is logged again under a new epoch, which every follower takes over its own.
    request_id = spectator.send("resync", game_id=game_id, version=54)
    synced = await spectator.wait_for(lambda f: f.get("id") == request_id)
    assert synced == {"t": "synced", "id": request_id, "game_id": game_id, "version": 5}
    for wire in (spectator, white, black):
        replayed = await wire.wait_for(lambda f: f["t"] == "game_state" and f["version"] == 5)
        assert (replayed["epoch"], replayed["moves"]) == (1, moves[:3])

    await black.call("move", game_id=game_id, ply=3, move=moves[3])
    news = await spectator.wait_for(lambda f: f["t"] == "move_played" and f["version"] == 6)
    assert news["move"] == moves[3]
    for wire in (white, black, spectator):
        await wire.close()


@pytest.mark.asyncio
async def test_watching_again_after_a_bad_resync_brings_the_events_back(url: str) -> None:
    white, black, started = await _game(url)
    game_id = started["game_id"]
    moves = _moves("6x6", 2)
    spectator = await Wire.guest(url)
    await spectator.call("watch", game_id=game_id)
    await spectator.call("resync", game_id=game_id, version=999)
    assert (await spectator.call("unwatch", game_id=game_id))["t"] == "ok"
    assert (await spectator.call("watch", game_id=game_id))["version"] == 2  # a new epoch
    await white.call("move", game_id=game_id, ply=0, move=moves[0])
    news = await spectator.wait_for(lambda f: f["t"] == "move_played")
    assert (news["version"], news["move"]) == (3, moves[0])
    for wire in (white, black, spectator):
        await wire.close()


@pytest.mark.asyncio
async def test_a_seek_already_taken_is_a_conflict_and_an_unknown_one_not_found(url: str) -> None:
    owner, first, second = [await Wire.guest(url) for _ in range(3)]
    added = await owner.call("seek", time=SIX, setup="6x6")
    seek_id = added["seek"]["seek_id"]
    assert (await first.call("accept_seek", seek_id=seek_id))["t"] == "game_started"
    late = await second.call("accept_seek", seek_id=seek_id)
    assert (late["t"], late["code"]) == ("error", "conflict")
    assert late["message"] == f"seek {seek_id} was already taken"
    unknown = await second.call("accept_seek", seek_id="nosuchseek")
    assert (unknown["code"], unknown["message"]) == ("not_found", "no open seek nosuchseek")
    cancelled = (await owner.call("seek", time=SIX, setup="6x6"))["seek"]["seek_id"]
    await owner.call("cancel_seek", seek_id=cancelled)
    assert (await second.call("accept_seek", seek_id=cancelled))["code"] == "not_found"
    for wire in (owner, first, second):
        await wire.close()


@pytest.mark.asyncio
async def test_a_connection_that_does_not_log_in_in_time_is_closed(
    redis: Redis, redis_url: str
) -> None:
    # The deadline is well above the few milliseconds a guest's login takes, so only the
    # connections that never log in reach it, however loaded the machine.
    async with serving(redis_url, login_seconds=1.5) as url:
        silent = await Wire.connect(url)
        greeted = await Wire.connect(url)
        greeted.send("hello", version=1)
        refused = await Wire.connect(url)
        refused.send("hello", version=1)
        refused.send("login", user="nobody", password="wrong")
        guest = await Wire.guest(url)
        for wire in (silent, greeted, refused):
            await wire.wait_closed()
            assert wire.socket.close_code == 1008
            assert wire.socket.close_reason == "no login within 1.5 s of connecting"
        await asyncio.sleep(1.6)  # past the guest's own deadline too
        assert (await guest.call("ping"))["t"] == "pong"
        for wire in (silent, greeted, refused, guest):
            await wire.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("tag", "fields"),
    [
        ("seek", {"setup": "6x6"}),
        ("quick_pair", {"setup": "6x6"}),
        ("challenge", {"opponent": "greedy", "setup": "6x6"}),
        ("challenge", {"opponent": "someone", "setup": "6x6"}),
    ],
)
@pytest.mark.parametrize(
    ("time", "message"),
    [
        ({"base": 0, "increment": 0}, "time control 0+0 is not offered: the base must be 10 to"),
        ({"base": 0, "increment": 5}, "time control 0+5 is not offered: the base must be 10 to"),
        ({"base": 60, "increment": 181}, "field 'time.increment' must be an int from 0 to 180"),
    ],
)
async def test_a_time_control_the_server_does_not_offer_is_a_bad_field(
    url: str, tag: str, fields: dict[str, str], time: dict[str, int], message: str
) -> None:
    wire = await Wire.guest(url)
    reply = await wire.call(tag, time=time, **fields)
    assert (reply["t"], reply["code"]) == ("error", "bad_field")
    assert reply["message"].startswith(message)
    assert reply["field"].startswith("time")
    await wire.close()


@pytest.mark.asyncio
async def test_welcome_tells_what_the_server_offers_and_a_list_is_kept_to(
    redis: Redis, redis_url: str
) -> None:
    async with serving(redis_url, time_controls=TimeControls.parse("60+0, 180+2")) as url:
        wire = await Wire.connect(url)
        await wire.call("hello", version=1)
        welcome = await wire.call("guest")
        assert welcome["offers"] == {
            "setups": ["10x10", "8x8", "6x6"],
            "min_base": 60,
            "max_base": 180,
            "max_increment": 2,
            "time_controls": [{"base": 60, "increment": 0}, {"base": 180, "increment": 2}],
            "house_bots": list(AMAZONS_HOUSE_BOTS),  # welcome shows the default game's
            "bot_allowance_ms": 200,
            "first_move_ms": 30_000,
            "free_plies": 2,
        }
        refused = await wire.call("seek", time={"base": 60, "increment": 2}, setup="6x6")
        assert refused["message"] == "time control 60+2 is not offered; offered: 60+0, 180+2"
        added = await wire.call("seek", time={"base": 180, "increment": 2}, setup="6x6")
        assert added["t"] == "seek_added"
        await wire.close()


async def _login_from(url: str, address: str, user: str, password: str) -> Frame:
    """One login on a fresh connection from a loopback address of its own."""
    wire = await Wire.connect(url, local_addr=(address, 0))
    await wire.call("hello", version=1)
    reply = await wire.call("login", user=user, password=password)
    await wire.close()
    return reply


@pytest.mark.asyncio
async def test_password_guessing_is_throttled_per_account_and_address(
    url: str, redis: Redis, database: Database
) -> None:
    await create_account(database, "ann", "right-password")
    here = "127.0.0.2"
    for _ in range(5):
        assert (await _login_from(url, here, "ann", "guess"))["code"] == "bad_credentials"
    # The right password from the guessing address waits: the limit is per account and address.
    held = await _login_from(url, here, "ann", "right-password")
    assert (held["code"], held["message"]) == (
        "rate_limited",
        f"too many failed logins for ann: try again in {held['retry_after']} s",
    )
    assert 0 < held["retry_after"] <= 300
    # From elsewhere the owner logs in, and that address is now known for the account.
    assert (await _login_from(url, "127.0.0.3", "ann", "right-password"))["t"] == "welcome"

    # Guesses from many addresses hold the account back for addresses it never logged in from...
    for host in range(10, 25):
        assert (await _login_from(url, f"127.0.1.{host}", "ann", "x"))["code"] == (
            "bad_credentials"
        )
    stranger = await _login_from(url, "127.0.2.1", "ann", "right-password")
    assert stranger["code"] == "rate_limited"
    # ...but not for the owner at a known address.
    assert (await _login_from(url, "127.0.0.3", "ann", "right-password"))["t"] == "welcome"


@pytest.mark.asyncio
async def test_one_address_guessing_at_many_accounts_is_throttled(url: str) -> None:
    for index in range(30):
        reply = await _login_from(url, "127.0.0.9", f"user{index}", "guess")
        assert reply["code"] == "bad_credentials"
    held = await _login_from(url, "127.0.0.9", "someone-else", "guess")
    assert held["code"] == "rate_limited"
    assert 0 < held["retry_after"] <= 900
    assert (await _login_from(url, "127.0.0.10", "someone-else", "guess"))["code"] == (
        "bad_credentials"
    )


async def _rated(redis: Redis, database: Database, *names: str) -> tuple[int, ...]:
    """The players' ratings, once each has one."""
    async with asyncio.timeout(REPLY_SECONDS):
        while True:
            accounts = [await find(redis, database, name) for name in names]
            ratings = tuple(a.rating for a in accounts if a is not None and a.rating is not None)
            if len(ratings) == len(names):
                return ratings
            await asyncio.sleep(0.02)


async def _account(url: str, database: Database, name: str) -> Wire:
    await create_account(database, name, f"{name}-password")
    wire = await Wire.connect(url)
    await wire.call("hello", version=1)
    assert (await wire.call("login", user=name, password=f"{name}-password"))["t"] == "welcome"
    return wire


@pytest.mark.asyncio
async def test_a_second_rated_game_on_one_connection_starts_with_the_new_ratings(
    url: str, redis: Redis, database: Database
) -> None:
    ann, bob = await _account(url, database, "ann"), await _account(url, database, "bob")
    ratings, settled = [], []
    for _ in range(2):
        added = await ann.call("seek", time=SIX, setup="6x6", rated=True, colour="white")
        started = await bob.call("accept_seek", seek_id=added["seek"]["seek_id"])
        ratings.append((started["white"].get("rating"), started["black"].get("rating")))
        game_id = started["game_id"]
        await ann.call("move", game_id=game_id, ply=0, move=_moves("6x6", 1)[0])
        ended = await bob.call("resign", game_id=game_id)
        assert ended["t"] == "game_ended"
        settled.append(await _rated(redis, database, "ann", "bob"))  # settled after the game ends
    assert ratings[0] == (None, None)  # neither had a rated game yet
    white, black = ratings[1]
    assert (white, black) == settled[0]
    assert white > 1500 > black
    for wire in (ann, bob):
        await wire.close()


@pytest.mark.asyncio
async def test_an_analysis_under_way_holds_up_no_other_frame_of_its_connection(
    url: str, redis: Redis
) -> None:
    """A position is judged by a worker, which takes a while: a `ping` sent after the
    `analyze` is answered first, and the analysis still comes."""
    # A worker counts as judging, but judges only once the ping is answered.
    await redis.zadd(ANALYSTS, {"w1": now_ms() + 10_000})
    wire = await Wire.guest(url)
    asked = wire.send("analyze", position="1B2B1/B4B/6/6/W4W/1W2W1 w")
    pinged = wire.send("ping")
    pong = await wire.wait_for(lambda f: f.get("id") == pinged)
    assert pong["t"] == "pong"
    assert not [f for f in wire.frames if f.get("id") == asked], "the analysis came first"
    async with analysis_worker(redis):
        analysis = await wire.wait_for(lambda f: f.get("id") == asked, timeout=120)
    assert analysis["t"] == "analysis", analysis
    await wire.close()
