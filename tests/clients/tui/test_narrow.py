"""The terminal client at 80 columns, its tables and footers full: every header whole, a game's
state in words, and the key that lists every key always in the footer."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from textual.screen import Screen
from textual.widgets import Footer

from clients.tui import ArenaApp
from clients.tui.game import GameScreen
from clients.tui.lobby import LobbyTable
from clients.tui.review import ReviewApp
from server.protocol import (
    Challenge,
    ChallengeAdded,
    Resign,
    Seek,
    SeekAdded,
    TimeControl,
)
from tests.clients.tui.test_app import as_guest, rows, until
from tests.clients.tui.test_review import finished
from tests.server.endpoint import guest, random_game, serving, start_game

SIZE = (80, 24)


def footer_keys(screen: Screen[object]) -> list[str]:
    """The keys the footer shows whole on the screen, as `key description`."""
    footer = screen.query_one(Footer)
    return [
        f"{key.key_display} {key.description}"
        for key in footer.query("FooterKey")
        if footer.region.contains_region(key.region)  # type: ignore[attr-defined]
    ]


def whole_columns(table: LobbyTable) -> list[str]:
    """The labels of the columns shown whole in the table's width."""
    room = table.content_region.width
    shown = []
    for column in table.ordered_columns:
        room -= column.get_render_width(table)
        if room < 0:
            break
        shown.append(str(column.label))
    return shown


@pytest.mark.asyncio
async def test_the_lobby_at_80_columns_shows_its_headers_states_and_keys_whole(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            lobby = await as_guest(app, pilot)
            assert app.user is not None
            # A game with another guest, who resigns it.
            other = await guest(url)
            await other.request(Seek(TimeControl(300, 3), setup="6x6", colour="black"), SeekAdded)
            await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek")
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
            assert isinstance(app.screen, GameScreen)
            game_id = app.screen.game_id
            await other.request(Resign(game_id))
            await pilot.press("ctrl+l")
            await until(pilot, lambda: app.screen is lobby, "the lobby")
            await until(pilot, lambda: rows(lobby, "mine")[0][2] != "your move", "the end")
            # Everything else the lobby lists, for every key to apply: a seek to accept, one
            # of the user's own, a challenge to answer, a live game to watch.
            await other.request(Seek(TimeControl(300, 3), setup="8x8"), SeekAdded)
            challenger = await guest(url)
            await challenger.request(
                Challenge(app.user.name, TimeControl(180, 2), setup="10x10"), ChallengeAdded
            )
            white, black, _ = await start_game(url)
            await pilot.press("s")
            await pilot.pause()
            await pilot.press("ctrl+s")
            await until(pilot, lambda: len(rows(lobby, "seeks")) == 2, "both seeks")
            await until(pilot, lambda: len(rows(lobby, "challenges")) == 1, "the challenge")
            await until(pilot, lambda: len(rows(lobby, "games")) == 1, "the live game")
            await pilot.pause()

            assert other.user is not None
            assert challenger.user is not None
            assert rows(lobby, "mine")[0][:3] == [other.user.name, "white", "they resigned"]
            mine = lobby.query_one("#mine", LobbyTable)
            assert whole_columns(mine)[:3] == ["opponent", "you", "state"]
            challenges = lobby.query_one("#challenges", LobbyTable)
            assert whole_columns(challenges) == [str(c.label) for c in challenges.ordered_columns]
            assert rows(lobby, "challenges")[0][:2] == [f"from {challenger.user.name}", "10x10"]
            shown = footer_keys(lobby)
            assert "? Keys" in shown, shown
            for client in (other, challenger, white, black):
                await client.close()
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_the_analysis_panel_at_80_columns_wraps_no_line() -> None:
    app = ReviewApp(finished("10x10", random_game("10x10", seed=4)[:6]), None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = app.review.panel
        room = panel.query_one("#analysis-text").content_region.width
        lines = panel.text.splitlines()
        assert lines[0].startswith("Mobility")
        for line in lines:
            assert len(line) <= room, f"{line!r} wraps in {room} columns"


@pytest.mark.asyncio
@pytest.mark.parametrize(("game", "setup"), [("bao", "zanzibar"), ("amazons", "10x10")])
async def test_a_game_at_80_columns_keeps_the_key_to_every_key_in_its_footer(
    redis_url: str, redis: Redis, game: str, setup: str
) -> None:
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            lobby = await as_guest(app, pilot)
            other = await guest(url)
            seek = Seek(TimeControl(300, 3), setup=setup, colour="black", game=game)
            await other.request(seek, SeekAdded)
            await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek")
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
            screen = app.screen
            await pilot.press("ctrl+b")  # to the board, whose keys join the footer's
            await pilot.pause()
            assert screen.query_one("#board").has_focus
            await until(pilot, lambda: "? Keys" in footer_keys(screen), "the footer")
            assert {"^r Resign", "^o Abort", "^l Lobby"} <= set(footer_keys(screen))
            await other.close()
            await pilot.press("ctrl+q")
