"""Bots written on the Python SDK (`clients.sdk`), against a server on real Redis: the example
plays whole games, from Python and from `arena bot --sdk` with `--games 2`; a method that
raises or answers wrong loses its game while the bot plays on; a dropped connection is
resumed and the game finished."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import ClassVar

import pytest
import pytest_asyncio
import structlog
from redis.asyncio import Redis

from clients import ArenaClient
from clients.bot import BotError, BotPlayer
from clients.bot_cli import main
from clients.engines import EngineError, GameSoFar
from clients.sdk import Bot, BotEngine, Turn, engines, load_bot, play_bot, policy_for
from engine.amazons import Position
from engine.search.bot import Budget, ClockReading
from server.app import Arena
from server.db import Database
from server.hub import user_channel
from server.identity import create_bot_token
from server.protocol import (
    Challenge,
    ChallengeAdded,
    ChallengeOutcome,
    ChallengeRemoved,
    Colour,
    ColourPreference,
    GameStatus,
    Termination,
    TimeControl,
)
from tests.server.endpoint import arena_serving, guest, play_out

BOT = "sdkbot"
TIMEOUT = 90  # seconds any one test may take before it is failed rather than left hanging
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"{ROOT / 'examples' / 'sdk_bot.py'}:FewestReplies"
FewestReplies = load_bot(EXAMPLE)


@pytest_asyncio.fixture
async def server(redis_url: str, database: Database) -> AsyncIterator[tuple[Arena, str]]:
    async with arena_serving(redis_url) as served:
        yield served


async def _until_online(arena: Arena) -> None:
    """Challenges reach only a bot that is connected: wait until the server follows its news."""
    while not arena.hub.followers(user_channel(BOT)):
        await asyncio.sleep(0.01)


async def _challenge(challenger: ArenaClient, setup: str = "6x6") -> str:
    """Challenge the bot, which plays White, and return the game its acceptance starts."""
    known = set(challenger.games)
    await challenger.request(
        Challenge(BOT, TimeControl(60, 0), setup=setup, colour=ColourPreference.BLACK),
        ChallengeAdded,
    )
    await challenger.wait_for(lambda c: bool(set(c.games) - known), timeout=30)
    (game_id,) = set(challenger.games) - known
    return game_id


def _replayed(start: str, moves: tuple[str, ...] | list[str]) -> Position:
    position = Position.parse(start)
    for text in moves:
        position.apply(position.parse_move(text))
    return position


class Recorder(FewestReplies):  # type: ignore[valid-type, misc]
    """The example, noting every turn it is given and the instance asked."""

    name = "recorder"
    turns: ClassVar[list[tuple[int, Turn]]] = []

    def choose_move(self, turn: Turn) -> str:
        self.turns.append((id(self), turn))
        move: str = super().choose_move(turn)
        return move


@pytest.mark.asyncio
async def test_an_sdk_bot_accepts_a_challenge_and_plays_a_game_to_its_end(
    server: tuple[Arena, str], redis: Redis, database: Database
) -> None:
    arena, url = server
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    Recorder.turns.clear()
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(play_bot(Recorder, url, token, stop=stop))
        await _until_online(arena)
        challenger = await guest(url)
        game_id = await _challenge(challenger)
        final = await play_out(challenger, game_id, seed=3)
        stop.set()
        await bot
        await challenger.close()
    assert (final.status, final.termination) == (GameStatus.ENDED, Termination.NO_LEGAL_MOVE)
    assert _replayed(final.start, final.moves).is_terminal()
    # White's every move was asked of one instance, with the game as it stood.
    assert len({instance for instance, _ in Recorder.turns}) == 1
    turns = [turn for _, turn in Recorder.turns]
    assert [turn.ply for turn in turns] == list(range(0, len(final.moves), 2))
    for turn in turns:
        assert (turn.game, turn.setup, turn.start, turn.side) == (
            "amazons",
            "6x6",
            final.start,
            Colour.WHITE,
        )
        assert turn.moves == tuple(final.moves[: turn.ply])
        assert turn.position_text == _replayed(final.start, turn.moves).text()
        assert final.moves[turn.ply] in turn.legal_moves
        assert turn.increment_ms == 0
        assert 0 < turn.move_ms < turn.own_ms <= 60_000
        assert 0 < turn.opponent_ms <= 60_000


@pytest.mark.asyncio
async def test_the_command_plays_two_games_at_once_with_games_2_and_declines_a_third(
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
            "--sdk",
            "examples/sdk_bot.py:FewestReplies",
            "--games",
            "2",
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=err,
        )
    try:
        async with asyncio.timeout(TIMEOUT):
            online = asyncio.create_task(_until_online(arena))
            await asyncio.wait(
                (online, asyncio.create_task(command.wait())), return_when="FIRST_COMPLETED"
            )
            online.cancel()
            assert not online.cancelled(), log.read_text()
            first, second, third = [await guest(url) for _ in range(3)]
            games = [await _challenge(first), await _challenge(second, "8x8")]
            made = await third.request(
                Challenge(BOT, TimeControl(60, 0), setup="6x6"), ChallengeAdded
            )
            removed = await third.next_news(ChallengeRemoved)
            assert removed.challenge_id == made.challenge.challenge_id
            assert removed.outcome is ChallengeOutcome.DECLINED
            assert not third.games
            finals = await asyncio.gather(
                play_out(first, games[0], seed=1), play_out(second, games[1], seed=2)
            )
            for final in finals:
                assert final.termination is Termination.NO_LEGAL_MOVE
            for client in (first, second, third):
                await client.close()
            command.send_signal(signal.SIGINT)
            assert await command.wait() == 0, log.read_text()
    finally:
        if command.returncode is None:
            command.kill()
            await command.wait()
    text = log.read_text()
    assert text.count('"event": "challenge_accepted"') == 2, text
    assert '"reason": "already playing 2 games"' in text, text


class Raiser(Bot):
    """Plays the first legal move, but on 6x6 raises at its second move."""

    name = "raiser"

    def choose_move(self, turn: Turn) -> str:
        if turn.setup == "6x6" and turn.ply == 2:
            raise ValueError("no idea what to do")
        return turn.legal_moves[0]


@pytest.mark.asyncio
async def test_a_method_that_raises_resigns_its_game_and_the_bot_plays_on(
    server: tuple[Arena, str], redis: Redis, database: Database
) -> None:
    arena, url = server
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    with structlog.testing.capture_logs() as logs:
        async with asyncio.timeout(TIMEOUT):
            bot = asyncio.create_task(play_bot(Raiser, url, token, stop=stop))
            await _until_online(arena)
            challenger = await guest(url)
            lost = await play_out(challenger, await _challenge(challenger))
            assert (lost.termination, lost.winner, lost.ply) == (
                Termination.RESIGNATION,
                Colour.BLACK,
                2,
            )
            won = await play_out(challenger, await _challenge(challenger, "8x8"))
            assert won.termination is Termination.NO_LEGAL_MOVE
            assert not bot.done()
            stop.set()
            await bot
            await challenger.close()
    failures = [e for e in logs if e["event"] == "engine_failed"]
    assert [(e["game_id"], e["ply"]) for e in failures] == [(lost.game_id, 2)]
    reason = failures[0]["reason"]
    assert reason.startswith("bot raiser raised ValueError: no idea what to do (test_sdk.py line ")
    assert reason.endswith(") at ply 2")
    assert "exc_info" not in failures[0]  # one line, no traceback


class Waiter(Bot):
    """Plays the first legal move; at ply 2 only once `go_on` is set."""

    name = "waiter"
    go_on: ClassVar[threading.Event] = threading.Event()

    def choose_move(self, turn: Turn) -> str:
        if turn.ply == 2:
            self.go_on.wait(TIMEOUT)
        return turn.legal_moves[0]


@pytest.mark.asyncio
async def test_a_connection_cut_mid_game_is_resumed_and_the_game_finished(
    server: tuple[Arena, str], redis: Redis, database: Database
) -> None:
    arena, url = server
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    Waiter.go_on.clear()
    with structlog.testing.capture_logs() as logs:
        player = BotPlayer(url, token, engines(Waiter), accept=policy_for(Waiter))
        async with asyncio.timeout(TIMEOUT):
            bot = asyncio.create_task(player.run(stop))
            await _until_online(arena)
            challenger = await guest(url)
            game_id = await _challenge(challenger)

            async def cut_while_thinking(ply: int) -> None:
                if ply == 1:
                    while (game_id, 2) not in player.thinking:
                        await asyncio.sleep(0.01)
                    for session in arena.sessions:
                        if session.user is not None and session.user.name == BOT:
                            session.socket.transport.abort()  # as a network failure would
                    while player.connections < 2:
                        await asyncio.sleep(0.01)
                    Waiter.go_on.set()

            final = await play_out(challenger, game_id, after=cut_while_thinking)
            stop.set()
            await bot
            await challenger.close()
    assert final.termination is Termination.NO_LEGAL_MOVE
    assert player.connections == 2
    moved = {e["ply"]: e["connection"] for e in logs if e["event"] == "moved"}
    assert (moved[0], moved[2]) == (1, 2)  # the move thought across the cut came on the next


class Broken(Bot):
    name = "broken"

    def __init__(self) -> None:
        raise RuntimeError("no weights file")

    def choose_move(self, turn: Turn) -> str:
        return turn.legal_moves[0]


@pytest.mark.asyncio
async def test_a_bot_that_cannot_be_made_stops_the_runner_before_it_connects() -> None:
    player = BotPlayer("ws://127.0.0.1:1", "bot_x", engines(Broken))
    async with asyncio.timeout(TIMEOUT):
        with pytest.raises(BotError) as stopped:
            await player.run(asyncio.Event())
    assert str(stopped.value).startswith(
        "bot broken raised RuntimeError: no weights file (test_sdk.py line "
    )
    assert str(stopped.value).endswith(") as it was made")
    assert player.connections == 0


def _first_game() -> GameSoFar:
    return GameSoFar.new("amazons", "6x6")


class Parrot(Bot):
    """Parrot what `answer` holds, whatever it is."""

    name = "parrot"
    answer: ClassVar[object] = None

    def choose_move(self, turn: Turn) -> str:
        return self.answer  # type: ignore[return-value]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("a1-a1/a1", "bot parrot answered the illegal move 'a1-a1/a1' at ply 0: "),
        ("pass", "bot parrot answered the illegal move 'pass' at ply 0: "),
        (None, "bot parrot returned None, not move text, at ply 0"),
    ],
)
async def test_an_answer_that_is_not_a_legal_move_is_an_engine_error(
    answer: object, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Parrot, "answer", answer)
    engine = BotEngine(Parrot)
    with pytest.raises(EngineError) as failed:
        await engine.choose(_first_game(), Budget(seconds=5))
    await engine.close()
    assert str(failed.value).startswith(reason)
    monkeypatch.setattr(Parrot, "answer", "B1c1/d1")  # any spelling the rules read
    engine = BotEngine(Parrot)
    assert await engine.choose(_first_game(), Budget(seconds=5)) == "b1-c1/d1"
    await engine.close()


class Sleeper(Bot):
    """Parrot once `go_on` is set (or after a minute)."""

    name = "sleeper"
    go_on: ClassVar[threading.Event] = threading.Event()

    def choose_move(self, turn: Turn) -> str:
        self.go_on.wait(60)
        return turn.legal_moves[0]


@pytest.mark.asyncio
async def test_a_slow_method_holds_up_neither_the_loop_nor_the_other_games() -> None:
    Sleeper.go_on.clear()
    one, other = BotEngine(Sleeper), BotEngine(Sleeper)
    clock = Budget(clock=ClockReading(own=60, opponent=60))
    async with asyncio.timeout(TIMEOUT):
        both = [asyncio.create_task(e.choose(_first_game(), clock)) for e in (one, other)]
        await asyncio.sleep(0.1)  # the loop runs while both methods wait in their threads
        assert not any(task.done() for task in both)
        Sleeper.go_on.set()
        first = _first_game().state
        assert await asyncio.gather(*both) == [first.format_move(next(iter(first.legal_moves)))] * 2
    for engine in (one, other):
        await engine.close()


@pytest.mark.asyncio
async def test_a_method_that_overruns_its_clock_is_given_up_as_too_late() -> None:
    Sleeper.go_on.clear()
    engine = BotEngine(Sleeper)
    async with asyncio.timeout(TIMEOUT):
        with pytest.raises(EngineError, match=r"^bot sleeper gave no move within 1\.1 s at ply 0"):
            await engine.choose(_first_game(), Budget(seconds=0.1))
    Sleeper.go_on.set()
    await engine.close()


def test_a_bot_is_named_by_file_or_module_and_class(tmp_path: Path) -> None:
    assert issubclass(load_bot(EXAMPLE), Bot)
    assert load_bot("tests.clients.test_sdk:Raiser") is Raiser
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('half written')\n")
    cases = {
        "examples/sdk_bot.py": "'examples/sdk_bot.py' names no bot class: give FILE.py:Class",
        f"{tmp_path}/missing.py:Bot": f"no Python file {tmp_path}/missing.py",
        f"{broken}:Bot": f"cannot load {broken}: RuntimeError: half written (broken.py line 1)",
        "tests.clients.test_sdk:Nobody": "tests.clients.test_sdk has no Nobody",
        "tests.clients.test_sdk:BOT": "BOT in tests.clients.test_sdk is not a subclass of",
        "no_such_module_here:Bot": "cannot import no_such_module_here: No module named",
    }
    for spec, error in cases.items():
        with pytest.raises(BotError, match="^" + re.escape(error)):
            load_bot(spec)
    with pytest.raises(BotError, match=r"^Bot does not define choose_move\(self, turn\)$"):
        engines(Bot)


def test_the_command_line_names_a_bad_sdk_bot(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--server", "ws://localhost:1", "--sdk", "tests.clients.test_sdk:BOT"])
    assert exited.value.code == 2
    assert "--sdk: BOT in tests.clients.test_sdk is not a subclass of clients.sdk.Bot" in (
        capsys.readouterr().err
    )


def test_run_names_what_it_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.delenv("ARENA_BOT_TOKEN", raising=False)
    with pytest.raises(BotError, match=r"^no server: give its URL or set ARENA_SERVER$"):
        Raiser.run()
    with pytest.raises(BotError, match=r"^no bot token: give it or set ARENA_BOT_TOKEN$"):
        Raiser.run("ws://127.0.0.1:1")
    monkeypatch.setenv("ARENA_BOT_TOKEN", "bot_x")
    with pytest.raises(BotError, match=r"^'http://x' is not a websocket URL"):
        Raiser.run("http://x")


def _python_block(page: str, heading: str) -> str:
    """The first Python code block after `heading` in the page `page` of the repository."""
    section = (ROOT / page).read_text().split(heading + "\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.asyncio
async def test_the_pages_show_bots_that_play() -> None:
    example = (ROOT / "examples" / "sdk_bot.py").read_text()
    assert example.endswith(_python_block("README.md", "### A bot in Python"))
    shown: dict[str, object] = {"__name__": "first_move"}
    exec(_python_block("docs/bot-protocol.md", "## A bot in Python"), shown)
    first_move = shown["FirstMove"]
    assert isinstance(first_move, type)
    assert issubclass(first_move, Bot)
    engine = BotEngine(first_move)
    game = _first_game()
    assert (
        await engine.choose(game, Budget(seconds=5)) in Turn.of(game, Budget(seconds=5)).legal_moves
    )
    await engine.close()


def test_a_bot_file_imports_what_lies_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "openings.py").write_text('FIRST = "b1-c1/d1"\n')
    (tmp_path / "random.py").write_text(
        "from clients.sdk import Bot, Turn\n"
        "from openings import FIRST\n\n\n"
        "class Opener(Bot):\n"
        "    def choose_move(self, turn: Turn) -> str:\n"
        "        return FIRST\n"
    )
    opener = load_bot(f"{tmp_path / 'random.py'}:Opener")
    assert opener().choose_move(Turn.of(_first_game(), Budget(seconds=1))) == "b1-c1/d1"
    assert sys.modules["random"] is random  # the standard module, not the bot's file so named


class BaoTurns(Bot):
    """Plays Bao by the last of the legal moves, keeping the turns it was given."""

    name = "bao-turns"
    games = frozenset({"bao"})
    seen: ClassVar[list[Turn]] = []

    def choose_move(self, turn: Turn) -> str:
        self.seen.append(turn)
        return turn.legal_moves[-1]


@pytest.mark.asyncio
async def test_an_sdk_bot_plays_bao_from_its_turns_legal_moves() -> None:
    BaoTurns.seen.clear()
    engines = [BotEngine(BaoTurns), BotEngine(BaoTurns)]
    game = GameSoFar.new("bao")
    clock = Budget(clock=ClockReading(own=10, opponent=10))
    async with asyncio.timeout(TIMEOUT):
        while not game.state.is_terminal():
            game = game.after(await engines[len(game.moves) % 2].choose(game, clock))
    for engine in engines:
        await engine.close()
    first = BaoTurns.seen[0]
    assert (first.game, first.setup, first.side, first.ply) == ("bao", "zanzibar", Colour.WHITE, 0)
    assert first.position_text == first.start == game.start
    assert first.legal_moves == ("A6>", "A6<", "A7>", "A7<")
    second = BaoTurns.seen[1]
    assert (second.side, second.moves) == (Colour.BLACK, ("A7<",))
    # Every move played was the last legal one of its turn, and the game went to its end.
    assert game.moves == tuple(turn.legal_moves[-1] for turn in BaoTurns.seen)
    assert len(game.moves) >= 8
