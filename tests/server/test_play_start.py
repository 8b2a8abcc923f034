"""`arena play` with no URL: its first screen shows at once and says what the server it starts
is doing until it listens; a server that does not start is named by its own error, not by
the last line of its log, and nothing times out while it says how it gets on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.widgets import Static

from clients.tui import ArenaApp
from clients.tui.signin import SignInScreen
from server.cli import BackgroundServer, server_error
from tests.clients.tui.test_app import SIZE, until
from tests.server.endpoint import serving

TRACEBACK = """\
{"event": "redis_started", "level": "info"}
Traceback (most recent call last):
  File "server/cli.py", line 1, in <module>
    main()
PermissionError: [Errno 13] Permission denied: '/srv/arena/appendonly.aof'
"""


def test_the_cause_is_the_servers_error_line_else_a_tracebacks_last_line() -> None:
    log = 'arena serve: data folder /x\n{"event": "worker_compiling"}\n'
    assert server_error(log + "arena serve: error: port 80 is taken\n") == "port 80 is taken"
    assert server_error(TRACEBACK + '{"event": "x", "level": "info"}\n') == (
        "PermissionError: [Errno 13] Permission denied: '/srv/arena/appendonly.aof'"
    )
    failed = '{"event": "hub_failed", "level": "error", "exception": "T\\nOSError: gone"}\n'
    assert server_error(log + failed) == "hub_failed OSError: gone"
    assert server_error(log) is None


@pytest.mark.asyncio
async def test_a_background_server_that_cannot_start_says_its_own_error(tmp_path: Path) -> None:
    # A data folder too long for the unix socket of its Redis: the server refuses it in one line.
    folder = tmp_path / ("d" * 100)
    server = BackgroundServer(folder)
    heard: list[str] = []
    try:
        with pytest.raises(ValueError, match="did not start") as failed:
            await asyncio.wait_for(server.url(heard.append), 120)
    finally:
        server.stop()
    message = str(failed.value)
    assert message.startswith("the background server did not start: ")
    assert "a unix socket address holds; use a shorter data folder" in message
    assert heard
    assert heard[0].startswith("starting the server (")


@pytest.mark.asyncio
async def test_the_first_screen_shows_at_once_and_says_what_the_server_is_doing(
    redis_url: str, redis: Redis
) -> None:
    up = asyncio.Event()

    async with serving(redis_url) as url:

        async def starting(progress: Callable[[str], None]) -> str:
            progress("starting Redis (2 s)")
            await up.wait()  # the server is held back until the test has looked
            return url

        app = ArenaApp(None, starting=starting)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in screen")
            line = app.screen.query_one("#connection", Static)
            await until(pilot, lambda: "starting Redis (2 s)" in str(line.render()), "progress")
            assert str(line.render()) == "● connecting: starting Redis (2 s)"
            up.set()
            await until(pilot, lambda: app.connection == "connected", "the connection")
            assert str(app.screen.query_one("#server", Static).render()) == url
            await pilot.press("ctrl+g")
            await until(pilot, lambda: app.user is not None, "signing in")
            await pilot.press("ctrl+q")
