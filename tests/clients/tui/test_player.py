"""A player's page in the terminal client, driven by Textual's pilot against a real server: opened
from the lobby by name, its ratings, every one of 45 games a page at a time with `n` (older) and
`p` (newer), a game ending between two pages, and an unknown name in the server's words. The
screen is saved as SVG to `test-artifacts/tui/` to be looked at."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from clients.tui import ArenaApp
from clients.tui.player import NameForm, PlayerScreen
from server import identity
from server.clock import now_ms
from server.db import Database
from server.games import GameStore
from server.protocol import Player, PlayerKind, TimeControl
from tests.clients.tui.test_app import as_guest, keys, playing, until
from tests.server.endpoint import serving

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "tui"
DAY = 1_764_000_000_000  # 2025-11-24 in ms: the games end an hour apart from it
HOUR = 3_600_000


async def _finished(store: GameStore, white: Player, black: Player, loser: str, now: int) -> str:
    started = await store.create(
        white, black, time=TimeControl(300, 0), rated=False, now=now, setup="6x6"
    )
    await store.resign(started.game_id, loser, now + 1000)
    return started.game_id


def _listed(screen: PlayerScreen) -> list[str]:
    table = screen.query_one("#player-games", DataTable)
    return [str(row.value) for row in table.rows]


def _range(screen: PlayerScreen) -> str:
    return str(screen.query_one("#player-range", Static).content)


async def _open(app: ArenaApp, pilot: Pilot[None], name: str) -> PlayerScreen:
    await as_guest(app, pilot)
    await pilot.press("i")
    await until(pilot, lambda: isinstance(app.screen, NameForm), "the name form")
    await pilot.press(*name, "enter")
    await until(pilot, lambda: isinstance(app.screen, PlayerScreen), "the player's page")
    assert isinstance(app.screen, PlayerScreen)
    return app.screen


@pytest.mark.asyncio
async def test_every_game_of_a_player_a_page_at_a_time(
    redis_url: str, redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "Lea", "secret-l")
    await identity.create_account(database, "max", "secret-m")
    lea, max_ = Player("Lea", PlayerKind.HUMAN), Player("max", PlayerKind.HUMAN)
    store = GameStore(redis, database=database)
    newest = [await _finished(store, lea, max_, "max", DAY + HOUR * n) for n in range(1, 46)]
    newest.reverse()
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        screen = await _open(app, pilot, "lea")
        await until(pilot, lambda: len(_listed(screen)) == 30, "the first page")
        assert _listed(screen) == newest[:30]
        assert str(screen.query_one("#player-name-line", Static).content) == "Lea · player"
        assert _range(screen) == "games 1 to 30  (n older)"
        assert "newer" not in keys(screen)
        table = screen.query_one("#player-games", DataTable)
        assert [str(cell) for cell in table.get_row_at(0)] == [
            "won",
            "max",
            "white",
            "amazons 6x6",
            "casual",
            "resignation",
            "2025-11-26 13:00",
        ]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(str(ARTIFACTS / "player-page.svg"))

        await pilot.press("n")
        await until(pilot, lambda: _listed(screen) == newest[30:], "the second page")
        assert _range(screen) == "games 31 to 45  (p newer)"
        assert "older" not in keys(screen)
        app.save_screenshot(str(ARTIFACTS / "player-page-older.svg"))

        # Between two pages, and now: the server would abort a game made in the past for its first
        # move not made in time.
        latest = await _finished(store, max_, lea, "Lea", now_ms())
        await pilot.press("p")
        await until(pilot, lambda: _listed(screen)[:1] == [latest], "the newest game on top")
        assert _listed(screen) == [latest, *newest[:29]]
        assert str(table.get_row_at(0)[0]) == "lost"
        await pilot.press("n")
        await until(pilot, lambda: _listed(screen) == newest[29:], "the second page again")
        assert _range(screen) == "games 31 to 46  (p newer)"
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PlayerScreen), "the lobby")


@pytest.mark.asyncio
async def test_an_unknown_player_is_named_in_the_servers_words(
    redis_url: str, redis: Redis, database: Database
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        screen = await _open(app, pilot, "nosuch")
        error = screen.query_one("#player-error", Static)
        await until(pilot, lambda: str(error.content) != "", "the server's refusal")
        assert str(error.content) == "no player nosuch: no account or house bot"
        assert _listed(screen) == []
