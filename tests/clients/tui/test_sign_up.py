"""Making an account from `arena play`'s sign-in screen, driven with Textual's pilot against a
real server: Create account (Ctrl-N) with the name and password typed, each refusal in the
server's words, then the lobby as the new account; no such key or button where the server's
sign-ups are closed."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.widgets import Button, Input, Label

from clients.tui.lobby import LobbyScreen
from server.db import Database
from server.identity import create_account
from tests.clients.tui.test_app import keys, playing, until
from tests.server.endpoint import serving

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "tui"


@pytest.mark.asyncio
async def test_a_newcomer_makes_an_account_on_the_sign_in_screen(
    redis_url: str, redis: Redis, database: Database
) -> None:
    await create_account(database, "carol", "carols-own-password")
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        screen = app.screen
        await until(
            pilot, lambda: screen.query_one("#sign-up-button", Button).display, "the button"
        )
        assert "sign_up" in keys(screen)
        refusal = screen.query_one("#refusal", Label)
        await pilot.click("#name")
        await pilot.press(*"Carol", "tab", *"plum-kettle-harbour", "ctrl+n")
        await until(pilot, lambda: "taken" in str(refusal.render()), "the taken name")
        assert str(refusal.render()) == "user name 'Carol' is taken"
        assert screen.query_one("#password", Input).value == ""
        await pilot.click("#name")
        screen.query_one("#name", Input).value = ""
        await pilot.press(*"Zed", "tab", *"password1", "ctrl+n")
        await until(pilot, lambda: "common" in str(refusal.render()), "the weak password")
        assert str(refusal.render()) == (
            "the password is one of the 10,000 most common passwords; choose another"
        )
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(str(ARTIFACTS / "sign-up-refused.svg"))
        await pilot.click("#password")
        await pilot.press(*"plum-kettle-harbour")
        await pilot.click("#sign-up-button")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert app.user is not None
        assert (app.user.name, app.user.kind) == ("Zed", "human")


@pytest.mark.asyncio
async def test_no_create_account_where_sign_ups_are_closed(
    redis_url: str, redis: Redis, database: Database
) -> None:
    async with serving(redis_url, signups=False) as url, playing(url) as (app, pilot):
        await pilot.pause()
        assert not app.screen.query_one("#sign-up-button", Button).display
        assert "sign_up" not in keys(app.screen)
        assert "sign_in" in keys(app.screen)
