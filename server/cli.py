"""The `arena` command line: the engine's subcommands, the server's own (`server/commands.py`:
`serve`, `worker`, `user`, `token`, `archive`, `ladder`), `arena bot` (`clients/bot_cli.py`), and
the terminal client's, composed here: `play` and `watch`, which start a server of their own in
the background when given no URL; `review`, a finished game from a record file or a server; and
`tutorial`, which needs no server.

The terminal client's commands are parsed without loading the rest (the engine's kernels, the
bots, the server: over a second), so `arena play URL` opens at once. This module and
`server/commands.py` put the program together, and are the only ones that may import every
package (docs/architecture.md); the rest of `server` never imports `clients`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from time import monotonic

import redis

from clients.connection import ArenaClient, ArenaError
from clients.view import GameView
from engine.jit import run_as_python
from engine.records import GameRecord, read_record, read_records
from server.protocol import ErrorCode, GameSnapshot, GameStatus, Ok, Unwatch, Watch
from server.redis_embedded import EmbeddedRedisError, end_process, end_with_parent

__all__ = [
    "DEFAULT_DATA_DIR",
    "BackgroundServer",
    "command_name",
    "command_parser",
    "connected",
    "main",
    "server_error",
]

# The commands of the terminal client: they parse without the engine, the bots and the server.
CLIENT_COMMANDS = frozenset({"play", "watch", "review", "tutorial"})
DEFAULT_DATA_DIR = Path(".arena")
# For the server `arena play` starts to say anything (its imports, a new Redis): it may take
# as long as it likes while it tells how it gets on, and the client shows the seconds meanwhile.
SERVER_SILENCE_SECONDS = 120
SERVER_STOP_SECONDS = 20  # for it to stop after SIGTERM (its workers and Redis with it)
SERVER_LOG_NAME = "play-server.log"  # its log, in the data folder: the screen is the app's
STEP = re.compile(rb"^arena serve: (starting .*)$", re.MULTILINE)  # what a server says it starts
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # what may name a server's game: its ids are these


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = command_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except BrokenPipeError:
        # The reader went away (`arena moves | head`): not an error. Before OSError, its base.
        return 0
    except (ValueError, OSError, EmbeddedRedisError) as error:
        parser.exit(2, f"{command_name(args)}: error: {error}\n")
    except redis.RedisError as error:
        # Redis answered at the start (see server/commands.py) and went away later.
        parser.exit(2, f"{command_name(args)}: error: Redis failed: {error}\n")
    return status


def command_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `arena` command line. For a command of the terminal client (`command`), without the
    rest of the program, so that it parses without loading it."""
    parser = argparse.ArgumentParser(
        prog="arena", description="Amazons Arena: play, watch and study the Game of the Amazons."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command not in CLIENT_COMMANDS:
        # The rest of the program; a client command parses alone (its help and errors read
        # the same), without loading it.
        from clients.bot_cli import add_command as add_bot_command
        from engine import cli as engine_cli
        from server import commands as server_commands

        engine_cli.add_commands(commands)
        server_commands.add_commands(commands)
        add_bot_command(commands)
        _add_db_command(commands)
    _add_play_command(commands)
    _add_watch_command(commands)
    _add_review_command(commands)
    _add_tutorial_command(commands)
    return parser


def command_name(args: argparse.Namespace) -> str:
    """The command as typed, for messages: `arena token create`."""
    return " ".join(["arena", args.command, *filter(None, [getattr(args, "action", None)])])


def add_database_option(parser: argparse.ArgumentParser, *, data_dir: bool = False) -> None:
    """`--database-url`: the database of what must last (server/db/); with `data_dir`, also
    `--data-dir`, the folder of the default one, for a command that uses no Redis."""
    parser.add_argument(
        "--database-url",
        default=os.environ.get("ARENA_DATABASE_URL"),
        metavar="URL",
        help="the database of accounts, ratings and finished games: sqlite:///PATH or "
        "postgresql://USER:PASSWORD@HOST:PORT/NAME (default: $ARENA_DATABASE_URL, else "
        "arena.sqlite3 in the data folder)",
    )
    if data_dir:
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=Path(os.environ.get("ARENA_DATA_DIR", DEFAULT_DATA_DIR)),
            help="folder of the default database (default: $ARENA_DATA_DIR or ./.arena)",
        )


def open_database(url: str | None, data_dir: Path) -> str:
    """Open the database once, its schema made or upgraded to the program's, and close it: a
    line saying what was done. A ValueError of one line when it cannot be used."""
    from server.db import Database  # its libraries load only for the commands that use it

    async def opened() -> str:
        db = await Database.open(url, data_dir)
        await db.close()
        return db.opened()

    return asyncio.run(opened())


def _add_db_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = commands.add_parser("db", help="manage the database of what must last")
    actions = db.add_subparsers(dest="action", required=True, metavar="ACTION")
    upgrade = actions.add_parser(
        "upgrade",
        help="make the database's schema, or upgrade it to this program's",
        description="Make the database's schema, or upgrade it to this program's, as "
        "`arena serve` does when it starts. A database whose schema is newer than the "
        "program is left as it is.",
    )
    add_database_option(upgrade, data_dir=True)
    upgrade.set_defaults(run=_db_upgrade)


def _db_upgrade(args: argparse.Namespace) -> int:
    print(f"{command_name(args)}: {open_database(args.database_url, args.data_dir)}", flush=True)
    return 0


def _add_play_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = commands.add_parser(
        "play",
        help="play in the terminal",
        description="Play, in a full-screen terminal app, on the server at URL; with no URL, "
        "on a server started for the run in the background, as `arena serve` runs it (a "
        "private Redis in the data folder, one house-bot worker) on a free local port, and "
        "stopped on exit.",
    )
    _add_client_arguments(play)
    play.set_defaults(run=_play, game_id=None)


def _add_watch_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    watch = commands.add_parser(
        "watch",
        help="watch a live game in the terminal",
        description="Watch game GAME_ID, live to its end, in the terminal app, signed in as a "
        "guest on the server at URL (with no URL, on a server started for the run, as for "
        "`arena play`); leaving the game goes to the lobby.",
    )
    watch.add_argument("game_id", metavar="GAME_ID", help="the game, as the lobby lists it")
    _add_client_arguments(watch)
    watch.set_defaults(run=_play)


def _add_client_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", nargs="?", metavar="URL", help="the server, such as ws://host:8765")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("ARENA_DATA_DIR", DEFAULT_DATA_DIR)),
        help="folder of the background server's Redis, when no URL is given "
        "(default: $ARENA_DATA_DIR or ./.arena)",
    )
    parser.add_argument("--ascii", action="store_true", help="draw in ASCII: boards and frames")


def _play(args: argparse.Namespace) -> int:
    """`arena play`, and `arena watch` (which has a `game_id`)."""
    run_as_python()  # the client only shows positions: no numba (engine/jit.py)
    from clients.tui.app import ArenaApp  # the terminal app loads only for the commands using it

    if args.url:
        return _play_on(args.url, args.game_id, ascii=args.ascii)
    if args.game_id is not None:
        with _background_server(args.data_dir) as url:
            return _play_on(url, args.game_id, ascii=args.ascii)
    # The app shows at once, and what the server does while it starts.
    server = BackgroundServer(args.data_dir)
    try:
        app = ArenaApp(None, starting=server.url, ascii=args.ascii)
        app.run()
    finally:
        server.stop()
    if app.failure is not None:
        raise ValueError(app.failure)
    return 0


def _play_on(url: str, watch: str | None = None, *, ascii: bool = False) -> int:
    """Connect first (and, to watch a game, sign in as a guest and ask for it), so that a
    server that cannot be reached, or has no such game, is one line and status 2 before the
    app takes the screen (the errors are ValueErrors: `main` says them)."""

    from clients.tui.app import ArenaApp

    async def play() -> None:
        async with connected(url, watch) as client:
            await ArenaApp(url, client, watch, ascii=ascii).run_async()

    asyncio.run(play())
    return 0


@contextlib.asynccontextmanager
async def connected(url: str, watch: str | None = None) -> AsyncIterator[ArenaClient]:
    """A connection to `url` past `hello` (and, with `watch`, signed in as a guest watching that
    game), closed on the way out; an UnreachableError or UnwatchableError, ValueErrors, says in
    one line why not."""
    from clients.tui.app import open_connection, open_watching

    client = await (open_connection(url) if watch is None else open_watching(url, watch))
    try:
        yield client
    finally:
        with contextlib.suppress(OSError, ConnectionError):
            await client.close()


def _add_review_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    review = commands.add_parser(
        "review",
        help="review a finished game in the terminal",
        description="Review a finished game in a full-screen terminal app: game N of a record "
        "file (arena match --out, arena archive), or the game GAME_ID of the server at URL "
        "(with no URL, of the server `arena play` runs on the data folder). The analysis panel "
        "gets its values from the server, or, for a file and no URL, from the engine in a "
        "child process.",
    )
    review.add_argument("game", metavar="FILE|GAME_ID", help="a record file, or a game's id")
    _add_client_arguments(review)
    review.add_argument(
        "--number",
        type=int,
        metavar="N",
        help="which game of FILE, counted from 1 (default: the first)",
    )
    review.set_defaults(run=_review)


def _review(args: argparse.Namespace) -> int:
    """A file when there is one of that name (or the name cannot be a game id), else a game on
    the server; either is checked, and any problem said in one line, before the app starts.
    The analysis of a file's positions runs compiled, in the analyst's own process."""
    run_as_python()
    from clients.tui.review import ReviewApp
    from server.analysis import Analyst  # the engine's judgement: numba, loaded only here

    path = Path(args.game)
    if path.exists() or not GAME_ID.fullmatch(args.game):
        record, about = _record_to_review(path, args.number or 1)
        if args.url:
            return _review_on(args.url, record, about)
        analyst = Analyst()
        try:
            ReviewApp(record, analyst, about).run()
        finally:
            analyst.close()
        return 0
    if args.number is not None:
        raise ValueError(f"--number picks a game of a record file; {args.game} is not a file")
    if args.url:
        return _review_on(args.url, args.game)
    with _background_server(args.data_dir) as url:
        return _review_on(url, args.game)


def _record_to_review(path: Path, number: int) -> tuple[GameRecord, str]:
    """Game `number` of the record file `path`, and where it comes from in words."""
    count = len(read_records(path))
    if count == 0:
        raise ValueError(f"{path} holds no game records")
    record = read_record(path, number)
    return record, f"game {number} of {count} in {path.name}" if count > 1 else path.name


def _review_on(url: str, game: GameRecord | str, about: str = "") -> int:
    """Review `game` (a record, or the id of a game on the server at `url`, fetched by watching
    it) with the server's analysis."""
    from clients.tui.analysis import ServerAnalyst
    from clients.tui.review import ReviewApp

    async def review() -> None:
        async with connected(url) as client:
            await client.guest()
            record = game if isinstance(game, GameRecord) else await _fetch(client, game, url)
            where = about or f"game {record.game_id}"
            await ReviewApp(record, ServerAnalyst(client.request), where).run_async()

    asyncio.run(review())
    return 0


async def _fetch(client: ArenaClient, game_id: str, url: str) -> GameRecord:
    """Game `game_id` as the server has it, once it has ended (a live game is refused)."""
    try:
        snapshot = await client.request(Watch(game_id), GameSnapshot)
        await client.request(Unwatch(game_id), Ok)
    except ArenaError as error:
        if error.code is ErrorCode.NOT_FOUND:
            raise ValueError(
                f"no game {game_id} on the server at {url}, and no file of that name"
            ) from None
        raise ValueError(f"the server at {url} refused: {error.reply.message}") from None
    view = GameView.open(snapshot, monotonic())
    if view.status is not GameStatus.ENDED:
        raise ValueError(
            f"game {game_id} is still being played: review it once it ends "
            "(arena watch follows it live)"
        )
    return view.record()


def _add_tutorial_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tutorial = commands.add_parser(
        "tutorial",
        help="learn the rules and solve endgames in the terminal (no server)",
        description="The rules of Amazons in short steps on a 6x6 board, each asking for a "
        "move, then endgame exercises checked by the exact solver. Needs no server.",
    )
    tutorial.add_argument("--ascii", action="store_true", help="draw the board in ASCII")
    tutorial.set_defaults(run=_tutorial)


def _tutorial(args: argparse.Namespace) -> int:
    # Imported here: the solver and the app load only for this command.
    from clients.tui.tutorial import TutorialApp

    TutorialApp(ascii=args.ascii).run()
    return 0


class BackgroundServer:
    """`arena serve` as a child process on a free local port with one house-bot worker, its
    log in the data folder, started at once; `url` waits for it to listen, saying meanwhile
    what it does, and `stop` stops it (its worker and Redis with it). It also gets SIGTERM if
    this process dies, however it dies."""

    def __init__(self, data_dir: Path) -> None:
        folder = Path(os.path.abspath(data_dir))
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / SERVER_LOG_NAME
        command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]
        command += ["--port", "0", "--workers", "1", "--data-dir", str(folder)]
        with self.log_path.open("ab") as log_file:
            self._log_start = log_file.tell()  # this run's part of the log starts here
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log_file,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                preexec_fn=end_with_parent,
            )
        self.started = monotonic()

    async def url(self, progress: Callable[[str], None] = lambda _: None) -> str:
        """The URL the server prints once it listens. Until then `progress` hears what it is
        doing (the steps it writes in its log), with the seconds since it started, every
        second; a ValueError names the cause if it stops first, or writes nothing for
        SERVER_SILENCE_SECONDS."""
        assert self.process.stdout is not None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        # A copy of the pipe, which the loop closes as it ends: the server may still print
        # on the original until it is stopped.
        pipe = os.fdopen(os.dup(self.process.stdout.fileno()), "rb", buffering=0)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        read = self._log_start
        try:
            doing, heard = "starting the server", monotonic()
            while True:
                with self.log_path.open("rb") as log_file:
                    log_file.seek(read)
                    news = log_file.read()
                if news:
                    read, heard = read + len(news), monotonic()
                    steps = STEP.findall(news)
                    doing = steps[-1].decode(errors="replace").strip() if steps else doing
                progress(f"{doing} ({monotonic() - self.started:.0f} s)")
                try:
                    line = await asyncio.wait_for(reader.readline(), 1.0)
                except TimeoutError:
                    if monotonic() - heard > SERVER_SILENCE_SECONDS:
                        raise ValueError(
                            f"the background server said nothing for {SERVER_SILENCE_SECONDS} s "
                            f"(its log is {self.log_path})"
                        ) from None
                    continue
                if not line:
                    raise ValueError(self._failure())
                found = re.search(rb"serving on (ws://\S+)", line)
                if found is not None:
                    return found.group(1).decode()
        finally:
            transport.close()

    def _failure(self) -> str:
        """Why the server stopped before it listened, in one line: its error, as its log
        has it."""
        status = self.process.wait()
        with self.log_path.open("rb") as log_file:
            log_file.seek(self._log_start)
            text = log_file.read().decode(errors="replace")
        cause = server_error(text) or f"it exited with status {status}"
        return f"the background server did not start: {cause} (its log is {self.log_path})"

    def stop(self) -> None:
        end_process(self.process, SERVER_STOP_SECONDS)
        if self.process.stdout is not None:
            self.process.stdout.close()


def server_error(log: str) -> str | None:
    """The error a server's log ends on: its `arena serve: error:` line, the last line of a
    traceback, or an error event's words; None when it has none."""
    lines = [line for line in log.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("arena serve: error: "):
            return line.removeprefix("arena serve: error: ")
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback")]
    if starts:
        after = lines[starts[-1] + 1 :]
        return next((line for line in after if not line.startswith(" ")), lines[starts[-1]])
    for line in reversed(lines):
        with contextlib.suppress(ValueError, AttributeError):
            event = json.loads(line)
            if event.get("level") in ("error", "critical"):
                exception = str(event.get("exception", "")).strip().splitlines()
                return " ".join([str(event.get("event")), *exception[-1:]])
    return None


@contextlib.contextmanager
def _background_server(data_dir: Path) -> Iterator[str]:
    """A `BackgroundServer`'s URL once it listens; stopped on exit."""
    server = BackgroundServer(data_dir)
    try:
        yield asyncio.run(server.url())
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
