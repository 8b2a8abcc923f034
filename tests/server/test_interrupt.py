"""Ctrl-C on `arena serve` in a terminal: the signal reaches every process of the group (the
server, its worker, its analysis child), and the stop prints no traceback."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from clients import ArenaClient, ArenaError
from server.protocol import Analysis, Analyze, ErrorCode

ROOT = Path(__file__).resolve().parents[2]
SERVING = re.compile(rb"serving on (ws://\S+)")
TIMEOUT = 120  # generous: a loaded two-core machine starts processes slowly


@pytest.mark.asyncio
async def test_ctrl_c_on_arena_serve_stops_it_and_its_children_without_a_traceback(
    tmp_path: Path,
) -> None:
    errors = tmp_path / "stderr"
    with errors.open("wb") as stderr:
        server = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--data-dir",
            str(tmp_path / "data"),
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,  # a terminal's process group, which Ctrl-C signals whole
        )
    try:
        async with asyncio.timeout(TIMEOUT):
            assert server.stdout is not None
            found = None
            while found is None:
                line = await server.stdout.readline()
                assert line, errors.read_text(errors="replace")[-3000:]
                found = SERVING.search(line)
            client = await ArenaClient.connect(found.group(1).decode())
            await client.guest()
            # The analysis runs in a child process of the worker's, which Ctrl-C reaches too;
            # asked again, as a client does, until the worker is up.
            while True:
                try:
                    await client.request(Analyze(position="4/Wx2/2xB/4 w"), Analysis)
                    break
                except ArenaError as refused:
                    if refused.reply.code is not ErrorCode.UNAVAILABLE:
                        raise
                    await asyncio.sleep(refused.reply.retry_after or 1)
            await client.close()
            os.killpg(server.pid, signal.SIGINT)
            assert await server.wait() == 0
            # Its worker and the analysis child leave the group too.
            while _group_alive(server.pid):
                await asyncio.sleep(0.1)
    finally:
        if server.returncode is None:
            os.killpg(server.pid, signal.SIGKILL)
            await server.wait()
    written = errors.read_text(errors="replace")
    assert "Traceback" not in written, written[-3000:]
    assert "KeyboardInterrupt" not in written, written[-3000:]


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
