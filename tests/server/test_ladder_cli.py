"""`arena ladder create|list|remove|standings` as a user runs them, `arena serve` starting its
private Redis with the default ladders, and an older data folder's ladders moved into its
database."""

import asyncio
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.clock import now_ms
from server.db import Database
from server.ladder.standing import WIDTH
from server.redis_embedded import EmbeddedRedis
from tests.server.db.test_moved_ladders import write_older_folder
from tests.server.ladder.rated import rated_game

COMMAND_SECONDS = 60  # for one command to run, so a command that hangs fails its test
START_SECONDS = 60  # for `arena serve` to listen (imports, a new Redis)
SERVING = re.compile(r"serving on (ws://\S+)")


def _env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_") and k != "REDIS_URL"}
    return {**clean, "PYTHONUNBUFFERED": "1"}


def _ladder_command(redis_url: str, data_dir: Path, *args: str) -> list[str]:
    """`arena ladder ARGS` on the Redis at `redis_url` and the database in `data_dir`."""
    ladder = [sys.executable, "-m", "server.cli", "ladder", *args]
    return [*ladder, "--redis-url", redis_url, "--data-dir", str(data_dir)]


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
            [
                sys.executable,
                "-m",
                "server.cli",
                "ladder",
                *args,
                "--redis-url",
                redis_url,
                "--data-dir",
                str(tmp_path),
            ],
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
    # A Bao ladder on the game's standard setup, when it names none.
    bao = arena("create", "bao-blitz", "--game", "bao", "--time", "30+0")
    assert (bao.returncode, bao.stdout) == (
        0,
        "created ladder bao-blitz: bao zanzibar 30+0\n",
    ), bao.stderr
    listed = arena("list")
    assert listed.stdout == (
        "bao-blitz  bao zanzibar 30+0  no bots connected\n"
        "blitz      amazons 8x8 30+1  no bots connected\n"
    ), listed.stderr
    again = arena("create", "blitz", "--setup", "6x6", "--time", "60+0")
    assert again.returncode == 2
    assert again.stderr == (
        "arena ladder create: error: there is a ladder blitz already; "
        "`arena ladder remove` it first\n"
    )
    removed = arena("remove", "BLITZ")
    assert (removed.returncode, removed.stdout) == (0, "removed ladder blitz\n"), removed.stderr
    assert arena("list").stdout == "bao-blitz  bao zanzibar 30+0  no bots connected\n"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["create", "x", "--setup", "7x7", "--time", "60+1"],
            "amazons has no setup '7x7': its setups are 10x10, 8x8, 6x6",
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
        (
            ["create", "x", "--game", "bao", "--setup", "10x10", "--time", "10+0"],
            "bao has no setup '10x10': its setups are zanzibar",
        ),
        (
            ["create", "x", "--setup", "zanzibar", "--time", "10+0"],
            "amazons has no setup 'zanzibar': its setups are 10x10, 8x8, 6x6",
        ),
        (
            ["create", "x", "--game", "chess", "--time", "10+0"],
            "unknown game 'chess': registered games are amazons, bao",
        ),
        (
            ["create", "x", "--game", "bao", "--time", "5+0"],
            "the server does not offer ladder x: time control 5+0 is not offered: the base "
            "must be 10 to 10800 s",
        ),
    ],
)
def test_bad_ladders_are_one_clear_line(
    args: list[str], error: str, redis_url: str, tmp_path: Path
) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "ladder",
            *args,
            "--redis-url",
            redis_url,
            "--data-dir",
            str(tmp_path),
        ],
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
            "bao   bao zanzibar 10+0  no bots connected\n"
            "fast  amazons 6x6 10+0  no bots connected\n"
            "main  amazons 10x10 60+1  no bots connected\n"
        ), listed.stderr
        # The standings asked of the server itself: no games yet, so only the heading.
        url = SERVING.search(line)
        assert url is not None
        asked = _arena("ladder", "standings", "main", "--server", url.group(1), data_dir=short_dir)
        assert (asked.returncode, asked.stdout) == (
            0,
            "rank  bot  rating  95%  games  won  score  glicko  seen  owner  engine\n",
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


# Recorded results of the `fast` ladder: (white, black, whether White won).
RESULTS = [
    ("ace", "bee", True),
    ("bee", "ace", False),
    ("ace", "cid", True),
    ("cid", "bee", True),
    ("cid", "ace", True),
    ("bee", "cid", True),
    ("ace", "bee", False),
    ("dee", "ace", False),
]


def test_standings_their_last_games_and_cross_table_count_the_recorded_results(
    redis_url: str, tmp_path: Path
) -> None:
    """Eight games rated on a ladder: the standings rank the bots by their results, with
    games and wins, Glicko-2 (provisional after so few games), when each was last seen, its
    owner and engine; the last games follow, the latest first, and `--cross` adds the cross
    table, every cell the wins and losses the results give."""
    now = now_ms()

    async def play() -> None:
        database = await Database.open(None, tmp_path)
        try:
            for number, (white, black, white_won) in enumerate(RESULTS):
                ended = now - (len(RESULTS) - number) * 3_600_000  # an hour apart
                await rated_game(
                    database, "fast", f"g{number}", white, black, white_won, ended=ended
                )
        finally:
            await database.close()

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "server.cli",
                "ladder",
                *args,
                "--redis-url",
                redis_url,
                "--data-dir",
                str(tmp_path),
            ],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
        )

    assert arena("create", "fast", "--setup", "6x6", "--time", "10+0").returncode == 0
    asyncio.run(play())
    shown = arena("standings", "FAST", "--cross")
    assert shown.returncode == 0, shown.stderr
    standings, games, cross = (part.splitlines() for part in shown.stdout.split("\n\n"))
    assert max(len(line) for line in shown.stdout.splitlines()) <= WIDTH
    heading, *rows = standings
    assert heading.split() == [
        "rank",
        "bot",
        "rating",
        "95%",
        "games",
        "won",
        "score",
        "glicko",
        "seen",
        "owner",
        "engine",
    ]
    wins = Counter(white if white_won else black for white, black, white_won in RESULTS)
    played = Counter(name for white, black, _ in RESULTS for name in (white, black))
    table = {row.split()[1]: row for row in rows}
    assert set(table) == set(played)
    for bot, row in table.items():
        cells = row.split()
        assert (int(cells[4]), int(cells[5])) == (played[bot], wins[bot]), row
        assert cells[7].endswith("?"), row
        # Never connected: seen at its last game's end; its own owner, no engine said.
        last = max(n for n, game in enumerate(RESULTS) if bot in game[:2])
        assert cells[8:] == [str(len(RESULTS) - last), "h", "ago", bot, "-"], row

    assert games[0].split() == ["game", "white", "black", "winner", "ended"]
    assert [line.split()[:4] for line in games[1:]] == [
        [f"g{n}", white, black, white if white_won else black]
        for n, (white, black, white_won) in reversed(list(enumerate(RESULTS)))
    ]

    ranked = [row.split()[1] for row in rows]
    assert cross[0].split() == ["rank", "bot", *map(str, range(1, len(ranked) + 1))]
    beat = Counter((white, black) if won else (black, white) for white, black, won in RESULTS)
    for place, (line, bot) in enumerate(zip(cross[1:], ranked, strict=True), start=1):
        rank, name, *cells = line.split()
        assert (rank, name) == (str(place), bot)
        cells.insert(place - 1, "")  # where the bot meets itself: blank
        for opponent, cell in zip(ranked, cells, strict=True):
            if opponent == bot:
                continue
            met = beat[(bot, opponent)] + beat[(opponent, bot)]
            expected = f"{beat[(bot, opponent)]}-{beat[(opponent, bot)]}" if met else "-"
            assert cell == expected, (bot, opponent)
    assert arena("standings", "fast").stdout.count("\n\n") == 1  # no cross table

    unknown = arena("standings", "nosuch")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("arena ladder standings: error: ")
    assert "nosuch" in unknown.stderr


def test_an_older_folders_ladders_move_to_the_database_once_and_it_says_so(
    tmp_path: Path,
) -> None:
    """A folder whose ladders today's code kept in Redis: the first command that opens its
    database moves them and says how much, and its standings are read from there."""
    folder = tmp_path / ".arena"

    async def write(url: str) -> None:
        client = aioredis.from_url(url)
        try:
            await write_older_folder(client)
        finally:
            await client.aclose()

    with EmbeddedRedis(folder) as redis:
        asyncio.run(write(redis.url))
    listed = _arena("ladder", "list", data_dir=folder)
    assert listed.returncode == 0, listed.stderr
    assert (
        "arena ladder list: moved 2 ladders, 3 ladder ratings, 2 ladder results, 3 ladder "
        f"history points and 0 games rated from Redis to sqlite:///{folder / 'arena.sqlite3'}"
    ) in listed.stderr, listed.stderr
    assert listed.stdout == (
        "bao   bao zanzibar 10+0  no bots connected\nfast  amazons 6x6 10+0  no bots connected\n"
    )
    again = _arena("ladder", "standings", "fast", data_dir=folder)
    assert "moved" not in again.stderr
    rows = {line.split()[1]: line.split() for line in again.stdout.splitlines()[1:4]}
    assert {name: row[4:6] for name, row in rows.items()} == {
        "Ada": ["2", "2"],
        "Bea": ["1", "0"],
        "greedy": ["1", "0"],
    }
