"""The game screen uses a large terminal's room and follows the terminal's size: a 10x10
Amazons board and Bao's board drawn large at 120x40, small again at 80x24, the screen laid out
again the moment the terminal is resized, with each player's line against the board and the
board's clicks on its squares."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot

from clients.tui import ArenaApp
from clients.tui.game import GameScreen
from engine.amazons import Square
from server.protocol import Challenge, ChallengeAdded, GameStatus, TimeControl
from tests.clients.tui.test_app import as_guest, rows, until
from tests.server.endpoint import guest, serving

SMALL, LARGE = (80, 24), (120, 40)
# The board's size, small and large, by game.
BOARD_SIZES = {"amazons": ((36, 12), (56, 22)), "bao": ((43, 10), (59, 18))}


@contextlib.asynccontextmanager
async def challenged(
    redis_url: str, game: str, setup: str, size: tuple[int, int]
) -> AsyncIterator[tuple[Pilot[None], GameScreen]]:
    """The app's pilot, in a terminal of `size`, and its game screen: the app plays White in
    a game of `game` from `setup` that another guest challenged it to."""
    async with serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            lobby = await as_guest(app, pilot)
            assert app.user is not None
            other = await guest(url)
            await other.request(
                Challenge(
                    app.user.name, TimeControl(300, 3), setup=setup, game=game, colour="black"
                ),
                ChallengeAdded,
            )
            await until(pilot, lambda: len(rows(lobby, "challenges")) == 1, "the challenge")
            await pilot.press("tab", "tab", "y")  # to the challenges, and accept
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            assert isinstance(app.screen, GameScreen)
            await pilot.pause()
            yield pilot, app.screen
            await other.close()


def board_laid_out(screen: GameScreen, size: tuple[int, int]) -> None:
    """The board is drawn `size`, whole on the screen and in its column, each player's line
    against it, the panels beside it."""
    board = screen.board.region
    assert board.size == size
    assert screen.region.contains_region(board)
    assert screen.query_one("#board-side").region.contains_region(board)
    assert screen.query_one("#top-clock").region.bottom == board.y
    assert screen.query_one("#bottom-clock").region.y == board.bottom
    assert screen.query_one("#game-side").region.x > board.right


@pytest.mark.asyncio
@pytest.mark.parametrize(("game", "setup"), [("amazons", "10x10"), ("bao", "zanzibar")])
async def test_the_board_follows_the_terminal_resized_up_and_down(
    redis_url: str, redis: Redis, game: str, setup: str
) -> None:
    small, large = BOARD_SIZES[game]
    async with challenged(redis_url, game, setup, SMALL) as (pilot, screen):
        board_laid_out(screen, small)
        await pilot.resize_terminal(*LARGE)
        await until(pilot, lambda: screen.board.region.size == large, "the large board")
        board_laid_out(screen, large)
        await pilot.resize_terminal(*SMALL)
        await until(pilot, lambda: screen.board.region.size == small, "the small board")
        board_laid_out(screen, small)
        await pilot.resize_terminal(*LARGE)
        await until(pilot, lambda: screen.board.region.size == large, "the large board again")
        # A move made with the mouse on the board drawn large.
        board = screen.board
        if game == "amazons":
            for square in ("d1", "d7", "g7"):
                file, rank = Square.parse(square).file, Square.parse(square).rank
                assert await pilot.click(board, offset=(3 + 5 * file + 2, 1 + 2 * (9 - rank)))
        else:
            # South's A6 (the sixth pit of the bottom front row), then A6> on the choice line.
            assert await pilot.click(board, offset=(3 + 7 * 5 + 3, 10))
            assert await pilot.click(board, offset=(13, 17))
        await until(pilot, lambda: screen.view.ply == 1, "the move")
        assert screen.view.moves == ("d1-d7/g7" if game == "amazons" else "A6>",)
        assert screen.view.status is GameStatus.PLAYING


@pytest.mark.asyncio
@pytest.mark.parametrize(("game", "setup"), [("amazons", "10x10"), ("bao", "zanzibar")])
async def test_a_game_opened_in_a_large_terminal_has_the_board_large(
    redis_url: str, redis: Redis, game: str, setup: str
) -> None:
    _, large = BOARD_SIZES[game]
    async with challenged(redis_url, game, setup, LARGE) as (_, screen):
        board_laid_out(screen, large)
