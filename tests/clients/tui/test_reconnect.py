"""The terminal client losing the server mid-game, against a real server in the test process:
the server closes a player's or a spectator's connection, or stops for a while and comes back on
the same port; the game screen shows the connection's state, resyncs in band, loses no move,
and the game goes on."""

from __future__ import annotations

import contextlib

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot

from clients.tui import ArenaApp
from clients.tui.game import GameScreen
from clients.tui.lobby import LobbyScreen
from server.app import Arena
from server.protocol import GameStatus
from tests.clients.tui.test_app import playing, told, until
from tests.clients.tui.test_game import first_legal, latest, play_the_bot
from tests.clients.tui.test_watch import (
    play_and_see,
    shown,
    shown_moves,
    spectators,
    watched_from_the_lobby,
)
from tests.server.endpoint import arena_serving, house_worker, random_game, start_game


def following_the_connection(app: ArenaApp) -> list[str]:
    """Every state the app's connection goes through from now on, in order."""
    states: list[str] = []

    def seen(state: str) -> None:
        states.append(state)

    app.watch(app, "connection", seen, init=False)
    return states


async def dropped_by_the_server(pilot: Pilot[None], arena: Arena, app: ArenaApp) -> None:
    """The server closes the app's connection, and lets it go (its spectators uncounted, its
    player away)."""
    assert app.user is not None
    name = app.user.name
    sessions = [s for s in arena.sessions if s.user is not None and s.user.name == name]
    assert len(sessions) == 1
    await sessions[0].socket.close()
    await until(pilot, lambda: sessions[0] not in arena.sessions, "the server to let it go")


async def move_and_reply(pilot: Pilot[None], app: ArenaApp, game: GameScreen) -> None:
    """On the user's turn, type a legal move; wait for the house bot's reply to show."""
    ply = latest(app, game).ply
    await pilot.press("ctrl+t", *first_legal(latest(app, game)), "enter")
    await until(pilot, lambda: game.view.ply >= ply + 2, f"move {ply + 1} and the reply")


async def the_move_list_is_the_servers(pilot: Pilot[None], arena: Arena, game: GameScreen) -> None:
    stored = await arena.store.load(game.game_id)
    await until(pilot, lambda: game.view.version == stored.version, "the screen to catch up")
    assert shown_moves(game) == list(stored.moves)


@pytest.mark.asyncio
async def test_a_player_dropped_by_the_server_resyncs_and_plays_on(
    redis_url: str, redis: Redis
) -> None:
    async with (
        house_worker(redis, "tui-worker"),
        arena_serving(redis_url) as (arena, url),
        playing(url) as (app, pilot),
    ):
        game = await play_the_bot(app, pilot, "10x10")
        await move_and_reply(pilot, app, game)
        states = following_the_connection(app)
        # The user moves, and the connection goes as the bot answers (its reply may come
        # before the drop or be missed and come with the resync).
        await pilot.press("ctrl+t", *first_legal(latest(app, game)), "enter")
        await until(pilot, lambda: latest(app, game).ply >= 3, "the move")
        await dropped_by_the_server(pilot, arena, app)
        await until(pilot, lambda: app.connection == "resynced", "the resync")
        assert states[0] == "reconnecting, attempt 1"
        assert shown(game, "connection") == "● resynced"
        await until(pilot, lambda: game.view.ply == 4, "the reply made while away")
        # Moves after the reconnect are accepted, and nothing was lost.
        await move_and_reply(pilot, app, game)
        await move_and_reply(pilot, app, game)
        assert game.view.status is GameStatus.PLAYING
        await the_move_list_is_the_servers(pilot, arena, game)
        assert len(shown_moves(game)) == 8


@pytest.mark.asyncio
async def test_a_spectator_dropped_by_the_server_sees_the_game_to_its_end(
    redis_url: str, redis: Redis
) -> None:
    async with arena_serving(redis_url) as (arena, url), playing(url) as (app, pilot):
        white, black, game_id = await start_game(url)
        game = await watched_from_the_lobby(app, pilot, game_id)
        moves = random_game("6x6", seed=11)
        half = len(moves) // 2
        await play_and_see(pilot, game, (white, black), moves[:half])
        await dropped_by_the_server(pilot, arena, app)
        await until(pilot, lambda: app.connection == "resynced", "the resync")
        # Counted again as a spectator on the new connection (uncounted as the old one went).
        await until(pilot, lambda: shown(game, "audience") == "watching, 1 spectator", "count")
        assert await spectators(white, game_id) == 1
        await play_and_see(pilot, game, (white, black), moves, first=half)
        await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the end")
        await the_move_list_is_the_servers(pilot, arena, game)
        # Leaving unwatches on the new connection, which the server accepts.
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert app.client is not None
        client = app.client
        await until(pilot, lambda: game_id not in client.games, "the unwatch")
        await until(pilot, lambda: not client.core.pending, "the server's answer")
        assert not told(app, "Refused")
        for player in (white, black):
            await player.close()


@pytest.mark.asyncio
async def test_a_server_gone_for_a_while_is_retried_and_the_game_goes_on(
    redis_url: str, redis: Redis
) -> None:
    async with house_worker(redis, "tui-worker"), contextlib.AsyncExitStack() as server:
        arena, url = await server.enter_async_context(arena_serving(redis_url))
        port = int(url.rsplit(":", 1)[1])
        async with playing(url) as (app, pilot):
            game = await play_the_bot(app, pilot, "10x10")
            await move_and_reply(pilot, app, game)
            states = following_the_connection(app)
            await server.aclose()
            # Retried, with the state on the game screen, for as long as it is gone.
            await until(pilot, lambda: app.connection == "reconnecting, attempt 3", "retries")
            assert states[:3] == [f"reconnecting, attempt {n}" for n in (1, 2, 3)]
            assert shown(game, "connection").startswith("● reconnecting, attempt ")
            arena, _ = await server.enter_async_context(arena_serving(redis_url, port))
            await until(pilot, lambda: app.connection == "resynced", "the resync")
            await move_and_reply(pilot, app, game)
            await move_and_reply(pilot, app, game)
            await the_move_list_is_the_servers(pilot, arena, game)
            assert len(shown_moves(game)) == 6
