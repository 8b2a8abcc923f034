"""Bots whose moves come from a program (`arena bot --engine-cmd`), against a server on real
Redis: the example programs play whole games, and a program that goes wrong loses its game by
the rules while the bot goes on to the next."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import structlog
from redis.asyncio import Redis

from clients import ArenaClient, GameView
from clients.bot import BotPlayer
from clients.bot_cli import main
from clients.program import ProgramEngine
from engine.amazons import Position
from server.app import Arena
from server.db import Database
from server.hub import user_channel
from server.identity import create_bot_token
from server.offers import TimeControls
from server.protocol import (
    Challenge,
    ChallengeAdded,
    Colour,
    ColourPreference,
    GameStatus,
    Termination,
    TimeControl,
)
from tests.server.endpoint import arena_serving, guest, play_out

BOT = "progbot"
TIMEOUT = 60  # seconds any one test may take before it is failed rather than left hanging
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RANDOM_BOT = [sys.executable, str(EXAMPLES / "random_bot.py")]
FIRST_LEGAL = ["sh", str(EXAMPLES / "first_legal.sh")]


@pytest_asyncio.fixture
async def server(redis_url: str, database: Database) -> AsyncIterator[tuple[Arena, str]]:
    # Bases from 1 s, so a program that never answers loses on time within a test.
    async with arena_serving(redis_url, time_controls=TimeControls.parse("1-600+10")) as served:
        yield served


async def _until_online(arena: Arena) -> None:
    """Challenges reach only a bot that is connected: wait until the server follows its news."""
    while not arena.hub.followers(user_channel(BOT)):
        await asyncio.sleep(0.01)


async def _challenge(challenger: ArenaClient, time: TimeControl) -> str:
    """Challenge the bot, which plays White, and return the game its acceptance starts."""
    known = set(challenger.games)
    await challenger.request(
        Challenge(BOT, time, setup="6x6", colour=ColourPreference.BLACK), ChallengeAdded
    )
    await challenger.wait_for(lambda c: bool(set(c.games) - known), timeout=10)
    (game_id,) = set(challenger.games) - known
    return game_id


def _check_played_out(view: GameView) -> None:
    """The game ended by the rules with no legal move left, every move legal."""
    assert (view.status, view.termination) == (GameStatus.ENDED, Termination.NO_LEGAL_MOVE)
    position = Position.parse(view.start)
    for text in view.moves:
        position.apply(position.parse_move(text))
    assert position.is_terminal()
    assert len(view.moves) >= 8


@pytest.mark.asyncio
async def test_the_shell_example_plays_a_whole_game_through_the_runner(
    server: tuple[Arena, str], redis: Redis, database: Database
) -> None:
    arena, url = server
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    async with asyncio.timeout(TIMEOUT):
        player = BotPlayer(url, token, lambda: ProgramEngine(FIRST_LEGAL))
        bot = asyncio.create_task(player.run(stop))
        await _until_online(arena)
        challenger = await guest(url)
        game_id = await _challenge(challenger, TimeControl(60, 0))
        _check_played_out(await play_out(challenger, game_id))
        stop.set()
        await bot
        await challenger.close()


@pytest.mark.asyncio
async def test_the_command_plays_a_whole_game_with_the_python_example(
    server: tuple[Arena, str], redis: Redis, tmp_path: Path, database: Database
) -> None:
    arena, url = server
    log = tmp_path / "bot.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_BOT_TOKEN"] = await create_bot_token(database, BOT)
    with log.open("wb") as err:
        command = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "clients.bot_cli",
            "--server",
            url,
            "--engine-cmd",
            " ".join(RANDOM_BOT),
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=err,
        )
    try:
        async with asyncio.timeout(TIMEOUT):
            await _until_online(arena)
            challenger = await guest(url)
            game_id = await _challenge(challenger, TimeControl(60, 0))
            _check_played_out(await play_out(challenger, game_id))
            await challenger.close()
            command.send_signal(signal.SIGINT)
            assert await command.wait() == 0, log.read_text()
    finally:
        if command.returncode is None:
            command.kill()
            await command.wait()
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    # Started once at start-up, to shake hands, and once for the game: no more.
    ready = [entry for entry in logged if entry["event"] == "program_ready"]
    assert [entry["program"] for entry in ready] == ["random-example"] * 2
    assert len({entry["pid"] for entry in ready}) == 2
    # The log names the program as the standings do: by the name it gives, not its command.
    engines = {entry["engine"] for entry in logged if "engine" in entry}
    assert engines == {"random-example"}


# A program that plays random legal moves (by the Python example's move generator), except at
# its second move of the first game that reaches one, where it does MISDEED.
MISBEHAVING = """
import os, sys, time
sys.path.insert(0, {examples!r})
import random_bot

def say(line):
    print(line, flush=True)

position, goes = None, 0
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "arena":
        say("name misbehaving")
        say("games amazons")
        say("ready")
    elif word == "position":
        position = rest
    elif word == "go":
        goes += 1
        if goes == 2 and not os.path.exists({marker!r}):
            open({marker!r}, "w").close()
            {misdeed}
        say(random_bot.choose(position))
    elif word == "quit":
        break
"""


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("misdeed", "reason", "terminations"),
    [
        (
            'say("move a1-a1/a1")',
            "engine program misbehaving answered the illegal move 'a1-a1/a1' at ply 2",
            {Termination.RESIGNATION},
        ),
        (
            'say("thinking hard...")',
            "engine program misbehaving wrote 'thinking hard...', which the protocol has no "
            "place for at ply 2",
            {Termination.RESIGNATION},
        ),
        (
            "sys.exit(5)",
            "engine program misbehaving exited with status 5 at ply 2",
            {Termination.RESIGNATION},
        ),
        # Silent: whichever comes first ends the game, the server's clock (the usual) or the
        # client giving up a second after the program's time is gone; either way one line
        # names the program's failure.
        (
            "time.sleep(60)",
            (
                "engine misbehaving gave no move within ",
                "engine program misbehaving gave no move within ",
            ),
            {Termination.TIME_FORFEIT, Termination.RESIGNATION},
        ),
    ],
)
async def test_a_program_that_goes_wrong_loses_that_game_and_the_bot_plays_on(
    server: tuple[Arena, str],
    redis: Redis,
    tmp_path: Path,
    misdeed: str,
    reason: str | tuple[str, ...],
    terminations: set[Termination],
    database: Database,
) -> None:
    arena, url = server
    source = tmp_path / "misbehaving.py"
    marker = tmp_path / "misbehaved"
    source.write_text(
        MISBEHAVING.format(examples=str(EXAMPLES), marker=str(marker), misdeed=misdeed)
    )
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    with structlog.testing.capture_logs() as logs:
        async with asyncio.timeout(TIMEOUT):
            player = BotPlayer(url, token, lambda: ProgramEngine([sys.executable, str(source)]))
            bot = asyncio.create_task(player.run(stop))
            await _until_online(arena)
            challenger = await guest(url)
            lost = await play_out(challenger, await _challenge(challenger, TimeControl(2, 1)))
            assert marker.exists()
            assert (lost.winner, lost.termination in terminations) == (Colour.BLACK, True)
            assert len(lost.moves) == 2  # lost at the bot's second move
            # The next game has a program of its own, which plays it out.
            game_id = await _challenge(challenger, TimeControl(60, 0))
            _check_played_out(await play_out(challenger, game_id))
            stop.set()
            await bot
            await challenger.close()
    failures = [entry["reason"] for entry in logs if entry["event"] == "engine_failed"]
    assert failures == [failures[0]]
    assert failures[0].startswith(reason)
    if lost.termination is Termination.TIME_FORFEIT:
        # The server's clock ran out first: the runner still names what the program did.
        assert failures[0].endswith(
            "the server's clock ran out first, and the game was lost on time"
        )
    resignations = [entry["reason"] for entry in logs if entry["event"] == "resigning"]
    assert resignations == (failures if lost.termination is Termination.RESIGNATION else [])


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    """`arena bot ARGS` as its own process (it sets up logging for the whole process), with no
    ARENA_ setting of this environment; the test fails if it runs past TIMEOUT."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run(
        [sys.executable, "-m", "clients.bot_cli", "--server", "ws://x", "--token", "t", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_a_command_that_does_not_start_is_one_line_and_status_2() -> None:
    done = _command("--engine-cmd", "/nonexistent/engine -q")
    assert done.returncode == 2
    assert done.stderr == (
        "arena bot: error: cannot start engine program /nonexistent/engine -q: "
        "No such file or directory\n"
    )


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("print('hello', flush=True)", "wrote 'hello', which the protocol has no place for"),
        (
            "import sys\nsys.stdin.readline()\n"
            "print('name chess-engine\\ngames chess\\nready', flush=True)\nsys.stdin.read()",
            "engine program chess-engine plays none of the games here (chess): they are amazons",
        ),
    ],
)
def test_a_program_that_cannot_play_here_stops_the_command_before_it_connects(
    program: str, message: str, tmp_path: Path
) -> None:
    source = tmp_path / "program.py"
    source.write_text(program)
    done = _command("--engine-cmd", f"{sys.executable} {source}")
    assert done.returncode == 2
    # The log's lines (the program's handshake, when it made one) come first, the error last.
    *logged, said = done.stderr.splitlines()
    assert said.startswith("arena bot: error: ")
    assert message in said
    assert not any("arena bot" in line or "Traceback" in line for line in logged)


def test_engine_and_engine_cmd_are_one_or_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--engine", "random", "--engine-cmd", "sh x.sh"])
    assert exit.value.code == 2
    assert "argument --engine-cmd: not allowed with argument --engine" in capsys.readouterr().err
