"""An engine that is a program of any language, spoken to over its stdin and stdout by the line
protocol of docs/bot-protocol.md, which tells a program that asks for it every legal move, so
it plays any registered game without rules of its own. `ProgramEngine` starts one program for
each game, shakes hands with it, asks it for each move and ends it when the game ends; whatever
the program does wrong (it does not start, writes garbage, answers an illegal move or late,
dies) is an `EngineError` with one line that says so. What the program writes on stderr goes
to the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import structlog

from clients.engines import EngineError, GameSoFar
from engine.errors import NotationError
from engine.search.bot import Budget

__all__ = [
    "HANDSHAKE_SECONDS",
    "LATE_SECONDS",
    "PROTOCOL_VERSION",
    "Handshake",
    "ProgramEngine",
    "greet",
    "reusing",
    "split_command",
]

log = structlog.get_logger(__name__)

PROTOCOL_VERSION = 1  # sent as `arena 1`, the first line a program reads
HANDSHAKE_SECONDS = 10.0  # for a program to start and say `ready`
# An answer this long past the time the program's own clock gave it is late: by then the
# server has normally ended the game on time.
LATE_SECONDS = 1.0
QUIT_SECONDS = 2.0  # for a program told `quit` to exit before it is killed
EXIT_SECONDS = 1.0  # for a program that closed its output to exit, so its status can be told
MAX_LINE = 64 * 1024  # bytes in one line from a program; a longer one is garbage
SHOWN = 60  # characters of a garbage line quoted in an error


@dataclass(frozen=True, slots=True)
class Handshake:
    """What a program says of itself before `ready`: its name, the games it plays, and whether
    it asked for the `legal` line before each `go`."""

    name: str
    games: tuple[str, ...]
    legal: bool = False


def split_command(text: str) -> list[str]:
    """The words of an engine command as a shell would split them; an EngineError when there
    are none or a quote is not closed."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise EngineError(f"cannot read the engine command {text!r}: {error}") from None
    if not words:
        raise EngineError("the engine command is empty")
    return words


async def greet(command: Sequence[str]) -> Handshake:
    """Start the program `command`, shake hands and end it: what it says of itself, or an
    EngineError naming why it cannot play."""
    engine = ProgramEngine(command)
    try:
        await engine.prepare()
        assert engine.handshake is not None
        return engine.handshake
    finally:
        await engine.close()


def reusing(first: ProgramEngine) -> Callable[[], ProgramEngine]:
    """A maker of engines of `first`'s program whose first engine is `first` itself, already
    started and shaken hands with: the runner's check at start-up is then that start, not a
    second one."""
    spare = [first]

    def make() -> ProgramEngine:
        return spare.pop() if spare else ProgramEngine(first.command)

    return make


class ProgramEngine:
    """One game's program: started by `prepare`, asked for moves by `choose`, ended by
    `close`. The runner makes one for every game, so a program that dies costs one game."""

    def __init__(self, command: Sequence[str]) -> None:
        self._command = tuple(command)
        self._process: asyncio.subprocess.Process | None = None
        self._stderr: asyncio.Task[None] | None = None
        self._told_game = False
        self.handshake: Handshake | None = None

    @property
    def command(self) -> tuple[str, ...]:
        return self._command

    @property
    def name(self) -> str:
        """The program's own name once it has said it at the handshake, its command before."""
        return shlex.join(self._command) if self.handshake is None else self.handshake.name

    def _who(self) -> str:
        """The program as errors name it."""
        return f"engine program {self.name}"

    async def prepare(self) -> None:
        """Start the program and shake hands: `arena 1`, answered by `name`, `games`, `legal`
        if it wants the legal moves, and `ready` within HANDSHAKE_SECONDS."""
        if self.handshake is not None:
            return
        if self._process is not None:
            raise EngineError(f"{self._who()} failed its handshake")
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self._command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=MAX_LINE,
                # A group of its own: Ctrl-C at the bot's terminal reaches the bot, which ends
                # the program by the protocol, and a kill reaches what the program started.
                start_new_session=True,
            )
        except OSError as error:
            reason = error.strerror or str(error)
            raise EngineError(f"cannot start {self._who()}: {reason}") from None
        self._stderr = asyncio.create_task(self._relay_stderr())
        # A program may exit before it is told anything (having written why, perhaps): what it
        # wrote, read below, names it better than the pipe it left closed.
        with contextlib.suppress(EngineError):
            await self._send([f"arena {PROTOCOL_VERSION}"], "at the handshake")
        name: str | None = None
        games: tuple[str, ...] | None = None
        legal = False
        try:
            async with asyncio.timeout(HANDSHAKE_SECONDS):
                while (line := await self._line("at the handshake")) != "ready":
                    word, _, rest = line.partition(" ")
                    if word == "name" and rest.strip():
                        name = rest.strip()
                    elif word == "games" and rest.split():
                        games = tuple(rest.split())
                    elif line == "legal":
                        legal = True
                    elif word == "error":
                        raise EngineError(f"{self._who()} will not play: {rest.strip()}")
                    else:
                        raise EngineError(f"{self._who()} {_garbage(line)} at the handshake")
        except TimeoutError:
            await self._kill()
            raise EngineError(
                f"{self._who()} did not say ready within {HANDSHAKE_SECONDS:g} s"
            ) from None
        if name is None or games is None:
            missing = " and ".join(w for w, v in (("name", name), ("games", games)) if v is None)
            raise EngineError(f"{self._who()} said ready without its {missing}")
        self.handshake = Handshake(name, games, legal)
        log.info(
            "program_ready", program=name, games=list(games), legal=legal, pid=self._process.pid
        )

    async def choose(self, game: GameSoFar, budget: Budget) -> str:
        """Tell the program the game and its clocks, `go`, and read its `move`; the move is
        checked here, so an illegal one never reaches the server."""
        await self.prepare()
        when = f"at ply {len(game.moves)}"
        own, opponent, increment = _clocks(budget)
        lines = []
        if not self._told_game:
            lines.append(f"game {game.game} {game.setup or '-'} {game.start}")
            self._told_game = True
        lines += [
            f"position {game.state.text()}",
            " ".join(("moves", *game.moves)),
            f"clocks {own} {opponent} {increment}",
        ]
        assert self.handshake is not None
        if self.handshake.legal:
            lines.append(" ".join(("legal", *game.legal_moves)))
        lines.append("go")
        await self._send(lines, when)
        wait = own / 1000 + LATE_SECONDS
        try:
            async with asyncio.timeout(wait):
                line = await self._line(when)
        except TimeoutError:
            await self._kill()
            raise EngineError(
                f"{self._who()} gave no move within {wait:.1f} s {when}: too late, so it was ended"
            ) from None
        word, _, rest = line.partition(" ")
        text = rest.strip()
        if word == "move" and text:
            try:
                move = game.state.parse_move(text)
            except NotationError as error:
                raise EngineError(
                    f"{self._who()} answered a move that cannot be read, {text!r}, {when}: {error}"
                ) from None
            except ValueError as error:
                raise EngineError(
                    f"{self._who()} answered the illegal move {text!r} {when}: {error}"
                ) from None
            return game.state.format_move(move)
        if word == "error":
            raise EngineError(f"{self._who()} gave up {when}: {text}")
        raise EngineError(f"{self._who()} {_garbage(line)} {when}")

    async def close(self) -> None:
        """Tell the program `quit` and let it exit, or kill it after QUIT_SECONDS."""
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            assert process.stdin is not None
            if not process.stdin.is_closing():
                with contextlib.suppress(ConnectionError, RuntimeError):
                    process.stdin.write(b"quit\n")
                    await process.stdin.drain()
                process.stdin.close()
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for loses a cancellation that
            # comes as the program exits, and the runner cancels this as the bot stops.
            try:
                async with asyncio.timeout(QUIT_SECONDS):
                    await process.wait()
            except TimeoutError:
                await self._kill()
        if self._stderr is not None:
            # Something the program started may hold its stderr open after it exits.
            _, relaying = await asyncio.wait({self._stderr}, timeout=EXIT_SECONDS)
            for task in relaying:
                task.cancel()
            await asyncio.gather(self._stderr, return_exceptions=True)

    async def _send(self, lines: list[str], when: str) -> None:
        assert self._process is not None
        assert self._process.stdin is not None
        try:
            self._process.stdin.write("".join(f"{line}\n" for line in lines).encode())
            await self._process.stdin.drain()
        except (ConnectionError, RuntimeError):
            raise EngineError(f"{self._who()} {await self._ended()} {when}") from None

    async def _line(self, when: str) -> str:
        """The program's next line on stdout, without its line end."""
        assert self._process is not None
        assert self._process.stdout is not None
        try:
            raw = await self._process.stdout.readline()
        except ValueError:  # no line end within MAX_LINE bytes
            await self._kill()
            raise EngineError(
                f"{self._who()} wrote a line longer than {MAX_LINE} bytes {when}"
            ) from None
        if not raw.endswith(b"\n"):
            raise EngineError(f"{self._who()} {await self._ended()} {when}")
        try:
            return raw.decode().rstrip("\r\n")
        except UnicodeDecodeError:
            raise EngineError(f"{self._who()} wrote a line that is not UTF-8 {when}") from None

    async def _ended(self) -> str:
        """How the program went away, once its pipes closed."""
        assert self._process is not None
        try:
            async with asyncio.timeout(EXIT_SECONDS):
                status = await self._process.wait()
        except TimeoutError:
            await self._kill()
            return "closed its output"
        return f"exited with status {status}"

    async def _kill(self) -> None:
        """Kill the program and whatever it started (a shell script's commands)."""
        assert self._process is not None
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            await self._process.wait()

    async def _relay_stderr(self) -> None:
        """Each line the program writes on stderr, as a log event."""
        assert self._process is not None
        assert self._process.stderr is not None
        pid = self._process.pid
        while True:
            try:
                raw = await self._process.stderr.readline()
            except ValueError:
                continue  # a line too long to keep: its next part is read as a line
            if not raw:
                return
            log.info("program_said", pid=pid, line=raw.decode(errors="replace").rstrip("\r\n"))


def _clocks(budget: Budget) -> tuple[int, int, int]:
    """The program's clock, its opponent's and the increment, in ms. A budget of fixed seconds
    is told as a clock of that many seconds for both sides and no increment: the protocol has
    no other way to say it."""
    if budget.clock is None:
        assert budget.seconds is not None
        seconds = round(budget.seconds * 1000)
        return seconds, seconds, 0
    clock = budget.clock
    return round(clock.own * 1000), round(clock.opponent * 1000), round(clock.increment * 1000)


def _garbage(line: str) -> str:
    shown = line if len(line) <= SHOWN else line[:SHOWN] + "..."
    return f"wrote {shown!r}, which the protocol has no place for"
