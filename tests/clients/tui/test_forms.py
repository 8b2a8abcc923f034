"""The lobby's forms as a person fills them: the focus starts on what is changed first, and a
form opens again with the choices it sent last."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select

from clients.tui import ArenaApp
from clients.tui.forms import OfferForm
from clients.tui.game import GameScreen
from tests.clients.tui.test_app import as_guest, playing, until
from tests.server.endpoint import house_worker, serving


async def open_form(app: ArenaApp, pilot: Pilot[None], key: str) -> OfferForm:
    await pilot.press(key)
    await until(pilot, lambda: bool(app.screen.query("#colour")), "the form")
    assert isinstance(app.screen, OfferForm)
    return app.screen


def choices(form: OfferForm) -> dict[str, object]:
    return {
        "bot": form.query_one("#bot", Select).value,
        "strength": form.query_one("#strength", Select).value,
        "setup": form.query_one("#setup", Select).value,
        "time": form.query_one("#time", Input).value,
        "colour": str(form.query_one("#colour", Select).value),
        "rated": form.query_one("#rated", Checkbox).value,
    }


@pytest.mark.asyncio
async def test_the_house_bot_form_starts_on_the_bot_and_keeps_the_last_choices(
    redis_url: str, redis: Redis
) -> None:
    async with (
        house_worker(redis, "tui-worker"),
        serving(redis_url) as url,
        playing(url) as (app, pilot),
    ):
        await as_guest(app, pilot)
        form = await open_form(app, pilot, "b")
        assert form.query_one("#bot", Select).has_focus
        # Choose by keys: the bot, then Tab to the setup, past the strength.
        first_bot = form.query_one("#bot", Select).value
        await pilot.press("enter", "down", "enter")
        chosen_bot = form.query_one("#bot", Select).value
        assert chosen_bot != first_bot
        await pilot.press("tab", "tab", "enter", "end", "enter")  # the last setup: 6x6
        assert form.query_one("#setup", Select).value == "6x6"
        await pilot.press("tab", "end", *["backspace"] * 5, *"2+1")
        form.query_one("#colour", Select).value = "white"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        await pilot.press("ctrl+l")
        await until(pilot, lambda: app.screen is app.lobby, "the lobby")

        form = await open_form(app, pilot, "b")
        assert choices(form) == {
            "bot": chosen_bot,
            "strength": 5,
            "setup": "6x6",
            "time": "2+1",
            "colour": "white",
            "rated": False,
        }
        assert form.query_one("#bot", Select).has_focus
        await pilot.press("escape")
        # The seek form starts on the setup, with its own defaults.
        form = await open_form(app, pilot, "s")
        assert form.query_one("#setup", Select).has_focus
        assert form.query_one("#setup", Select).value == "10x10"
        await pilot.press("escape")
