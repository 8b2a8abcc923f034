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
import os
import re
import select
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from time import monotonic

import redis

from clients.connection import ArenaClient, ArenaError
from clients.tui.analysis import ServerAnalyst
from clients.tui.app import ArenaApp, open_connection, open_watching
from clients.tui.review import ReviewApp
from clients.view import GameView
from engine.jit import run_as_python
from engine.records import GameRecord, read_record, read_records
from server.analysis import Analyst
from server.protocol import ErrorCode, GameSnapshot, GameStatus, Ok, Unwatch, Watch
from server.redis_embedded import EmbeddedRedisError, end_process, end_with_parent

__all__ = ["DEFAULT_DATA_DIR", "command_name", "connected", "main"]

# The commands of the terminal client: they parse without the engine, the bots and the server.
CLIENT_COMMANDS = frozenset({"play", "watch", "review", "tutorial"})
DEFAULT_DATA_DIR = Path(".arena")
SERVER_START_SECONDS = 60  # for the server `arena play` starts to listen (a new Redis, imports)
SERVER_STOP_SECONDS = 20  # for it to stop after SIGTERM (its workers and Redis with it)
SERVER_LOG_NAME = "play-server.log"  # its log, in the data folder: the screen is the app's
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # what may name a server's game: its ids are these


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="arena", description="Amazons Arena: play, watch and study the Game of the Amazons."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if argv[:1] == [] or argv[0] not in CLIENT_COMMANDS:
        # The rest of the program; a client command parses alone (its help and errors read
        # the same), without loading it.
        from clients.bot_cli import add_command as add_bot_command
        from engine import cli as engine_cli
        from server import commands as server_commands

        engine_cli.add_commands(commands)
        server_commands.add_commands(commands)
        add_bot_command(commands)
    _add_play_command(commands)
    _add_watch_command(commands)
    _add_review_command(commands)
    _add_tutorial_command(commands)
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


def command_name(args: argparse.Namespace) -> str:
    """The command as typed, for messages: `arena token create`."""
    return " ".join(["arena", args.command, *filter(None, [getattr(args, "action", None)])])


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
    parser.add_argument("--ascii", action="store_true", help="draw the boards in ASCII")


def _play(args: argparse.Namespace) -> int:
    """`arena play`, and `arena watch` (which has a `game_id`)."""
    run_as_python()  # the client only shows positions: no numba (engine/jit.py)
    if args.url:
        return _play_on(args.url, args.game_id, ascii=args.ascii)
    with _background_server(args.data_dir) as url:
        return _play_on(url, args.game_id, ascii=args.ascii)


def _play_on(url: str, watch: str | None = None, *, ascii: bool = False) -> int:
    """Connect first (and, to watch a game, sign in as a guest and ask for it), so that a
    server that cannot be reached, or has no such game, is one line and status 2 before the
    app takes the screen (the errors are ValueErrors: `main` says them)."""

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


@contextlib.contextmanager
def _background_server(data_dir: Path) -> Iterator[str]:
    """`arena serve` as a child process on a free local port with one house-bot worker, its
    log in the data folder; yields its URL once it listens, and stops it (its worker and Redis
    with it) on exit. It also gets SIGTERM if this process dies, however it dies."""
    folder = Path(os.path.abspath(data_dir))
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / SERVER_LOG_NAME
    command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", "0", "--workers", "1", "--data-dir", str(folder)]
    with log_path.open("ab") as log_file:
        server = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log_file,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=end_with_parent,
        )
    try:
        yield _serving_url(server, log_path)
    finally:
        end_process(server, SERVER_STOP_SECONDS)
        if server.stdout is not None:
            server.stdout.close()


def _serving_url(server: subprocess.Popen[bytes], log_path: Path) -> str:
    """The URL the server prints once it listens; a ValueError with its log's last line if it
    stops or stays silent first."""
    assert server.stdout is not None
    deadline = monotonic() + SERVER_START_SECONDS
    while (left := deadline - monotonic()) > 0:
        readable, _, _ = select.select([server.stdout], [], [], left)
        if not readable:
            break
        line = server.stdout.readline()
        if not line:
            break
        found = re.search(rb"serving on (ws://\S+)", line)
        if found is not None:
            return found.group(1).decode()
    lines = log_path.read_text(errors="replace").strip().splitlines()
    last = f": {lines[-1]}" if lines else ""
    raise ValueError(f"the background server did not start (its log is {log_path}){last}")


if __name__ == "__main__":
    sys.exit(main())
