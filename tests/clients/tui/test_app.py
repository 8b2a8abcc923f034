"""The terminal client driven as a person would, with Textual's pilot, against a real server in
the test process (real websockets, real Redis): signing in, the lobby as others change it,
games started from it, help, and a dropped connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import pytest
import websockets.asyncio.server
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Select, Static
from websockets.asyncio.server import ServerConnection

from clients.tui import ArenaApp
from clients.tui.app import UnreachableError, open_connection
from clients.tui.game import GameScreen
from clients.tui.help import HelpScreen
from clients.tui.lobby import LobbyScreen, LobbyTable
from clients.tui.signin import SignInScreen
from server import identity
from server.db import Database
from server.protocol import (
    CancelSeek,
    Challenge,
    ChallengeAdded,
    Colour,
    DeclineChallenge,
    ErrorCode,
    ErrorReply,
    Event,
    ListGames,
    ListSeeks,
    Request,
    Seek,
    SeekAdded,
    TimeControl,
    decode_request,
)
from tests.server.endpoint import guest, house_worker, serving

SIZE = (100, 32)
WAIT_SECONDS = 20.0  # for anything to show: generous, as a loaded machine may be slow
# For the server's first analysis: its analyst is a child process spawned on the first request,
# which imports the engine and loads its compiled kernels before its 3 s of analysis; on a
# loaded two-core machine that alone has taken over 20 s.
ANALYSIS_WAIT_SECONDS = 90.0


async def until(
    pilot: Pilot[None], check: Callable[[], bool], what: str, seconds: float = WAIT_SECONDS
) -> None:
    """Let the app run until `check()` holds; fail naming `what` after `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not check():
        if loop.time() > deadline:
            pytest.fail(f"waited {seconds:g} s for {what}")
        await pilot.pause(0.05)


@contextlib.asynccontextmanager
async def playing(url: str) -> AsyncIterator[tuple[ArenaApp, Pilot[None]]]:
    """The app on `url`, connected, on its sign-in screen."""
    app = ArenaApp(url)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.connection == "connected", "the connection")
        yield app, pilot
        await pilot.press("ctrl+q")


async def as_guest(app: ArenaApp, pilot: Pilot[None]) -> LobbyScreen:
    await pilot.press("ctrl+g")
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    assert isinstance(app.screen, LobbyScreen)
    return app.screen


def rows(lobby: LobbyScreen, table: str) -> list[list[str]]:
    found = lobby.query_one(f"#{table}", LobbyTable)
    return [[str(cell) for cell in found.get_row_at(i)] for i in range(found.row_count)]


def keys(screen: Screen[object]) -> set[str]:
    """The actions whose keys work on `screen` now, as its footer shows them."""
    return {active.binding.action for active in screen.active_bindings.values()}


def told(app: ArenaApp, words: str) -> bool:
    return any(words in notice for notice in app.notices)


def announced(app: ArenaApp, words: str) -> bool:
    """Whether a game screen is open saying, on its notice line, that its game started with
    `words`."""
    screen = app.screen
    if not isinstance(screen, GameScreen):
        return False
    notice = str(screen.query_one("#game-notice", Static).content)
    return notice.startswith("Game started: ") and words in notice


@pytest.mark.asyncio
async def test_a_guest_signs_in_to_the_lobby(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        assert app.user is not None
        assert app.user.name.startswith("guest")
        assert f"Signed in as {app.user.name}" in str(lobby.query_one("#me").render())
        assert "connected" in str(lobby.query_one("#connection").render())


@pytest.mark.asyncio
async def test_a_wrong_password_shows_the_servers_words(
    redis_url: str, redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "ann", "right horse")
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        await pilot.click("#name")
        await pilot.press(*"ann")
        await pilot.press("tab", *"wrong", "enter")
        refusal = app.screen.query_one("#refusal", Label)
        await until(pilot, lambda: str(refusal.render()) != "", "the refusal")
        assert "wrong user name or password" in str(refusal.render()).lower()
        assert app.screen.query_one("#password", Input).value == ""
        # The right one opens the lobby.
        await pilot.click("#password")
        await pilot.press(*"right horse", "enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert app.user is not None
        assert app.user.name == "ann"


@pytest.mark.asyncio
async def test_a_reply_that_comes_as_the_lobby_closes_is_dropped(
    redis_url: str, redis: Redis
) -> None:
    """The live games come back while the lobby is being taken down (as when the server has
    forgotten the session and the sign-in comes back): its tables are gone by then, and the
    reply changes nothing (it used to fail the app)."""
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        answered = asyncio.Event()
        ask = app.request

        async def late(request: Request, expect: type[Event]) -> Event:
            reply = await ask(request, expect)
            if isinstance(request, ListGames):
                answered.set()
                while lobby.query("#games"):  # until the lobby's removal takes its tables
                    await asyncio.sleep(0)
            return reply

        app.request = late  # type: ignore[method-assign]
        lobby._refresh_games()
        await until(pilot, answered.is_set, "the live games")
        app.switch_screen(SignInScreen())
        await until(pilot, lambda: not lobby.is_attached, "the lobby taken down")
        await pilot.pause(0.1)


@pytest.mark.asyncio
async def test_the_lobby_shows_anothers_seek_as_it_comes_and_goes(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        other = await guest(url)
        added = await other.request(Seek(TimeControl(300, 3), setup="8x8"), SeekAdded)
        name = added.seek.player.name
        await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek to show")
        assert rows(lobby, "seeks")[0][:4] == [name, "amazons", "8x8", "5+3"]
        # Another's seek may be accepted, not cancelled; with none, neither key is shown.
        assert "accept_seek" in keys(lobby)
        assert "cancel_seek" not in keys(lobby)
        await other.request(CancelSeek(added.seek.seek_id))
        await until(pilot, lambda: rows(lobby, "seeks") == [], "the seek to go")
        assert keys(lobby) & {"accept_seek", "cancel_seek", "watch_game", "open_game"} == set()
        await other.close()


@pytest.mark.asyncio
async def test_accepting_a_seek_announces_the_game(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        other = await guest(url)
        added = await other.request(
            Seek(TimeControl(60, 0), setup="6x6", colour="black"), SeekAdded
        )
        await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek to show")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game to open")
        (game_id,) = [g for g in app.client.games] if app.client else []
        notice = str(app.screen.query_one("#game-notice", Static).content)
        assert notice == f"Game started: you play white against {other.user.name}"
        assert str(app.screen.query_one("#game-title", Static).content).startswith(
            f"Game {game_id}: amazons 6x6 1+0"
        )
        await pilot.press("ctrl+l")
        assert rows(lobby, "mine")[0][:2] == [other.user.name, "white"]
        await until(pilot, lambda: rows(lobby, "seeks") == [], "the taken seek to go")
        assert added.seek.seek_id not in (app.client.core.seeks if app.client else {})
        await other.close()


@pytest.mark.asyncio
async def test_a_house_bot_is_challenged_with_the_colour_chosen(
    redis_url: str, redis: Redis
) -> None:
    async with (
        house_worker(redis, "tui-worker"),
        serving(redis_url) as url,
        playing(url) as (app, pilot),
    ):
        lobby = await as_guest(app, pilot)
        await pilot.press("b")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        form = app.screen
        form.query_one("#bot", Select).value = "greedy"
        form.query_one("#setup", Select).value = "6x6"
        form.query_one("#colour", Select).value = "black"
        time = form.query_one("#time", Input)
        time.value = ""
        await pilot.click("#time")
        await pilot.press(*"2+1", "enter")
        await until(pilot, lambda: announced(app, "you play black against greedy"), "the game")
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        await pilot.press("o")  # "Your games" opens it again
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game reopened")
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        (view,) = app.client.games.values() if app.client else []
        assert app.user is not None
        assert view.black.name == app.user.name
        assert view.colour_of("greedy") is Colour.WHITE
        assert view.time == TimeControl(120, 1)
        assert rows(lobby, "mine")[0][:2] == ["greedy", "black"]
        assert rows(lobby, "mine")[0][2] in {"your move", "their move"}


@pytest.mark.asyncio
async def test_a_house_bot_challenge_waits_for_a_worker_to_be_ready(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        await pilot.press("b")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        app.screen.query_one("#setup", Select).value = "6x6"
        await pilot.press("ctrl+s")
        waiting = lobby.query_one("#waiting", Static)
        await until(pilot, lambda: "Waiting for the house bots" in str(waiting.content), "wait")
        assert not told(app, "Refused")
        async with house_worker(redis, "late-worker"):
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        # The wait is over: its line is gone from the lobby.
        assert str(waiting.content) == ""


@pytest.mark.asyncio
async def test_a_time_control_not_offered_is_refused_in_the_form(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        await as_guest(app, pilot)
        await pilot.press("s")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        time = app.screen.query_one("#time", Input)
        time.value = ""
        await pilot.click("#time")
        await pilot.press(*"0:05+0", "enter")
        error = app.screen.query_one("#form-error", Label)
        assert "0:05+0 is not offered" in str(error.render())
        await pilot.press("escape")
        assert isinstance(app.screen, LobbyScreen)


@pytest.mark.asyncio
async def test_a_seek_made_in_the_form_is_open_for_others(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        other = await guest(url)
        await other.request(ListSeeks())
        await as_guest(app, pilot)
        await pilot.press("s")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        await pilot.press("ctrl+s")  # the time suggested: 5+3, the default setup
        await until(pilot, lambda: bool(other.core.seeks), "the seek to reach the other")
        (seek,) = other.core.seeks.values()
        assert (seek.setup, seek.time) == ("10x10", TimeControl(300, 3))
        assert told(app, "is open")
        await other.close()


@pytest.mark.asyncio
async def test_question_mark_lists_every_key_of_the_lobby(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        await as_guest(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = dict(app.screen.keys)
        # The lobby's own keys come first, before the table's cursor keys.
        assert app.screen.keys[0] == ("s", "make a seek")
        for key, words in [("s", "make a seek"), ("b", "play a house bot"), ("?", "show every")]:
            assert words in listed[key]
        # Every key of the lobby, those that do not apply with no challenge so marked.
        assert listed["n"] == "decline the challenge under the cursor, or cancel yours (not now)"
        assert not listed["s"].endswith("(not now)")
        await pilot.press("escape")
        assert isinstance(app.screen, LobbyScreen)


@pytest.mark.asyncio
async def test_a_dropped_connection_resumes_and_the_lobby_follows_again(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        first = app.client
        assert first is not None
        name = app.user.name if app.user else ""
        await first.socket.close()
        await until(pilot, lambda: app.connection == "resynced", "the connection to resume")
        assert app.client is not first
        assert app.client is not None
        assert app.client.user is not None
        assert app.client.user.name == name
        other = await guest(url)
        await other.request(Seek(TimeControl(300, 0), setup="8x8"), SeekAdded)
        await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek after the drop")
        await other.close()


@pytest.mark.asyncio
async def test_a_session_the_server_has_forgotten_brings_back_the_sign_in_and_says_why(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        await as_guest(app, pilot)
        await pilot.press("p")  # a form over the lobby: every screen above the sign-in goes
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        client = app.client
        assert client is not None
        for key in await redis.keys(identity.SESSION_KEY.format("*")):
            await redis.delete(key)
        await client.socket.close()
        await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in")
        assert len(app.screen_stack) == 2
        # The notice comes once the sign-in screen has mounted, a moment after it is on top.
        words = "Signed out: the server no longer knows this session: sign in again"
        await until(pilot, lambda: told(app, words), "the notice")
        await until(pilot, lambda: app.connection == "connected", "a new connection")
        await as_guest(app, pilot)


def test_an_unreachable_server_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from server.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["play", "ws://127.0.0.1:1"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert (
        err == "arena play: error: cannot reach a server at ws://127.0.0.1:1: Connection refused\n"
    )


@pytest.mark.asyncio
async def test_a_server_of_another_protocol_version_is_named_in_one_line() -> None:
    async def newer_server(socket: ServerConnection) -> None:
        hello = decode_request(await socket.recv())
        words = "protocol version 1 is not supported; this server speaks version 2"
        reply = ErrorReply(ErrorCode.UNSUPPORTED_VERSION, words, id=hello.id)
        await socket.send(reply.to_wire())
        await socket.close()

    async with websockets.asyncio.server.serve(newer_server, "127.0.0.1", 0) as server:
        url = f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}"
        with pytest.raises(UnreachableError) as refused:
            await open_connection(url)
    assert str(refused.value) == (
        f"the server at {url} refused: protocol version 1 is not supported; this server "
        "speaks version 2"
    )


@pytest.mark.asyncio
async def test_a_challenge_from_another_is_shown_and_accepted(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        assert app.user is not None
        other = await guest(url)
        assert other.user is not None
        await other.request(
            Challenge(app.user.name, TimeControl(180, 2), setup="8x8", colour="white"),
            ChallengeAdded,
        )
        await until(pilot, lambda: len(rows(lobby, "challenges")) == 1, "the challenge")
        assert rows(lobby, "challenges")[0][:2] == [f"from {other.user.name}", "8x8"]
        assert told(app, f"{other.user.name} challenges you: amazons 8x8 3+2, casual")
        await pilot.press("tab", "tab")  # from the seeks, past the live games, to the challenges
        await pilot.press("y")
        words = f"you play black against {other.user.name}"
        await until(pilot, lambda: announced(app, words), "the game to be announced")
        await until(pilot, lambda: rows(lobby, "challenges") == [], "the challenge to go")
        await other.close()


@pytest.mark.asyncio
async def test_a_challenge_declined_tells_the_challenger_why(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        other = await guest(url)
        assert other.user is not None
        await pilot.press("c")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        app.screen.query_one("#opponent", Input).value = other.user.name
        await pilot.press("ctrl+s")
        await until(pilot, lambda: bool(other.core.challenges), "the challenge to reach them")
        await until(pilot, lambda: len(rows(lobby, "challenges")) == 1, "the challenge listed")
        (challenge,) = other.core.challenges.values()
        await other.request(DeclineChallenge(challenge.challenge_id, "not today"))
        await until(pilot, lambda: rows(lobby, "challenges") == [], "the challenge to go")
        await until(pilot, lambda: told(app, "declined your challenge: not today"), "the reason")
        assert told(app, f"{other.user.name} declined your challenge: not today")
        await other.close()


@pytest.mark.asyncio
async def test_quick_pairing_waits_and_is_cancelled(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        await pilot.press("p")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: lobby.pairing, "the pairing to start")
        assert "Looking for an opponent" in str(lobby.query_one("#pairing").render())
        await pilot.press("x")
        await until(pilot, lambda: not lobby.pairing, "the pairing to stop")
        assert str(lobby.query_one("#pairing").render()) == ""
        # The pool is empty again: pairing anew is welcome.
        await pilot.press("p")
        await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: lobby.pairing, "the pairing to start again")


@pytest.mark.asyncio
async def test_the_sign_in_fits_80x24_whole() -> None:
    app = ArenaApp("ws://127.0.0.1:9")  # nothing listens: the sign-in shows all the same
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in")
        await pilot.pause()
        box = app.screen.query_one("#sign-in")
        footer = app.screen.query_one(Footer)
        assert box.region.bottom <= footer.region.y  # its frame whole, above the footer
        assert app.screen.max_scroll_y == 0  # nothing below it to scroll to
