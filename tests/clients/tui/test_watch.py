"""Watching live games in the terminal client, against a real server in the test process: a
game two scripted guests play, opened from the lobby's live games and by `arena watch`'s id,
seen move by move to its end, with the spectator count, and left again."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import Static

from clients import ArenaClient
from clients.tui import ArenaApp
from clients.tui.amazons_analysis import AmazonsNotes
from clients.tui.app import open_watching
from clients.tui.game import GameScreen
from clients.tui.lobby import LobbyScreen
from engine.amazons import Position
from server.cli import main
from server.protocol import Colour, GameList, GameStatus, ListGames, PlayMove, Termination
from tests.clients.tui.test_app import (
    ANALYSIS_WAIT_SECONDS,
    SIZE,
    as_guest,
    keys,
    playing,
    rows,
    until,
)
from tests.server.endpoint import analysis_worker, random_game, serving, start_game

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "tui"


def shown_moves(game: GameScreen) -> list[str]:
    """The moves in the screen's move list, in order (`  1. d1-d7/g7  g10-g4/d4` a line)."""
    text = str(game.query_one("#moves", Static).content)
    if text == "no moves yet":
        return []
    return [move for line in text.splitlines() for move in line.split()[1:]]


def shown(game: GameScreen, part: str) -> str:
    return str(game.query_one(f"#{part}", Static).content)


async def spectators(client: ArenaClient, game_id: str) -> int:
    """The game's spectator count as the lobby's list of live games has it."""
    games = await client.request(ListGames(), GameList)
    (summary,) = [g for g in games.games if g.game_id == game_id]
    return summary.spectators


async def play_and_see(
    pilot: Pilot[None],
    game: GameScreen,
    players: tuple[ArenaClient, ArenaClient],
    moves: list[str],
    first: int = 0,
) -> None:
    """The two players play `moves[first:]` in turn; each shows on the spectator's screen,
    in the move list, before the next is played."""

    def shows(count: int) -> Callable[[], bool]:
        return lambda: len(shown_moves(game)) >= count

    for ply in range(first, len(moves)):
        await players[ply % 2].request(PlayMove(game.game_id, ply, moves[ply]))
        await until(pilot, shows(ply + 1), f"move {ply + 1} to show")
        assert shown_moves(game) == moves[: ply + 1]


async def watched_from_the_lobby(app: ArenaApp, pilot: Pilot[None], game_id: str) -> GameScreen:
    """From the lobby, refresh the live games until `game_id` is listed and watch it with `w`."""
    lobby = await as_guest(app, pilot)
    await pilot.press("r")
    await until(pilot, lambda: [r[0] for r in rows(lobby, "games")] == [game_id], "the game")
    await pilot.press("w")
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
    # Its parts, which a loaded machine mounts a moment after the screen is on top.
    await until(pilot, lambda: bool(app.screen.query("#bottom-player")), "the game's players")
    assert isinstance(app.screen, GameScreen)
    return app.screen


@pytest.mark.asyncio
async def test_a_game_watched_from_the_lobby_shows_every_move_and_the_end(
    redis_url: str, redis: Redis
) -> None:
    async with (
        analysis_worker(redis),
        serving(redis_url) as url,
        playing(url) as (app, pilot),
    ):
        white, black, game_id = await start_game(url)
        game = await watched_from_the_lobby(app, pilot, game_id)
        assert game.me is None
        assert white.user is not None
        assert black.user is not None
        assert white.user.name in shown(game, "bottom-player")
        assert black.user.name in shown(game, "top-player")
        assert "(you)" not in shown(game, "bottom-player") + shown(game, "top-player")
        await until(pilot, lambda: shown(game, "audience") == "watching, 1 spectator", "count")
        assert await spectators(white, game_id) == 1
        # Nothing to move or end the game with: no move field, no such keys in the footer.
        assert not game.query("#move-text")
        assert keys(game) & {"resign", "abort", "claim", "type_move", "review"} == set()
        assert not game.query("#move-text")

        moves = random_game("6x6", seed=5)
        await play_and_see(pilot, game, (white, black), moves[:4])
        # The analysis panel follows the position shown: the notes of the position after the
        # fourth move, then the server's values for it.
        assert game.panel is not None
        panel = game.panel
        after = Position.setup("6x6")
        for move in moves[:4]:
            after.apply(after.parse_move(move))
        mobility = AmazonsNotes(after).lines(None)[0]
        assert mobility.startswith("Mobility")
        await until(
            pilot, lambda: panel.analysis is not None, "the server's values", ANALYSIS_WAIT_SECONDS
        )
        # The engine's judgement over the notes: the chance in words and a bar of 24 cells.
        lines = panel.text.splitlines()
        assert re.fullmatch(
            r"(White|Black) \d+%|even|(White|Black) wins \(exact\)", lines[0].split("  (")[0]
        )
        assert re.fullmatch(r"○ [█░]{24} ●", lines[1])
        assert mobility in lines
        assert panel.analysis is not None
        assert panel.analysis.ply == 4
        await pilot.press("l")
        line = panel.analysis.line
        assert line, "the server's best line"
        await until(pilot, lambda: game.board.hint == line[0], "the best move drawn")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(str(ARTIFACTS / "watch-judged.svg"))
        await pilot.press("l")
        await play_and_see(pilot, game, (white, black), moves, first=4)
        await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the end")
        await until(pilot, lambda: "has no move" in panel.text, "the last position's notes")
        winner = Colour.WHITE if len(moves) % 2 == 1 else Colour.BLACK
        assert (game.view.winner, game.view.termination) == (winner, Termination.NO_LEGAL_MOVE)
        name = (white.user if winner is Colour.WHITE else black.user).name
        assert f"Game over: {winner} {name} wins by no legal move" in shown(game, "turn")

        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        for client in (white, black):
            await client.close()


@pytest.mark.asyncio
async def test_enter_on_a_live_game_watches_it_and_leaving_it_unwatches(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url, playing(url) as (app, pilot):
        white, black, game_id = await start_game(url)
        lobby = await as_guest(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: len(rows(lobby, "games")) == 1, "the game")
        await pilot.press("tab", "enter")  # from the seeks to the live games: Enter on the row
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        assert await spectators(white, game_id) == 1
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        deadline = asyncio.get_running_loop().time() + 20
        while await spectators(white, game_id) != 0:
            assert asyncio.get_running_loop().time() < deadline, "the spectator never left"
            await pilot.pause(0.05)
        assert app.client is not None
        assert game_id not in app.client.games
        for client in (white, black):
            await client.close()


@pytest.mark.asyncio
async def test_arena_watch_opens_the_game_and_leaving_it_goes_to_the_lobby(
    redis_url: str, redis: Redis
) -> None:
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        moves = random_game("6x6", seed=8)
        for ply in range(2):
            await (white, black)[ply % 2].request(PlayMove(game_id, ply, moves[ply]))
        app = ArenaApp(url, await open_watching(url, game_id), game_id)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            assert game.me is None
            assert shown_moves(game) == moves[:2]
            await play_and_see(pilot, game, (white, black), moves[:6], first=2)
            assert await spectators(white, game_id) == 1
            await pilot.press("ctrl+l")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("ctrl+q")
        for client in (white, black):
            await client.close()


@pytest.mark.asyncio
async def test_arena_watch_of_a_game_the_server_lacks_is_one_line_and_status_2(
    redis_url: str, redis: Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    def watch(url: str) -> object:
        with pytest.raises(SystemExit) as exited:
            main(["watch", "nosuchgame", url])
        return exited.value.code

    async with serving(redis_url) as url:
        status = await asyncio.to_thread(watch, url)
    assert status == 2
    assert capsys.readouterr().err == (
        f"arena watch: error: the server at {url} has no game 'nosuchgame'\n"
    )


@pytest.mark.asyncio
async def test_the_10x10_spectator_screen_fits_80x24(redis_url: str, redis: Redis) -> None:
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black, game_id = await start_game(url, setup="10x10")
        app = ArenaApp(url, await open_watching(url, game_id), game_id)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            game = app.screen
            assert isinstance(game, GameScreen)
            await pilot.pause()
            screen = game.region
            parts = ("#board", "#moves-pane", "#analysis", "#top-clock", "#bottom-clock", "#turn")
            for part in (*parts, "#audience"):
                region = game.query_one(part).region
                assert region.area > 0, part
                assert screen.contains_region(region), f"{part} at {region} is off the screen"
            # Room for the panel's notes: mobility, territory, evaluation and a region or two.
            assert game.query_one("#analysis").region.height >= 8
            assert game.query_one("#moves-pane").region.height >= 3
            # The judgement's first lines (the chance, the bar) in sight without scrolling.
            panel = game.panel
            assert panel is not None
            await until(
                pilot, lambda: panel.analysis is not None, "the judgement", ANALYSIS_WAIT_SECONDS
            )
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            app.save_screenshot(str(ARTIFACTS / "watch-10x10-80x24.svg"))
            await pilot.press("ctrl+q")
        for client in (white, black):
            await client.close()
