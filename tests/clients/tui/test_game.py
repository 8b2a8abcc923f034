"""The game screen driven as a person would, against a real server in the test process with a
house-bot worker: moves typed and picked with the cursor, an illegal move refused with the
engine's reason, resigning, and the 10x10 screen in an 80x24 terminal."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from clients.tui import ArenaApp
from clients.tui.amazons_board import AmazonsBoard
from clients.tui.game import GameScreen, clock_text
from clients.tui.move_input import MoveInput
from clients.view import GameView
from engine.amazons import Move, Square
from engine.errors import IllegalMoveError
from engine.game import get_game
from server.protocol import Colour, GameStatus, Termination
from tests.clients.tui.test_app import as_guest, playing, until
from tests.server.endpoint import house_worker, serving


async def play_the_bot(
    app: ArenaApp,
    pilot: Pilot[None],
    setup: str,
    game: str = "amazons",
    time_control: str = "5+3",
) -> GameScreen:
    """Challenge the house bot `random` as White to `game` on `setup`; the game screen it
    opens. Choosing another game first sets the form's setup to that game's default."""
    await as_guest(app, pilot)
    await pilot.press("b")
    await until(pilot, lambda: bool(app.screen.query("#send")), "the form")
    form = app.screen
    if game != "amazons":
        form.query_one("#game", Select).value = game
        await pilot.pause()
        assert form.query_one("#setup", Select).value == get_game(game).info.default_setup
    form.query_one("#bot", Select).value = "random"
    form.query_one("#setup", Select).value = setup
    form.query_one("#colour", Select).value = "white"
    time = form.query_one("#time", Input)
    time.value = time_control
    time.focus()
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
    assert isinstance(app.screen, GameScreen)
    return app.screen


def latest(app: ArenaApp, game: GameScreen) -> GameView:
    assert app.client is not None
    return app.client.games[game.game_id]


def first_legal(view: GameView) -> str:
    state = view.position()
    return state.format_move(next(iter(state.legal_moves)))


def test_clocks_show_tenths_under_ten_seconds() -> None:
    assert clock_text(65_000) == "1:05"
    assert clock_text(10_000) == "0:10"
    assert clock_text(9_960) == "9.9"
    assert clock_text(-5) == "0.0"


@pytest.mark.asyncio
async def test_moves_typed_and_by_cursor_an_illegal_one_refused_then_resign(
    redis_url: str, redis: Redis
) -> None:
    async with (
        house_worker(redis, "tui-worker"),
        serving(redis_url) as url,
        playing(url) as (app, pilot),
    ):
        game = await play_the_bot(app, pilot, "6x6")
        assert game.me is Colour.WHITE
        assert game.board.player == 0
        assert app.user is not None
        player = str(game.query_one("#bottom-player", Static).content)
        assert app.user.name in player
        assert "(you)" in player
        assert "random" in str(game.query_one("#top-player", Static).content)
        assert "white to move (you)" in str(game.query_one("#turn", Static).content)

        # The first two plies are off the clock: no clock runs yet.
        assert not game.query_one("#bottom-clock").has_class("-running")
        # A move typed.
        typed = first_legal(latest(app, game))
        await pilot.press(*typed, "enter")
        await until(pilot, lambda: latest(app, game).ply >= 2, "the bot's reply")
        assert latest(app, game).moves[0] == typed
        await until(pilot, lambda: game.view.ply >= 2, "the screen to show it")
        assert str(game.query_one("#moves", Static).content).startswith(f"  1. {typed}  ")
        # Now the user's clock runs, and only it.
        assert game.query_one("#bottom-clock").has_class("-running")
        assert not game.query_one("#top-clock").has_class("-running")

        # A move by the cursor keys.
        move = Move.parse(first_legal(latest(app, game)))
        board = game.query_one(AmazonsBoard)
        await pilot.press("ctrl+b")
        assert board.has_focus
        for square in (move.origin, move.target, move.arrow):
            at: Square = board.cursor
            files, ranks = square.file - at.file, square.rank - at.rank
            keys = ["right" if files > 0 else "left"] * abs(files)
            keys += ["up" if ranks > 0 else "down"] * abs(ranks)
            await pilot.press(*keys, "enter")
        await until(pilot, lambda: latest(app, game).ply >= 4, "the cursor move and a reply")
        assert latest(app, game).moves[2] == str(move)

        # An illegal move, typed: refused with the engine's reason, the text kept.
        await until(pilot, lambda: game.view.ply >= 4, "the screen to show the reply")
        legal = Move.parse(first_legal(latest(app, game)))
        illegal = f"{legal.target}-{legal.origin}/{legal.target}"
        with pytest.raises(IllegalMoveError) as refused:
            latest(app, game).position().parse_move(illegal)
        await pilot.press("ctrl+t", *illegal, "enter")
        moves = game.query_one(MoveInput)
        await until(pilot, lambda: moves.reason != "", "the refusal")
        assert moves.reason == str(refused.value)
        assert game.query_one("#move-text", Input).value == illegal
        assert latest(app, game).ply == 4

        # Resigning asks again first.
        await pilot.press("ctrl+r")
        assert "again" in str(game.query_one("#game-notice", Static).content)
        assert latest(app, game).status is GameStatus.PLAYING
        await pilot.press("ctrl+r")
        await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the end")
        assert game.view.termination is Termination.RESIGNATION
        assert game.view.winner is Colour.BLACK
        end = str(game.query_one("#turn", Static).content)
        assert "black random wins by resignation" in end

        await pilot.press("ctrl+l")
        await until(pilot, lambda: not isinstance(app.screen, GameScreen), "the lobby")


@pytest.mark.asyncio
async def test_the_10x10_game_screen_fits_80x24(redis_url: str, redis: Redis) -> None:
    async with house_worker(redis, "tui-worker"), serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            game = await play_the_bot(app, pilot, "10x10")
            await pilot.pause()
            screen = app.screen.region
            assert screen.width == 80
            assert screen.height == 24
            for part in ("#board", "#move-text", "#top-clock", "#bottom-clock", "#turn"):
                region = game.query_one(part).region
                assert region.area > 0, part
                assert screen.contains_region(region), f"{part} at {region} is off the screen"
            board = game.query_one(AmazonsBoard).region
            assert board.height == 12
            assert board.width >= 30
            await pilot.press("ctrl+q")
