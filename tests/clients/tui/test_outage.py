"""The terminal client through an outage of the servers in a game's first moves: the server
starts the first move's window again (docs/protocol.md, Clocks), and so does the count the game
screen shows, whether the client heard the `clock` event or came back after it."""

from __future__ import annotations

import contextlib
import time

import pytest
from redis.asyncio import Redis
from textual.css.query import NoMatches

import clients.connection
import clients.tui.game
import server.clock
from clients.tui import ArenaApp
from clients.tui.game import GameScreen
from server.clock import now_ms
from server.outage import HEARTBEAT
from server.protocol import GameStatus
from tests.clients.tui.test_app import as_guest, until
from tests.clients.tui.test_game_start import SIZE, first_move_seconds, seek_accepted, text
from tests.server.endpoint import arena_serving

AWAY_S = 40.0  # longer than a first move's window (30 s)


def counting(game: GameScreen) -> bool:
    """Whether the game screen counts a first move down (it may not be composed yet)."""
    with contextlib.suppress(NoMatches):
        return "first move within" in text(game, "#turn")
    return False


@pytest.mark.asyncio
async def test_the_first_move_is_counted_again_when_the_server_lost_redis(
    redis_url: str, redis: Redis
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        _, url = await stack.enter_async_context(arena_serving(redis_url))
        app = ArenaApp(url)
        pilot = await stack.enter_async_context(app.run_test(size=SIZE))
        await until(pilot, lambda: app.connection == "connected", "the connection")
        game, other = await seek_accepted(app, pilot, await as_guest(app, pilot), url)
        await until(pilot, lambda: counting(game), "the count")
        first = first_move_seconds(game)
        await until(pilot, lambda: first_move_seconds(game) <= first - 5, "the count to go down")
        # Without the outage the count only goes down from here; started again, it is above
        # this for five seconds or more (not only in its first second, which a loaded machine
        # may let the screen pass before a check reads it).
        left = first_move_seconds(game)
        # The server's last beat is 10 s old, as after Redis was out of its reach that long:
        # its next beat makes it an outage, and the game's `clock` event comes.
        await redis.set(HEARTBEAT, now_ms() - 10_000)
        await until(pilot, lambda: first_move_seconds(game) > left, "the count to start again")
        assert game.view.status is GameStatus.PLAYING
        await other.close()
        await pilot.press("ctrl+q")


class _Ahead:
    """The wall clock and the monotonic clock, both `ahead_s` seconds ahead."""

    def __init__(self) -> None:
        self.ahead_s = 0.0

    def time(self) -> float:
        return time.time() + self.ahead_s

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead_s


@pytest.mark.asyncio
async def test_the_first_move_is_counted_again_after_every_server_was_down(
    redis_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead = _Ahead()
    monkeypatch.setattr(server.clock, "time", ahead)  # the servers' clock
    for module in (clients.connection, clients.tui.game):  # the terminal's
        monkeypatch.setattr(module, "monotonic", ahead.monotonic)
    async with contextlib.AsyncExitStack() as stack:
        servers = contextlib.AsyncExitStack()
        _, url = await servers.enter_async_context(arena_serving(redis_url))
        port = int(url.rsplit(":", 1)[1])
        app = ArenaApp(url)
        pilot = await stack.enter_async_context(app.run_test(size=SIZE))
        await until(pilot, lambda: app.connection == "connected", "the connection")
        game, other = await seek_accepted(app, pilot, await as_guest(app, pilot), url)
        await until(pilot, lambda: counting(game), "the count")
        await other.close()
        await servers.aclose()
        await until(pilot, lambda: app.connection.startswith("reconnecting"), "the drop")
        ahead.ahead_s += AWAY_S  # the server is down longer than the first move's window
        await until(pilot, lambda: first_move_seconds(game) == 0, "the count to run out")
        await stack.enter_async_context(arena_serving(redis_url, port))
        await until(pilot, lambda: app.connection == "resynced", "the resync")
        assert game.view.status is GameStatus.PLAYING
        assert first_move_seconds(game) >= 25
        await pilot.press("ctrl+q")
