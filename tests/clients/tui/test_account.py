"""A person's account page in the terminal client (`u` in the lobby), driven by Textual's pilot
against a real server in an 80x24 terminal: its ratings, the password changed (a wrong current
one and a common new one refused in the server's words), the account's sessions with this one
marked and another ended, a bot made, a token made (shown once, and it logs in), listed and
revoked; a listing that fails after a change said in one line; the account deleted (Enter
twice) and the sign-in screen shown; a guest told in one line. The screens are saved as SVG to
`test-artifacts/tui/` to be looked at."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from clients.connection import ArenaClient, ArenaError
from clients.tui import ArenaApp
from clients.tui.account import AccountScreen
from clients.tui.help import HelpScreen
from clients.tui.lobby import LobbyScreen
from clients.tui.signin import SignInScreen
from server.clock import now_ms
from server.db import Database
from server.games import GameStore
from server.identity import create_account
from server.protocol import Event, Player, PlayerInfo, PlayerKind, Request, TimeControl
from server.protocol.bots import ListBots
from tests.clients.tui.test_app import as_guest, keys, told, until
from tests.server.endpoint import serving

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "tui"


@contextlib.asynccontextmanager
async def narrow(url: str) -> AsyncIterator[tuple[ArenaApp, Pilot[None]]]:
    """The app on `url` in an 80x24 terminal, on its sign-in screen."""
    app = ArenaApp(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.connection == "connected", "the connection")
        yield app, pilot
        await pilot.press("ctrl+q")


def _text(screen: AccountScreen, where: str) -> str:
    return str(screen.query_one(where, Static).content)


def _rows(screen: AccountScreen, table: str) -> list[list[str]]:
    found = screen.query_one(table, DataTable)
    return [[str(cell) for cell in found.get_row_at(i)] for i in range(found.row_count)]


async def _account(app: ArenaApp, pilot: Pilot[None], name: str, password: str) -> AccountScreen:
    await pilot.click("#name")
    await pilot.press(*name, "tab", *password, "enter")
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("u")
    # Pushed is not yet composed: under load a query could run before its widgets exist.
    await until(
        pilot,
        lambda: isinstance(app.screen, AccountScreen) and bool(app.screen.query("#account-delete")),
        "the account page",
    )
    assert isinstance(app.screen, AccountScreen)
    return app.screen


@contextlib.asynccontextmanager
async def _anns_account(
    redis_url: str, database: Database
) -> AsyncIterator[tuple[str, ArenaApp, Pilot[None], AccountScreen]]:
    """Ann's account page, on a server of her account: (its URL, the app, its pilot, the page)."""
    await create_account(database, "ann", "ann-first-password")
    async with serving(redis_url) as url, narrow(url) as (app, pilot):
        yield url, app, pilot, await _account(app, pilot, "ann", "ann-first-password")


@pytest.mark.asyncio
async def test_a_person_changes_the_password_and_ends_another_session(
    redis_url: str, redis: Redis, database: Database
) -> None:
    await create_account(database, "ann", "ann-first-password")
    await create_account(database, "bob", "bob-first-password")
    ann, bob = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    store = GameStore(redis, database=database)
    started = await store.create(
        ann, bob, time=TimeControl(300, 0), rated=True, now=now_ms(), setup="6x6"
    )
    await store.resign(started.game_id, "bob", now_ms())
    async with serving(redis_url) as url, narrow(url) as (app, pilot):
        elsewhere = await ArenaClient.connect(url)
        await elsewhere.login("ann", "ann-first-password")
        screen = await _account(app, pilot, "ann", "ann-first-password")
        await until(pilot, lambda: len(_rows(screen, "#account-sessions")) == 2, "two sessions")
        marks = [row[3] for row in _rows(screen, "#account-sessions")]
        assert _text(screen, "#account-ratings").startswith("amazons  ")
        assert _text(screen, "#account-ratings").endswith(", 1 rated game")
        assert sorted(marks) == ["", "this one"]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(str(ARTIFACTS / "account.svg"))

        # The other session ended from the page: its connection closes.
        table = screen.query_one("#account-sessions", DataTable)
        table.focus()
        await pilot.pause()
        assert "end_session" in keys(screen)
        table.move_cursor(row=marks.index(""))
        await pilot.press("e")
        await until(pilot, lambda: len(_rows(screen, "#account-sessions")) == 1, "one session")
        assert _rows(screen, "#account-sessions")[0][3] == "this one"
        await until(pilot, lambda: elsewhere.closed, "the other connection closed")
        # This one's own is not ended from here.
        await pilot.press("e")
        await until(pilot, lambda: _text(screen, "#account-sessions-said") != "", "a line")
        assert "this connection's session" in _text(screen, "#account-sessions-said")

        said = "#account-password-said"
        await pilot.click("#account-new")
        await pilot.press(*"plum-kettle-harbour", "enter")
        assert _text(screen, said) == "type your current password first"
        assert screen.focused is screen.query_one("#account-old", Input)
        screen.query_one("#account-new", Input).value = ""
        await pilot.click("#account-old")
        await pilot.press(*"not-the-password", "enter", *"plum-kettle-harbour", "enter")
        await until(pilot, lambda: "wrong" in _text(screen, said), "the wrong password refused")
        assert _text(screen, said) == "wrong password: the old one is needed"
        assert screen.query_one("#account-old", Input).password
        await pilot.click("#account-old")
        await pilot.press(*"ann-first-password", "enter", *"password1", "enter")
        await until(pilot, lambda: "common" in _text(screen, said), "the common password refused")
        assert _text(screen, said) == (
            "the password is one of the 10,000 most common passwords; choose another"
        )
        app.save_screenshot(str(ARTIFACTS / "account-refused.svg"))
        await pilot.click("#account-old")
        await pilot.press(*"ann-first-password", "enter", *"plum-kettle-harbour", "enter")
        await until(pilot, lambda: "changed" in _text(screen, said), "the password changed")
        again = await ArenaClient.connect(url)
        with pytest.raises(ArenaError):
            await again.login("ann", "ann-first-password")
        await again.login("ann", "plum-kettle-harbour")
        await again.close()

        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")


@pytest.mark.asyncio
async def test_a_person_makes_a_bot_and_its_token_and_revokes_it(
    redis_url: str, redis: Redis, database: Database
) -> None:
    async with _anns_account(redis_url, database) as (url, app, pilot, screen):
        said = "#account-bots-said"
        await pilot.click("#account-bot-name")
        await pilot.press(*"ann", "enter")
        await until(pilot, lambda: "taken" in _text(screen, said), "a taken name refused")
        assert _text(screen, said) == "user name 'ann' is taken"
        screen.query_one("#account-bot-name", Input).value = ""
        await pilot.click("#account-bot-name")
        await pilot.press(*"annbot", "enter")
        await until(pilot, lambda: len(_rows(screen, "#account-bots")) == 1, "the bot listed")
        assert _rows(screen, "#account-bots")[0][:2] == ["annbot", "0"]

        screen.query_one("#account-bots", DataTable).focus()
        await pilot.pause()
        await pilot.press("t")
        await until(pilot, lambda: _text(screen, "#account-token") != "", "the token shown")
        shown = _text(screen, "#account-token")
        assert "it will not be shown again" in shown
        token = shown.split(": ", 1)[1].split("\n", 1)[0]
        assert _rows(screen, "#account-bots")[0][:2] == ["annbot", "1"]
        (token_row,) = _rows(screen, "#account-tokens")
        assert f"(id {token_row[0]})" in shown
        app.save_screenshot(str(ARTIFACTS / "account-token.svg"))
        bot = await ArenaClient.connect(url)
        welcome = await bot.bot_login(token)
        assert welcome.user.name == "annbot"

        # Enter on a bot lists its tokens.
        await pilot.click("#account-bot-name")
        await pilot.press(*"annbot2", "enter")
        await until(pilot, lambda: len(_rows(screen, "#account-bots")) == 2, "two bots")
        bots = screen.query_one("#account-bots", DataTable)
        bots.focus()
        bots.move_cursor(row=[row[0] for row in _rows(screen, "#account-bots")].index("annbot2"))
        await pilot.press("enter")
        await until(pilot, lambda: _rows(screen, "#account-tokens") == [], "annbot2's tokens")
        assert _text(screen, said) == "0 live token(s) of annbot2"
        bots.move_cursor(row=[row[0] for row in _rows(screen, "#account-bots")].index("annbot"))
        await pilot.press("enter")
        await until(pilot, lambda: _rows(screen, "#account-tokens") == [token_row], "annbot's")

        screen.query_one("#account-tokens", DataTable).focus()
        await pilot.pause()
        assert "revoke_token" in keys(screen)
        await pilot.press("v")
        await until(pilot, lambda: _rows(screen, "#account-tokens") == [], "the token revoked")
        assert _text(screen, said) == "0 live token(s) of annbot"
        await until(pilot, lambda: bot.closed, "the bot's connection closed")
        refused = await ArenaClient.connect(url)
        with pytest.raises(ArenaError):
            await refused.bot_login(token)
        await refused.close()


@pytest.mark.asyncio
async def test_a_guest_is_told_there_is_no_account_page(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url, narrow(url) as (app, pilot):
        await as_guest(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert dict(app.screen.keys)["u"] == "your password, sessions and bots"
        await pilot.press("escape")
        await pilot.press("u")
        await until(pilot, lambda: told(app, "not a guest or a bot"), "the line")
        assert isinstance(app.screen, LobbyScreen)


@pytest.mark.asyncio
async def test_a_listing_that_fails_after_a_token_is_made_is_said(
    redis_url: str, redis: Redis, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _anns_account(redis_url, database) as (url, app, pilot, screen):
        await pilot.click("#account-bot-name")
        await pilot.press(*"annbot", "enter")
        await until(pilot, lambda: len(_rows(screen, "#account-bots")) == 1, "the bot listed")
        asked = app.request

        async def lost_after_the_token(request: Request, expect: type[Event]) -> Event:
            if isinstance(request, ListBots):
                raise ConnectionError(f"not connected to {url}")
            return await asked(request, expect)

        monkeypatch.setattr(app, "request", lost_after_the_token)
        screen.query_one("#account-bots", DataTable).focus()
        await pilot.pause()
        await pilot.press("t")
        await until(pilot, lambda: _text(screen, "#account-token") != "", "the token shown")
        # The token made is shown all the same; the listing's failure is one line.
        await until(pilot, lambda: "not connected" in _text(screen, "#account-bots-said"), "said")
        assert "it will not be shown again" in _text(screen, "#account-token")
        assert _text(screen, "#account-bots-said").startswith(f"not connected to {url}")


@pytest.mark.asyncio
async def test_a_person_deletes_the_account(
    redis_url: str, redis: Redis, database: Database
) -> None:
    async with _anns_account(redis_url, database) as (url, app, pilot, screen):
        said = "#account-delete-said"
        await pilot.click("#account-delete")
        await pilot.press("enter")
        assert _text(screen, said) == "your password is needed to delete the account"
        await pilot.press(*"not-the-password", "enter")
        assert _text(screen, said) == (
            "Enter again deletes the account ann for good; Escape keeps it"
        )
        await pilot.press("enter")
        await until(pilot, lambda: "wrong" in _text(screen, said), "the wrong password refused")
        assert _text(screen, said) == "wrong password: your password is needed"
        assert screen.query_one("#account-delete", Input).value == ""
        # A change to the password after the first Enter asks for the confirmation again.
        await pilot.press(*"ann-first-password", "enter", "backspace", "d")
        assert _text(screen, said) == ""
        await pilot.press("enter")
        assert "Enter again deletes" in _text(screen, said)
        app.save_screenshot(str(ARTIFACTS / "account-delete.svg"))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in screen")
        await until(pilot, lambda: told(app, "the account ann is deleted"), "the notice")
        assert not told(app, "no longer knows this session")
        # On its new connection the screen offers to make an account again.
        await until(pilot, lambda: app.screen.query_one("#sign-up-button").display, "sign-up")
        again = await ArenaClient.connect(url)
        with pytest.raises(ArenaError, match="wrong"):
            await again.login("ann", "ann-first-password")
        await again.close()


@pytest.mark.asyncio
async def test_a_bot_made_while_the_page_still_loads_stays_listed(
    redis_url: str, redis: Redis, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_account(database, "ann", "ann-first-password")
    asked, profile_asked, answer = None, asyncio.Event(), asyncio.Event()

    async def profile_held(request: Request, expect: type[Event]) -> Event:
        if isinstance(request, PlayerInfo):
            profile_asked.set()
            await answer.wait()
        assert asked is not None
        return await asked(request, expect)

    async with serving(redis_url) as url, narrow(url) as (app, pilot):
        asked = app.request
        monkeypatch.setattr(app, "request", profile_held)
        screen = await _account(app, pilot, "ann", "ann-first-password")
        await until(pilot, profile_asked.is_set, "the page's last listing asked for")
        await pilot.click("#account-bot-name")
        await pilot.press(*"annbot", "enter")
        await until(pilot, lambda: len(_rows(screen, "#account-bots")) == 1, "the bot listed")
        answer.set()
        await until(pilot, lambda: _text(screen, "#account-ratings") != "", "the ratings")
        # The page's own listing, asked for before the bot was made, does not hide it.
        assert [row[0] for row in _rows(screen, "#account-bots")] == ["annbot"]
