"""The terminal client while the server's worker prepares the house bots: the lobby says which
are ready and which are still being prepared, the house-bot form marks those, and a challenge
to one still being prepared waits, shown, for as long as the worker reports it preparing. The
compiling is held back by an event, not timed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from redis.asyncio import Redis
from textual.widgets import Select, Static

from clients.tui.forms import OfferForm
from clients.tui.game import GameScreen
from server.worker import Worker
from tests.clients.tui.test_app import as_guest, playing, told, until
from tests.server.endpoint import serving

HELD_SECONDS = 120.0  # the longest a prepare is held: the test releases it long before


@pytest.fixture
def held() -> Iterator[threading.Event]:
    release = threading.Event()
    yield release
    release.set()


@pytest.mark.asyncio
async def test_a_challenge_to_a_house_bot_being_prepared_waits_for_it_and_says_so(
    redis_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch, held: threading.Event
) -> None:
    monkeypatch.setattr(
        "server.worker._prepare_bot", lambda name: name == "random" or held.wait(HELD_SECONDS)
    )
    # Without the worker's word that it is preparing the bot, the lobby would give up at once.
    monkeypatch.setattr("clients.tui.lobby.HOUSE_BOT_WAIT_SECONDS", 0.0)
    stop = asyncio.Event()
    worker = asyncio.create_task(Worker(redis, "preparing").run(stop))
    try:
        async with serving(redis_url) as url, playing(url) as (app, pilot):
            lobby = await as_guest(app, pilot)
            waiting = lobby.query_one("#waiting", Static)
            await until(pilot, lambda: "House bots 1 of" in str(waiting.content), "the bots line")
            assert "preparing mobility" in str(waiting.content)
            await pilot.press("b")
            await until(pilot, lambda: isinstance(app.screen, OfferForm), "the form")
            bots = app.screen.query_one("#bot", Select)
            labels = {str(prompt) for prompt, _ in bots._options}
            assert {"random", "greedy (preparing)"} <= labels
            bots.value = "greedy"
            app.screen.query_one("#setup", Select).value = "6x6"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: "still being prepared" in str(waiting.content), "wait")
            assert str(waiting.content).startswith(
                "Waiting for the house bots: greedy is still being prepared (1 of "
            )
            await pilot.pause(5.0)  # two answers more, each a refusal without the wait
            assert not told(app, "Refused")
            assert "still being prepared" in str(waiting.content)
            held.set()
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game", 60.0)
            assert not told(app, "Refused")
    finally:
        held.set()
        stop.set()
        await asyncio.wait_for(worker, 60.0)
