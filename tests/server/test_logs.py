"""Log lines written while a request is handled carry its game and ply."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator

import pytest
import structlog

from server.logs import REQUEST, configure_logging


@pytest.fixture
def output() -> Iterator[io.StringIO]:
    """The server's log configuration (JSON lines, as stderr is no terminal here), written
    to a buffer."""
    configure_logging()
    buffer = io.StringIO()
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(buffer))
    yield buffer
    structlog.reset_defaults()


def _read(output: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in output.getvalue().splitlines()]


def test_a_request_s_game_and_ply_go_on_every_line_until_it_ends(output: io.StringIO) -> None:
    log = structlog.get_logger("test")
    token = REQUEST.set({"game_id": "g1", "ply": 7})
    log.info("inside", user="ann")
    log.info("explicit", game_id="g2")  # what a call names itself wins
    REQUEST.reset(token)
    log.info("after")
    inside, explicit, after = _read(output)
    assert (inside["game_id"], inside["ply"], inside["user"]) == ("g1", 7, "ann")
    assert (explicit["game_id"], explicit["ply"]) == ("g2", 7)
    assert "game_id" not in after
    assert "ply" not in after


@pytest.mark.asyncio
async def test_each_task_logs_its_own_request(output: io.StringIO) -> None:
    log = structlog.get_logger("test")

    async def handle(game_id: str, pause: float) -> None:
        token = REQUEST.set({"game_id": game_id})
        await asyncio.sleep(pause)
        log.info("handled")
        REQUEST.reset(token)

    await asyncio.gather(handle("slow", 0.02), handle("fast", 0.0))
    assert [line["game_id"] for line in _read(output)] == ["fast", "slow"]
