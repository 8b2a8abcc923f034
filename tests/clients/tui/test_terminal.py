"""`arena play` leaves the terminal as it found it: in tmux, after the window has grown under
the client and Ctrl-Q ends it, only the shell's own lines are left (the client's last frame
stayed there before). Run in a tmux server of the test's own, the client on a server in the
test process."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from tests.server.endpoint import serving

WAIT_SECONDS = 60.0  # for the client to start, draw or end, on a loaded machine
ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


@pytest.fixture
def tmux() -> Iterator[Callable[..., str]]:
    """`tmux(*arguments)`: tmux's output, on a tmux server of this test's own."""
    socket = f"arena-test-{os.getpid()}"
    # The terminal's size is the pane's: COLUMNS and LINES, where the tests run with them, would
    # hold the client at theirs.
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}

    def run(*arguments: str) -> str:
        command = ["tmux", "-L", socket, *arguments]
        done = subprocess.run(command, check=True, capture_output=True, text=True, env=environment)
        return done.stdout

    yield run
    subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, capture_output=True)


async def showing(tmux: Callable[..., str], check: Callable[[list[str]], bool], what: str) -> None:
    """Wait until the pane's lines pass `check`; fail naming `what`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not check(tmux("capture-pane", "-p", "-t", "play").splitlines()):
        if loop.time() > deadline:
            screen = tmux("capture-pane", "-p", "-t", "play")
            pytest.fail(f"waited {WAIT_SECONDS:g} s for {what}; the pane:\n{screen}")
        await asyncio.sleep(0.1)


@pytest.mark.asyncio
async def test_ctrl_q_after_the_terminal_grew_leaves_only_the_shells_lines(
    redis_url: str, redis: Redis, tmux: Callable[..., str]
) -> None:
    async with serving(redis_url) as url:
        play = shlex.join([sys.executable, "-m", "server.cli", "play", url])
        shell = f"echo BEFORE; {play}; echo EXITED $?; sleep 600"
        tmux("new-session", "-d", "-s", "play", "-x", "80", "-y", "24", "-c", str(ROOT), shell)
        await showing(tmux, lambda lines: any("guest" in line for line in lines), "sign-in")
        tmux("send-keys", "-t", "play", "C-g")
        # The lobby's first line, the connection's state at its right end.
        await showing(tmux, lambda lines: lines[0].rstrip().endswith("connected"), "the lobby")
        tmux("resize-window", "-t", "play", "-x", "120", "-y", "40")
        await showing(tmux, lambda lines: len(lines[0].rstrip()) > 100, "the lobby at 120x40")
        tmux("send-keys", "-t", "play", "C-q")
        await showing(tmux, lambda lines: "EXITED 0" in lines, "the client to end")
        lines = tmux("capture-pane", "-p", "-t", "play").splitlines()
        assert [line for line in lines if line.strip()] == ["BEFORE", "EXITED 0"]
