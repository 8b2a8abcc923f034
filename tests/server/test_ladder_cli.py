"""`arena ladder create|list|remove` as a user runs them, and `arena serve` starting its
private Redis with the default ladders."""

import asyncio
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.ladder.pairing import Pairing
from server.ladder.store import LadderStore

COMMAND_SECONDS = 60  # for one command to run, so a command that hangs fails its test
START_SECONDS = 60  # for `arena serve` to listen (imports, a new Redis)
SERVING = re.compile(r"serving on (ws://\S+)")


def _env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_") and k != "REDIS_URL"}
    return {**clean, "PYTHONUNBUFFERED": "1"}


def _arena(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args, "--data-dir", str(data_dir)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )


def test_ladders_are_created_listed_and_removed(redis_url: str, tmp_path: Path) -> None:
    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "server.cli", "ladder", *args, "--redis-url", redis_url],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
        )

    created = arena("create", "Blitz", "--setup", "8x8", "--time", "30+1")
    assert (created.returncode, created.stdout) == (
        0,
        "created ladder blitz: amazons 8x8 30+1\n",
    ), created.stderr
    listed = arena("list")
    assert "blitz  amazons 8x8 30+1  no bots connected\n" in listed.stdout, listed.stderr
    again = arena("create", "blitz", "--setup", "6x6", "--time", "60+0")
    assert again.returncode == 2
    assert again.stderr == (
        "arena ladder create: error: there is a ladder blitz already; "
        "`arena ladder remove` it first\n"
    )
    removed = arena("remove", "BLITZ")
    assert (removed.returncode, removed.stdout) == (0, "removed ladder blitz\n"), removed.stderr
    assert "blitz" not in arena("list").stdout


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["create", "x", "--setup", "7x7", "--time", "60+1"],
            "the server does not offer ladder x: setup '7x7' is not offered for amazons; "
            "offered: 10x10, 8x8, 6x6",
        ),
        (
            ["create", "x", "--setup", "6x6", "--time", "5+0"],
            "the server does not offer ladder x: time control 5+0 is not offered: the base "
            "must be 10 to 10800 s",
        ),
        (
            ["create", "x", "--setup", "6x6", "--time", "10+0.1"],
            "time control '10+0.1' is not BASE+INCREMENT in whole seconds (as in 60+1)",
        ),
        (["remove", "nowhere"], "no ladder nowhere; there are no ladders"),
    ],
)
def test_bad_ladders_are_one_clear_line(
    args: list[str], error: str, redis_url: str, tmp_path: Path
) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushall()
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "ladder", *args, "--redis-url", redis_url],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )
    assert result.returncode == 2
    assert result.stderr == f"arena ladder {args[0]}: error: {error}\n"


def test_serve_with_its_private_redis_starts_with_the_default_ladders(short_dir: Path) -> None:
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "server.cli", "serve"),
            *("--port", "0", "--workers", "0", "--data-dir", str(short_dir)),
        ],
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        deadline = time.monotonic() + START_SECONDS
        line = ""
        while not SERVING.search(line) and time.monotonic() < deadline:
            ready, _, _ = select.select([server.stdout], [], [], 1.0)
            if ready:
                line = server.stdout.readline()
        assert SERVING.search(line), "arena serve did not start"
        listed = _arena("ladder", "list", data_dir=short_dir)
        assert listed.stdout == (
            "fast  amazons 6x6 10+0  no bots connected\n"
            "main  amazons 10x10 60+1  no bots connected\n"
        ), listed.stderr
        # The standings asked of the server itself: no games yet, so only the heading.
        url = SERVING.search(line)
        assert url is not None
        asked = _arena("ladder", "standings", "main", "--server", url.group(1), data_dir=short_dir)
        assert (asked.returncode, asked.stdout) == (
            0,
            "rank  bot  rating  95%  games  won  score  glicko  online\n",
        ), asked.stderr
        unknown = _arena("ladder", "standings", "x", "--server", url.group(1), data_dir=short_dir)
        assert unknown.returncode == 2
        assert unknown.stderr.startswith(
            f"arena ladder standings: error: the server at {url.group(1)} says: no ladder x"
        ), unknown.stderr
    finally:
        if server.stdout is not None:
            server.stdout.close()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(COMMAND_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_standings_rank_the_bots_by_their_results(redis_url: str, tmp_path: Path) -> None:
    """Four games rated on a ladder: the standings rank the bot that won them all first, with
    its games, wins, score and Glicko-2 rating (provisional after so few games)."""

    async def play() -> None:
        redis = aioredis.from_url(redis_url)
        try:
            store = LadderStore(redis)
            games = [("ace", "bee"), ("bee", "ace"), ("ace", "cid"), ("cid", "bee")]
            for number, (white, black) in enumerate(games):
                game_id = f"g{number}"
                await store.started("fast", Pairing(white, black), game_id)
                winner_is_white = white == "ace" or (white, black) == ("cid", "bee")
                await store.rate("fast", game_id, white, black, white_won=winner_is_white)
        finally:
            await redis.aclose()

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "server.cli", "ladder", *args, "--redis-url", redis_url],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
        )

    assert arena("create", "fast", "--setup", "6x6", "--time", "10+0").returncode == 0
    asyncio.run(play())
    shown = arena("standings", "FAST")
    assert shown.returncode == 0, shown.stderr
    heading, *rows = shown.stdout.splitlines()
    assert heading.split() == [
        "rank",
        "bot",
        "rating",
        "95%",
        "games",
        "won",
        "score",
        "glicko",
        "online",
    ]
    table = [row.split() for row in rows]
    # ace won 3 of 3, cid 1 of 2, bee 0 of 3.
    assert [(r[0], r[1], r[4], r[5], r[6]) for r in table] == [
        ("1", "ace", "3", "3", "100.0%"),
        ("2", "cid", "2", "1", "50.0%"),
        ("3", "bee", "3", "0", "0.0%"),
    ]
    assert all(r[7].endswith("?") and r[8] == "no" for r in table)
    unknown = arena("standings", "nosuch")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("arena ladder standings: error: ")
    assert "nosuch" in unknown.stderr
