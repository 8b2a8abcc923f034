"""The start of a game between two people, at 80x24: nothing covers either player's name or
clock, the game's id and terms are shown, each side's first move is counted down, and a game
called off before both have moved says why: as the server says, to its players and spectators,
also to one who comes after; from a server that does not say, as the client saw it end."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from typing import Any

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import Select, Static

from clients import ArenaClient
from clients.tui import ArenaApp
from clients.tui import game as game_screen
from clients.tui.app import open_watching
from clients.tui.game import GameScreen
from clients.tui.lobby import LobbyScreen
from server import offers, referee
from server.clock import Clock
from server.protocol import (
    Abort,
    AcceptSeek,
    Colour,
    GameEnded,
    GameStarted,
    GameStatus,
    PlayMove,
)
from server.stored_game import StoredGame
from tests.clients.tui.test_app import as_guest, rows, until
from tests.server.endpoint import guest, serving, start_game

SIZE = (80, 24)
SHORT_WINDOW_MS = 3_000


@pytest.fixture
def short_first_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server whose games give each side SHORT_WINDOW_MS for its first move, and says so."""
    start_clock = referee.start_clock

    def short(*args: object) -> Clock:
        return replace(start_clock(*args), first_move_ms=SHORT_WINDOW_MS)  # type: ignore[arg-type]

    monkeypatch.setattr(referee, "start_clock", short)
    monkeypatch.setattr(offers, "FIRST_MOVE_MS", SHORT_WINDOW_MS)


@pytest.fixture(params=["says why", "does not say why"])
def server_says_why(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the server says why a game was aborted (`abort_cause`, `abort_side`): each test
    runs against one that does and, as before that, one that does not."""
    if request.param == "says why":
        return True
    finish = referee._finish

    def without_why(*args: Any) -> tuple[StoredGame, GameEnded]:
        return finish(*args[:5])  # not `aborted`, the sixth

    monkeypatch.setattr(referee, "_finish", without_why)
    return False


async def seek_accepted(
    app: ArenaApp, pilot: Pilot[None], lobby: LobbyScreen, url: str
) -> tuple[GameScreen, ArenaClient]:
    """The user seeks a 6x6 game as White in the form, another guest accepts it: the game
    screen, and the other guest."""
    await pilot.press("s")
    await until(pilot, lambda: bool(app.screen.query("#colour")), "the form")
    app.screen.query_one("#setup", Select).value = "6x6"
    app.screen.query_one("#colour", Select).value = "white"
    await pilot.press("ctrl+s")
    await until(pilot, lambda: len(rows(lobby, "seeks")) == 1, "the seek")
    assert app.client is not None
    (seek_id,) = app.client.core.seeks
    other = await guest(url)
    await other.request(AcceptSeek(seek_id), GameStarted)
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
    assert isinstance(app.screen, GameScreen)
    return app.screen, other


def text(screen: GameScreen, part: str) -> str:
    return str(screen.query_one(part, Static).content)


async def aborted_by_the_opponent(app: ArenaApp, pilot: Pilot[None], url: str) -> GameScreen:
    """A game the signed-in guest plays, aborted by its opponent at once: the game screen,
    once it says who aborted it (the opponent gone)."""
    await until(pilot, lambda: app.connection == "connected", "the connection")
    game, other = await seek_accepted(app, pilot, await as_guest(app, pilot), url)
    await other.request(Abort(game.game_id))
    await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the abort")
    await pilot.pause()
    assert other.user is not None
    assert f"aborted: black {other.user.name} aborted it" in text(game, "#turn")
    await other.close()
    return game


def first_move_seconds(screen: GameScreen) -> int:
    found = re.search(r"first move within (\d+) s", text(screen, "#turn"))
    assert found, text(screen, "#turn")
    return int(found[1])


@pytest.mark.asyncio
async def test_a_game_starts_with_both_players_in_sight_and_the_first_move_counted_down(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            game, other = await seek_accepted(app, pilot, await as_guest(app, pilot), url)
            await pilot.pause(0.5)
            # What is drawn where the names and clocks are is the names and clocks: no notice
            # over them (the game's start, or the seek that is no longer open).
            for part in ("#top-player", "#top-clock", "#bottom-player", "#bottom-clock"):
                widget = game.query_one(part)
                region = widget.region
                for x in (region.x, region.right - 1):
                    assert app.screen.get_widget_at(x, region.y)[0] is widget, part
            assert not list(app.screen.query("Toast")), "no notice left over from the lobby"
            # Each player's name and clock just above or below their side of the board.
            board = game.query_one("#board").region
            assert game.query_one("#top-clock").region.bottom == board.y
            assert game.query_one("#bottom-clock").region.y == board.bottom
            assert "Game started: you play white against" in text(game, "#game-notice")
            assert text(game, "#game-title") == f"Game {game.game_id}: amazons 6x6 5+3, casual"

            # White's first move is counted down, then Black's.
            first = first_move_seconds(game)
            assert 20 <= first <= 30
            assert "white to move (you)" in text(game, "#turn")
            await until(pilot, lambda: first_move_seconds(game) < first, "the count to go down")
            await pilot.click("#move-text")
            await pilot.press(*"b1-c1/d1", "enter")
            await until(pilot, lambda: "black to move" in text(game, "#turn"), "Black's turn")
            assert 20 <= first_move_seconds(game) <= 30
            # After Black's, none: the clocks run.
            assert app.client is not None
            await other.request(PlayMove(game.game_id, 1, "a5-b5/c5"))
            await until(pilot, lambda: game.view.ply == 2, "Black's move")
            await pilot.pause()
            assert "first move" not in text(game, "#turn")
            await other.close()
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_a_game_aborted_for_want_of_a_first_move_says_whose(
    redis_url: str, redis: Redis, short_first_moves: None, server_says_why: bool
) -> None:
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            game, other = await seek_accepted(app, pilot, await as_guest(app, pilot), url)
            await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the abort")
            await pilot.pause()
            assert (
                f"aborted: white {game.view.player(Colour.WHITE).name} (you) made no first "
                "move within 3 s"
            ) in text(game, "#turn")
            await other.close()
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_a_game_aborted_by_a_player_says_who(
    redis_url: str, redis: Redis, server_says_why: bool
) -> None:
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await aborted_by_the_opponent(app, pilot, url)

            # The user's own, with the key pressed twice.
            await pilot.press("ctrl+l")
            assert app.lobby is not None
            await until(pilot, lambda: app.screen is app.lobby, "the lobby")
            game, other = await seek_accepted(app, pilot, app.lobby, url)
            await pilot.press("ctrl+o", "ctrl+o")
            await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the abort")
            await pilot.pause()
            assert "aborted: you aborted it" in text(game, "#turn")
            await other.close()
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_a_spectator_is_told_who_aborted_the_game_and_so_is_one_who_comes_later(
    redis_url: str, redis: Redis, server_says_why: bool
) -> None:
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        assert black.user is not None
        said = f"aborted: black {black.user.name} aborted it"
        app = ArenaApp(url, await open_watching(url, game_id), game_id)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            await black.request(Abort(game_id))
            await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the abort")
            await pilot.pause()
            # A server that does not say leaves a spectator only the abort.
            assert (said if server_says_why else "aborted: a player aborted it") in text(
                game, "#turn"
            )
            await pilot.press("ctrl+q")
        # Opened after the abort: only the server can say why.
        app = ArenaApp(url, await open_watching(url, game_id), game_id)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            await until(pilot, lambda: "Game over" in text(game, "#turn"), "the result")
            words = said if server_says_why else "Game over: no winner (aborted)."
            assert words in text(game, "#turn")
            await pilot.press("ctrl+q")
        for client in (white, black):
            await client.close()


@pytest.mark.asyncio
async def test_an_abort_as_the_first_move_window_closes_is_told_as_the_server_says(
    redis_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The opponent's abort comes when, by this client's timing, the window has closed (as
    # one in its last moment does): the server's word is taken, not the timing.
    monkeypatch.setattr(game_screen, "WINDOW_SLACK_SECONDS", 3600.0)
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await aborted_by_the_opponent(app, pilot, url)
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_a_spectator_who_comes_in_the_first_moves_window_sees_what_is_left_of_it(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        await asyncio.sleep(5)  # of White's 30 s
        app = ArenaApp(url, await open_watching(url, game_id), game_id)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            await until(pilot, lambda: "first move within" in text(game, "#turn"), "the count")
            assert "white to move: first move within" in text(game, "#turn")
            assert first_move_seconds(game) <= 25  # the whole window was shown: 29 or 30 s
            await pilot.press("ctrl+q")
        for client in (white, black):
            await client.close()
