"""Bao in the terminal client, end to end against a real server in the test process with a
house-bot worker: a guest plays a whole game against the random bot (by the cursor, the mouse
and typing) and reviews it; the game screen in an 80x24 terminal without colour, read as
text; a spectator follows a game two scripted guests play."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import Input, Static

from clients import ArenaClient
from clients.evaluation import chance_text
from clients.tui import ArenaApp
from clients.tui.analysis import AnalysisPanel
from clients.tui.app import open_watching
from clients.tui.bao_board import LINES, PIT_WIDTH, BaoBoard, bao_text, changed_pits
from clients.tui.game import GameScreen
from clients.tui.review import ReviewScreen
from clients.view import GameView
from engine.bao import BaoPosition, Move
from server.protocol import (
    AcceptSeek,
    Colour,
    ColourPreference,
    GameStarted,
    GameStatus,
    PlayMove,
    Seek,
    SeekAdded,
    TimeControl,
)
from tests.clients.tui.test_app import playing, until
from tests.clients.tui.test_game import latest, play_the_bot
from tests.server.endpoint import analysis_worker, guest, house_worker, serving

MOVE_WAIT_SECONDS = 60.0  # for the bot's reply on a loaded machine
MAX_PLIES = 400  # random Bao games last 15 to 130 plies; the engine's own cap is 600


async def play_bao(app: ArenaApp, pilot: Pilot[None]) -> GameScreen:
    """Challenge the house bot `random` to Bao as White (South); the game screen it opens."""
    return await play_the_bot(app, pilot, "zanzibar", game="bao", time_control="10+5")


def shown_lines(board: BaoBoard) -> list[str]:
    """The board as drawn, line by line, without trailing spaces (as `bao_text` gives it)."""
    return [line.rstrip() for line in board.render().plain.split("\n")]


def position_of(view: GameView) -> BaoPosition:
    position = view.position()
    assert isinstance(position, BaoPosition)
    return position


async def my_turn(app: ArenaApp, pilot: Pilot[None], game: GameScreen, ply: int) -> None:
    """Wait until the screen shows ply `ply` (or the end)."""
    await until(
        pilot,
        lambda: game.view.ply >= ply or game.view.status is GameStatus.ENDED,
        f"ply {ply} on the screen",
        MOVE_WAIT_SECONDS,
    )


@pytest.mark.asyncio
async def test_a_guest_plays_a_whole_bao_game_against_the_random_bot_and_reviews_it(
    redis_url: str, redis: Redis
) -> None:
    async with (
        house_worker(redis, "tui-worker"),
        serving(redis_url) as url,
        playing(url) as (app, pilot),
    ):
        game = await play_bao(app, pilot)
        assert game.me is Colour.WHITE
        board = game.query_one(BaoBoard)
        assert board.player == 0
        assert not board.flipped
        assert game.panel is None, "a player sees no analysis of their own live game"
        assert game.query_one("#move-text", Input).placeholder == "move, e.g. A6>"

        # The first move with the cursor: ctrl+b to the board, right to A6, Enter, then the
        # second choice (A6>) and Enter.
        await pilot.press("ctrl+b")
        assert board.has_focus
        await pilot.press(*["right"] * 5, "enter")
        assert [str(move) for move in board.choices()] == ["A6<", "A6>"]
        await pilot.press("right", "enter")
        await my_turn(app, pilot, game, 2)
        assert latest(app, game).moves[0] == "A6>"
        # The bot's reply is marked: its pit, and the pits it sowed.
        reply = Move.parse(latest(app, game).moves[1])
        lines = shown_lines(board)
        assert any("\u2039" in line for line in lines[2:4]), lines
        assert board.last_move == str(reply)

        # The second with the mouse: a pit, then its first choice on the line under the board.
        position = position_of(latest(app, game))
        move = sorted(position.legal_moves)[0]
        column = move.pit if move.pit < 8 else 15 - move.pit
        line = 5 if move.pit < 8 else 6
        assert await pilot.click(board, offset=(3 + PIT_WIDTH * column + 2, line))
        if board.picked is not None:
            assert await pilot.click(board, offset=(len(" A1: ") + 1, LINES - 1))
        await my_turn(app, pilot, game, 4)
        assert latest(app, game).moves[2] == str(move)

        # The rest typed, a random legal move each time, to the end.
        chooser = random.Random(20)
        await pilot.press("ctrl+t")
        while game.view.status is not GameStatus.ENDED:
            view = game.view
            assert view.ply < MAX_PLIES
            position = position_of(view)
            text = str(chooser.choice(sorted(position.legal_moves))).lower()
            await pilot.press(*text, "enter")
            await my_turn(app, pilot, game, view.ply + 2)
        ended = game.view
        assert ended.winner in (Colour.WHITE, Colour.BLACK)
        end = str(game.query_one("#turn", Static).content)
        side = "South (white)" if ended.winner is Colour.WHITE else "North (black)"
        assert end.startswith(f"Game over: {side} "), end
        final = position_of(ended)
        assert final.is_terminal()
        shown = shown_lines(board)
        assert (
            shown[:9]
            == bao_text(
                final,
                last_move=Move.parse(ended.moves[-1]),
                changed=changed_pits(final),
                shade=app.no_color,
            )[:9]
        )
        assert any(line.endswith("won") for line in shown)

        # The review: the analysis panel (the server's judgement, once the game is over, for
        # its player too), the board follows the moves.
        await pilot.press("ctrl+g")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert review.query(AnalysisPanel)
        await pilot.press("home")
        start = review.query_one(BaoBoard)
        assert shown_lines(start)[5] == bao_text(BaoPosition(), shade=app.no_color)[5]
        await pilot.press("right")
        after_one = BaoPosition()
        after_one.apply(after_one.parse_move("A6>"))
        assert (
            shown_lines(start)[5:7]
            == bao_text(
                after_one,
                last_move=Move.parse("A6>"),
                changed=changed_pits(after_one),
                shade=app.no_color,
            )[5:7]
        )


@pytest.mark.asyncio
async def test_the_bao_game_screen_fits_80x24_and_reads_without_colour(
    redis_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with house_worker(redis, "tui-worker"), serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            game = await play_bao(app, pilot)
            await pilot.press(*"a7<", "enter")
            await my_turn(app, pilot, game, 2)
            await pilot.pause()
            screen = app.screen.region
            for part in ("#board", "#move-text", "#top-clock", "#bottom-clock", "#turn", "#moves"):
                region = game.query_one(part).region
                assert region.area > 0, part
                assert screen.contains_region(region), f"{part} at {region} is off the screen"
            view = latest(app, game)
            position = position_of(view)
            board = game.query_one(BaoBoard)
            assert board.region.height == LINES
            lines = shown_lines(board)
            # No colour: every mark is a character. The user's pits a move may start from
            # carry a bullet; the bot's last pit its angle quotes.
            assert lines == bao_text(
                position,
                last_move=Move.parse(view.moves[-1]),
                changed=changed_pits(position),
                targets={move.pit for move in position.legal_moves},
                note=f"[ ]: the sowing of {view.moves[-1]}, step by step",
            )
            turn = str(game.query_one("#turn", Static).content)
            assert turn.startswith("South (white) to move (you)"), turn
            assert lines[8].startswith(" South (white)  store 21")
            assert lines[8].endswith("\u25c0 to move")
            assert "\u2022" in lines[5] + lines[6]
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_a_spectator_follows_a_bao_game(redis_url: str, redis: Redis) -> None:
    async with analysis_worker(redis), serving(redis_url) as url:
        south, north = await guest(url), await guest(url)
        added = await south.request(
            Seek(TimeControl(300, 0), setup="zanzibar", colour=ColourPreference.WHITE, game="bao"),
            SeekAdded,
        )
        started = await north.request(AcceptSeek(added.seek.seek_id), GameStarted)
        game_id = started.game_id
        app = ArenaApp(url, await open_watching(url, game_id), game_id)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            assert game.me is None
            # The spectator's analysis panel: the server's judgement of each position.
            panel = game.panel
            assert panel is not None
            await until(pilot, lambda: panel.analysis is not None, "the judgement", 60)
            assert panel.analysis is not None
            assert panel.analysis.game == "bao"
            assert panel.analysis.white_wins is not None
            assert panel.text.splitlines()[0].startswith(
                chance_text(panel.analysis.white_wins, panel.analysis.exact)
            )
            assert not game.query("#move-text")
            board = game.query_one(BaoBoard)
            position = BaoPosition()
            chooser = random.Random(7)
            players: tuple[ArenaClient, ArenaClient] = (south, north)
            for ply in range(6):
                move = chooser.choice(sorted(position.legal_moves))
                await players[ply % 2].request(PlayMove(game_id, ply, str(move)))
                position.apply(move)
                await until(pilot, lambda p=ply: game.view.ply > p, f"move {ply + 1}")
                await pilot.pause()
                assert shown_lines(board) == bao_text(
                    position,
                    last_move=move,
                    changed=changed_pits(position),
                    shade=app.no_color,
                    note=f"[ ]: the sowing of {move}, step by step",
                )
            screen = app.screen.region
            for part in ("#board", "#moves-pane", "#turn", "#audience"):
                region = game.query_one(part).region
                assert region.area > 0, part
                assert screen.contains_region(region), f"{part} at {region} is off the screen"
            await pilot.press("ctrl+q")
        for client in (south, north):
            await client.close()
