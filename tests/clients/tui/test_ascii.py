"""`arena play --ascii`: every screen drawn in ASCII, its frames, marks and panels as well as
its boards."""

from __future__ import annotations

import html
import re

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot

from clients.tui import ArenaApp
from clients.tui.forms import OfferForm
from clients.tui.game import GameScreen
from server.protocol import AcceptSeek, GameStarted
from tests.clients.tui.test_app import as_guest, rows, until
from tests.server.endpoint import guest, serving, start_game


def not_ascii(app: ArenaApp) -> set[str]:
    """The characters on the screen that are not ASCII, as a screenshot has them."""
    svg = app.export_screenshot()
    shown = "".join(html.unescape(text) for text in re.findall(r">([^<>]*)</text>", svg))
    return {c for c in shown.replace("\xa0", " ") if ord(c) > 126}


async def settle(pilot: Pilot[None]) -> None:
    await pilot.pause(0.3)


@pytest.mark.asyncio
async def test_every_screen_is_drawn_in_ascii(redis_url: str, redis: Redis) -> None:
    async with serving(redis_url) as url:
        app = ArenaApp(url, ascii=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            await settle(pilot)
            assert not_ascii(app) == set(), "the sign-in"
            lobby = await as_guest(app, pilot)
            await settle(pilot)
            assert not_ascii(app) == set(), "the lobby"
            await pilot.press("s")
            await until(pilot, lambda: bool(app.screen.query("#colour")), "the form")
            await settle(pilot)
            assert isinstance(app.screen, OfferForm)
            assert not_ascii(app) == set(), "the form"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek")
            assert app.client is not None
            (seek_id,) = app.client.core.seeks
            other = await guest(url)
            await other.request(AcceptSeek(seek_id), GameStarted)
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
            await settle(pilot)
            assert not_ascii(app) == set(), "the game screen"
            await pilot.press("ctrl+l")
            await until(pilot, lambda: app.screen is lobby, "the lobby")

            # A spectator's screen, with its analysis panel.
            white, black, game_id = await start_game(url)
            await until(pilot, lambda: len(rows(lobby, "games")) >= 1, "the live game")
            await pilot.press("r")
            await until(pilot, lambda: game_id in [r[0] for r in rows(lobby, "games")], "it")
            lobby.watch_game(game_id)
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the watched game")
            screen = app.screen
            assert isinstance(screen, GameScreen)
            assert screen.panel is not None
            await until(pilot, lambda: "Mobility" in screen.panel.text, "the panel's notes")
            await settle(pilot)
            assert not_ascii(app) == set(), "the spectator's screen"
            for client in (other, white, black):
                await client.close()
            await pilot.press("ctrl+q")
