"""The `arena` command line: the engine's subcommands, the server's own — `serve` (the game
server, with an embedded Redis and house-bot workers by default), `worker` (house-bot moves),
`user` and `token` (accounts and bot tokens), `ladder` (the bot ladders) — and the clients'
(`bot`; `play` and `watch`, the terminal client, which starts a server of its own in the
background when given no URL; `review`, a finished game in the terminal client, from a record
file or a server; and `tutorial`, which needs no server).

This module puts the program together, and is the one place that may import every package
(docs/architecture.md); the rest of `server` never imports `clients`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import getpass
import gzip
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from time import monotonic
from typing import Any, TypeVar

import redis
import redis.asyncio as aioredis
import structlog
import websockets.asyncio.server

from clients.bot_cli import add_command as add_bot_command
from clients.connection import ArenaClient, ArenaError
from clients.tui.analysis import ServerAnalyst
from clients.tui.app import ArenaApp, open_connection, open_watching
from clients.tui.review import ReviewApp
from clients.view import GameView
from engine import cli as engine_cli
from engine.records import GameRecord, read_record, read_records
from server import identity
from server.analysis import Analyst
from server.app import Arena
from server.clock import now_ms
from server.games import ATTENDANCE_MS, CLAIM_GRACE_MS, GameStore, open_redis
from server.ladder.standing import Table
from server.ladder.store import Ladder, LadderStore, parse_time
from server.logs import configure_logging
from server.offers import DEFAULT_TIME_CONTROLS, Offered, TimeControls
from server.protocol import (
    DEFAULT_GAME,
    ErrorCode,
    GameSnapshot,
    GameStatus,
    LadderStandings,
    Ok,
    Standings,
    Unwatch,
    Watch,
)
from server.redis_embedded import (
    AOF_NAME,
    SOCKET_NAME,
    EmbeddedRedis,
    EmbeddedRedisError,
    end_process,
    end_with_parent,
)
from server.web.origins import origin
from server.worker import HOUSE_BOTS, prepare_house_bots, run_worker

__all__ = ["main"]

DEFAULT_PORT = 8765
DEFAULT_DATA_DIR = Path(".arena")
# Websocket frames above this close the connection (1009); smaller ones over the protocol's
# 16 KiB limit are answered with frame_too_large.
MAX_FRAME = 64 * 1024
CLOSE_SECONDS = 3  # for a client to answer the close frame when the server stops
PING_SECONDS = 10  # keepalive pings, which also measure each client's round trip for the clocks
GC_YOUNG = 10_000  # allocations between collections of the youngest generation (700 by default)
REDIS_CHECK_SECONDS = 5  # for a Redis given by URL to answer before the command gives up
SERVER_START_SECONDS = 60  # for the server `arena play` starts to listen (a new Redis, imports)
SERVER_STOP_SECONDS = 20  # for it to stop after SIGTERM (its workers and Redis with it)
SERVER_LOG_NAME = "play-server.log"  # its log, in the data folder: the screen is the app's
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # what may name a server's game: its ids are these

log = structlog.get_logger(__name__)
T = TypeVar("T")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="arena", description="Amazons Arena: play, watch and study the Game of the Amazons."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    engine_cli.add_commands(commands)
    _add_server_commands(commands)
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
        parser.exit(2, f"{_prog(args)}: error: {error}\n")
    except redis.RedisError as error:
        # Redis answered at the start (see _check_redis) and went away later.
        parser.exit(2, f"{_prog(args)}: error: Redis failed: {error}\n")
    return status


def _prog(args: argparse.Namespace) -> str:
    """The command as typed, for messages: `arena token create`."""
    return " ".join(["arena", args.command, *filter(None, [getattr(args, "action", None)])])


def _add_server_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Defaults from the environment are strings given to argparse, which passes them through
    # `type` like a flag's value: a bad $ARENA_... is refused with the flag's own message.
    serve = commands.add_parser(
        "serve",
        help="run the game server",
        description="Run the websocket game server. With no Redis URL it starts a private "
        "redis-server in the data folder and stops it on exit; live games survive a restart.",
    )
    serve.add_argument("--host", default=os.environ.get("ARENA_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=_port, default=_env_int("ARENA_PORT", DEFAULT_PORT))
    _add_redis_options(serve)
    serve.add_argument(
        "--workers",
        type=_count,
        default=_env_int("ARENA_WORKERS", 1),
        metavar="N",
        help="house-bot worker processes to start with the server (default 1)",
    )
    serve.add_argument(
        "--time-controls",
        type=_time_controls,
        default=os.environ.get("ARENA_TIME_CONTROLS", DEFAULT_TIME_CONTROLS),
        metavar="SPEC",
        help="the time controls offered: a range BASE-BASE+INCREMENT in seconds, or a list "
        f"BASE+INCREMENT,... (default {DEFAULT_TIME_CONTROLS}: a base of 10 s to 3 h, "
        "increments up to 180 s)",
    )
    serve.add_argument(
        "--claim-grace",
        type=_seconds,
        default=os.environ.get("ARENA_CLAIM_GRACE", f"{CLAIM_GRACE_MS / 1000:g}"),
        metavar="SECONDS",
        help="how long a player must be away before the opponent may claim the game "
        f"(default {CLAIM_GRACE_MS / 1000:g})",
    )
    serve.add_argument(
        "--presence-lapse",
        type=_seconds,
        default=os.environ.get("ARENA_PRESENCE_LAPSE", f"{ATTENDANCE_MS / 1000:g}"),
        metavar="SECONDS",
        help="how long a connection counts as present unless its server process renews it, "
        f"so the players of a dead process are away after it (default {ATTENDANCE_MS / 1000:g})",
    )
    serve.add_argument(
        "--allowed-origin",
        action="append",
        type=_origin,
        default=_env_origins(),
        metavar="ORIGIN",
        help="a web page origin (https://arena.example) whose pages may open the websocket; "
        "repeatable (ARENA_ALLOWED_ORIGINS: several, space-separated). By default the "
        "server's own, the origin of the pages it serves",
    )
    serve.set_defaults(run=_serve)

    worker = commands.add_parser("worker", help="compute house-bot moves from the request queue")
    _add_redis_options(worker)
    worker.add_argument(
        "--metrics-port",
        type=_port,
        default=os.environ.get("ARENA_METRICS_PORT"),
        metavar="PORT",
        help="answer Prometheus scrapes (GET /metrics) on this port "
        "(default: $ARENA_METRICS_PORT, else none)",
    )
    worker.add_argument(
        "--metrics-host",
        default=os.environ.get("ARENA_METRICS_HOST", "127.0.0.1"),
        help="address of the metrics port (default: $ARENA_METRICS_HOST or 127.0.0.1)",
    )
    worker.set_defaults(run=_worker)

    user = commands.add_parser("user", help="manage accounts")
    user_commands = user.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = user_commands.add_parser(
        "create",
        help="create an account; the password is read from ARENA_PASSWORD, else asked for "
        "twice on a terminal, else read from stdin's first line",
    )
    create.add_argument("name")
    _add_redis_options(create)
    create.set_defaults(run=_user_create)

    archive = commands.add_parser(
        "archive",
        help="export finished games as game records (JSON lines)",
        description="Write the server's finished games, oldest first, one game record per line "
        "(docs/records.md), to FILE or stdout. Games already in FILE (by game id) are not "
        "written again.",
    )
    archive.add_argument(
        "--out", type=Path, metavar="FILE", help="append the games not yet in FILE (.gz: gzipped)"
    )
    _add_redis_options(archive)
    archive.set_defaults(run=_archive)

    token = commands.add_parser("token", help="manage bot tokens")
    token_commands = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = token_commands.add_parser("create", help="create a bot account's API token")
    make.add_argument("name")
    make.add_argument("--bot", action="store_true", required=True, help="a bot token (required)")
    _add_redis_options(make)
    make.set_defaults(run=_token_create)
    listing = token_commands.add_parser(
        "list", help="list the bot tokens: id, bot, when made (the tokens themselves are not kept)"
    )
    _add_redis_options(listing)
    listing.set_defaults(run=_token_list)
    revoke = token_commands.add_parser(
        "revoke",
        help="revoke a bot token by its id; connections logged in with it are closed at once",
    )
    revoke.add_argument("id", metavar="ID", help="the token's id, as `arena token list` shows it")
    _add_redis_options(revoke)
    revoke.set_defaults(run=_token_revoke)

    _add_ladder_commands(commands)


def _add_ladder_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ladder = commands.add_parser("ladder", help="manage the bot ladders")
    ladder_commands = ladder.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = ladder_commands.add_parser(
        "create",
        help="create a bot ladder: its games' setup and time control, which the server must "
        "offer ($ARENA_TIME_CONTROLS, as `arena serve --time-controls`)",
    )
    create.add_argument("name", metavar="NAME", help="letters, digits, _ and -")
    create.add_argument("--setup", required=True, metavar="SETUP", help="e.g. 10x10")
    create.add_argument(
        "--time", required=True, metavar="BASE+INC", help="whole seconds, e.g. 60+1"
    )
    create.add_argument(
        "--game", default=DEFAULT_GAME, metavar="GAME", help=f"default {DEFAULT_GAME}"
    )
    _add_redis_options(create)
    create.set_defaults(run=_ladder_create)
    listing = ladder_commands.add_parser("list", help="list the ladders and their members")
    _add_redis_options(listing)
    listing.set_defaults(run=_ladder_list)
    remove = ladder_commands.add_parser(
        "remove", help="remove a ladder (games under way go on; no more start)"
    )
    remove.add_argument("name", metavar="NAME")
    _add_redis_options(remove)
    remove.set_defaults(run=_ladder_remove)
    table = ladder_commands.add_parser(
        "standings",
        help="a ladder's standings: the rating list with 95%% intervals, Glicko-2, online",
        description="Print a ladder's standings, from its Redis or, with --server, asked of a "
        "running server as a guest.",
    )
    table.add_argument("name", metavar="NAME")
    table.add_argument("--server", metavar="URL", help="ask the server at URL (ws://host:port)")
    _add_redis_options(table)
    table.set_defaults(run=_ladder_standings)


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


def _play(args: argparse.Namespace) -> int:
    """`arena play`, and `arena watch` (which has a `game_id`)."""
    if args.url:
        return _play_on(args.url, args.game_id)
    with _background_server(args.data_dir) as url:
        return _play_on(url, args.game_id)


def _play_on(url: str, watch: str | None = None) -> int:
    """Connect first (and, to watch a game, sign in as a guest and ask for it), so that a
    server that cannot be reached, or has no such game, is one line and status 2 before the
    app takes the screen (the errors are ValueErrors: `main` says them)."""

    async def play() -> None:
        async with _connected(url, watch) as client:
            await ArenaApp(url, client, watch).run_async()

    asyncio.run(play())
    return 0


@contextlib.asynccontextmanager
async def _connected(url: str, watch: str | None = None) -> AsyncIterator[ArenaClient]:
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
    the server; either is checked, and any problem said in one line, before the app starts."""
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
        async with _connected(url) as client:
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


def _add_redis_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL"),
        help="Redis to use (default: $REDIS_URL, else a private one in the data folder)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("ARENA_DATA_DIR", DEFAULT_DATA_DIR)),
        help="folder of the private Redis (default: $ARENA_DATA_DIR or ./.arena)",
    )


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise SystemExit(f"arena: error: {name} must be an integer, got {text!r}") from None


def _env_origins() -> list[str]:
    text = os.environ.get("ARENA_ALLOWED_ORIGINS", "")
    try:
        return [origin(item) for item in text.split()]
    except ValueError as error:
        raise SystemExit(f"arena: error: ARENA_ALLOWED_ORIGINS: {error}") from None


def _origin(text: str) -> str:
    try:
        return origin(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, got {text!r}")
    return port


def _time_controls(text: str) -> TimeControls:
    try:
        return TimeControls.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < seconds <= 86400:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 s, got {text}")
    return seconds


def _count(text: str) -> int:
    count = int(text)
    if count < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return count


@contextlib.contextmanager
def _redis_url(args: argparse.Namespace) -> Iterator[str]:
    """The Redis to use: the URL given, the private one of a server already running on the
    data folder, or a private one started for as long as the command runs."""
    if args.redis_url:
        _check_redis(args.redis_url)
        yield args.redis_url
        return
    # Said on stderr every time: a command run from another folder would otherwise quietly use
    # (or make) a database the server does not see.
    folder = Path(os.path.abspath(args.data_dir))
    embedded = EmbeddedRedis(folder)
    orphan = embedded.orphaned()
    if orphan is not None:
        # Its arena process was killed: the server is ours now, and stops when we do.
        _note(args, f"data folder {folder} (taking over its Redis, left by a killed command)")
        try:
            yield embedded.adopt(orphan)
        finally:
            embedded.stop()
        return
    path = folder / SOCKET_NAME
    if _answers_ping(path):
        _note(args, f"data folder {folder} (the Redis of the server running there)")
        yield "unix://" + urllib.parse.quote(str(path.resolve()))
        return
    if (folder / AOF_NAME).exists():
        _note(args, f"data folder {folder}")
    else:
        _note(
            args,
            f"data folder {folder} (a new database: no server has used this folder; "
            "give --data-dir or --redis-url for another)",
        )
    with embedded:
        yield embedded.url


def _note(args: argparse.Namespace, text: str) -> None:
    print(f"{_prog(args)}: {text}", file=sys.stderr, flush=True)


def _check_redis(url: str) -> None:
    """Raise a ValueError naming `url` (without its password) unless a Redis answers there."""
    client = redis.Redis.from_url(
        url, socket_connect_timeout=REDIS_CHECK_SECONDS, socket_timeout=REDIS_CHECK_SECONDS
    )
    try:
        client.ping()
    except redis.RedisError as error:
        raise ValueError(f"cannot reach Redis at {_redacted(url)}: {_reason(error)}") from None
    finally:
        client.close()


def _redacted(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def _reason(error: BaseException) -> str:
    """The operating system's words for a failed connection (`Connection refused`), if any."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
        cause = cause.__cause__ or cause.__context__
    return str(error)


def _answers_ping(path: Path) -> bool:
    """Whether a Redis is listening on the unix socket `path` (a server already running)."""
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
            probe.sendall(b"PING\r\n")
            return probe.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def _serve(args: argparse.Namespace) -> int:
    configure_logging()
    with _redis_url(args) as url:
        workers = [_start_worker(url) for _ in range(args.workers)]
        try:
            _run_loop(_serve_until_stopped(url, args))
        finally:
            for process in workers:
                process.terminate()
            for process in workers:
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
    return 0


def _start_worker(url: str) -> subprocess.Popen[bytes]:
    # One metrics port cannot serve several workers: these have none (docs/server.md).
    env = {
        k: v for k, v in os.environ.items() if k not in ("ARENA_METRICS_PORT", "ARENA_METRICS_HOST")
    }
    return subprocess.Popen(
        [sys.executable, "-m", "server.cli", "worker", "--redis-url", url],
        env={**env, "PYTHONUNBUFFERED": "1"},
    )


async def _serve_until_stopped(url: str, args: argparse.Namespace) -> None:
    host, port = args.host, args.port
    stop = _stop_event()
    redis = open_redis(url)
    if not args.redis_url:
        # The private Redis is this server's own: it starts with the default ladders.
        for ladder in await LadderStore(redis).ensure_defaults():
            log.info("ladder_created", ladder=ladder.name, terms=ladder.terms)
    arena = Arena(
        redis,
        time_controls=args.time_controls,
        claim_grace_ms=round(args.claim_grace * 1000),
        attendance_ms=round(args.presence_lapse * 1000),
        allowed_origins=args.allowed_origin,
    )
    await arena.start()
    server = await websockets.asyncio.server.serve(
        arena.handle,
        host,
        port,
        process_request=arena.health,
        max_size=MAX_FRAME,
        ping_interval=PING_SECONDS,
        close_timeout=CLOSE_SECONDS,
        # Frames are small msgpack maps: deflate would cost more CPU than the bytes it saves.
        compression=None,
    )
    try:
        bound = [s.getsockname() for s in server.sockets]
        log.info("serving", addresses=[f"{a[0]}:{a[1]}" for a in bound], redis=url)
        print(f"arena: serving on ws://{host}:{bound[0][1]}  (Ctrl-C stops)", flush=True)
        print(f"arena: in a browser, http://{host}:{bound[0][1]}/", flush=True)
        _settle_garbage_collector()
        await stop.wait()
        log.info("stopping", connections=len(arena.sessions))
    finally:
        # Each step is bounded: a client that does not answer its close frame, or a Redis
        # that went away, must not keep the process from exiting. Games are safe in Redis.
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), CLOSE_SECONDS + 1)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(arena.close(), CLOSE_SECONDS)
        with contextlib.suppress(TimeoutError, OSError):
            await asyncio.wait_for(redis.aclose(), CLOSE_SECONDS)
        log.info("stopped")


def _settle_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses short under load. The objects made at
    startup (modules, compiled kernels: about 80,000) are frozen out of every collection, and
    the youngest generation is collected every GC_YOUNG allocations rather than 700, so fewer
    short-lived objects reach the oldest generation and full collections, whose pause grows
    with every connection's objects, come less often (docs/operations.md)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 20, 10)


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run a long-lived process's main coroutine on uvloop where it is installed, unless
    ARENA_EVENT_LOOP=asyncio asks for asyncio's own loop."""
    if os.environ.get("ARENA_EVENT_LOOP", "uvloop") != "asyncio":
        try:
            import uvloop
        except ImportError:
            pass
        else:
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                runner.run(main)
            return
    asyncio.run(main)


def _stop_event() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


def _worker(args: argparse.Namespace) -> int:
    configure_logging()
    # Bound before the house bots compile (up to minutes), so a port in use fails at once.
    metrics = None if args.metrics_port is None else _listen(args.metrics_host, args.metrics_port)
    try:
        with _redis_url(args) as url:
            log.info("worker_compiling")
            stopped = _compile_house_bots()
            if stopped is not None:
                log.info("worker_stopped", signal=stopped, compiling=True)
                return 0

            async def work() -> None:
                await run_worker(url, _stop_event(), metrics)

            _run_loop(work())
    finally:
        if metrics is not None:
            metrics.close()
    return 0


def _listen(host: str, port: int) -> socket.socket:
    try:
        return socket.create_server((host, port))
    except OSError as error:
        raise OSError(f"cannot listen for metrics on {host}:{port}: {error.strerror}") from None


class _StopSignalError(Exception):
    """SIGINT or SIGTERM arrived: the message is the signal's name."""


def _compile_house_bots() -> str | None:
    """Compile the house bots in a daemon thread while the main thread waits for it, so that
    SIGINT or SIGTERM ends the wait at once: under the event loop a stop would wait for the
    compiler, a minute or two on a fresh install, and an exception raised into the compiler
    itself is caught and garbled by numba. Returns the signal's name if one came first (the
    thread then dies with the process; numba writes its cache files whole or not at all)."""
    failures: list[Exception] = []

    def compile_all() -> None:
        try:
            prepare_house_bots()
        except Exception as error:
            failures.append(error)

    def stop(signum: int, frame: object) -> None:
        raise _StopSignalError(signal.Signals(signum).name)

    thread = threading.Thread(target=compile_all, name="compile-house-bots", daemon=True)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        thread.start()
        # In short waits: a signal may be delivered to the compiling thread, and then a wait
        # without end would not be interrupted; the main thread runs the handler when it wakes.
        while thread.is_alive():
            thread.join(0.2)
    except _StopSignalError as stopped:
        return str(stopped)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failures:
        raise failures[0]
    return None


def _user_create(args: argparse.Namespace) -> int:
    configure_logging()
    password = os.environ.get("ARENA_PASSWORD") or _read_password(args.name)
    with _redis_url(args) as url:
        asyncio.run(_with_redis(url, lambda r: identity.create_account(r, args.name, password)))
    print(f"created account {args.name}")
    return 0


def _read_password(name: str) -> str:
    """The password from a terminal, typed twice without echo, or else stdin's first line."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    password = getpass.getpass(f"Password for {name}: ")
    if getpass.getpass("The same password again: ") != password:
        raise ValueError("the two passwords differ")
    return password


def _token_create(args: argparse.Namespace) -> int:
    configure_logging()
    with _redis_url(args) as url:
        token = asyncio.run(_with_redis(url, lambda r: identity.create_bot_token(r, args.name)))
    print(token)
    return 0


def _token_list(args: argparse.Namespace) -> int:
    configure_logging()
    with _redis_url(args) as url:
        tokens = asyncio.run(_with_redis(url, identity.list_bot_tokens))
    if not tokens:
        _note(args, "no bot tokens")
    width = max((len(token.bot) for token in tokens), default=0)
    for token in tokens:
        made = "made before creation times were kept"
        if token.created is not None:
            made = token.created.strftime("%Y-%m-%d %H:%M:%S UTC")
        print(f"{token.id}  {token.bot:<{width}}  {made}")
    return 0


def _token_revoke(args: argparse.Namespace) -> int:
    configure_logging()
    with _redis_url(args) as url:
        token = asyncio.run(_with_redis(url, lambda r: identity.revoke_bot_token(r, args.id)))
    print(f"revoked bot token {token.id} of {token.bot}")
    return 0


def _ladder_create(args: argparse.Namespace) -> int:
    ladder = Ladder(args.name, args.setup, parse_time(args.time), args.game)
    controls = TimeControls.parse(os.environ.get("ARENA_TIME_CONTROLS", DEFAULT_TIME_CONTROLS))
    refusal = ladder.refusal(Offered.every_game(controls, HOUSE_BOTS))
    if refusal is not None:
        raise ValueError(f"the server does not offer {refusal}")
    configure_logging()
    with _redis_url(args) as url:
        added = asyncio.run(_with_redis(url, lambda r: LadderStore(r).create(ladder)))
    if not added:
        raise ValueError(f"there is a ladder {args.name} already; `arena ladder remove` it first")
    print(f"created ladder {ladder.name}: {ladder.terms}")
    return 0


def _ladder_list(args: argparse.Namespace) -> int:
    async def listing(redis: aioredis.Redis) -> list[tuple[Ladder, dict[str, int]]]:
        store = LadderStore(redis)
        now = now_ms()
        return [(ladder, await store.members(ladder.name, now)) for ladder in await store.ladders()]

    configure_logging()
    with _redis_url(args) as url:
        ladders = asyncio.run(_with_redis(url, listing))
    if not ladders:
        _note(args, "no ladders")
    width = max((len(ladder.name) for ladder, _ in ladders), default=0)
    for ladder, members in ladders:
        bots = ", ".join(sorted(members, key=str.lower)) or "no bots connected"
        print(f"{ladder.name:<{width}}  {ladder.terms}  {bots}")
    return 0


def _ladder_remove(args: argparse.Namespace) -> int:
    configure_logging()
    with _redis_url(args) as url:
        ladder = asyncio.run(_with_redis(url, lambda r: LadderStore(r).remove(args.name)))
    print(f"removed ladder {ladder.name}")
    return 0


def _ladder_standings(args: argparse.Namespace) -> int:
    async def table(redis: aioredis.Redis) -> str:
        return (await LadderStore(redis).table(args.name, now_ms())).render()

    async def asked(url: str) -> str:
        async with _connected(url) as client:
            await client.guest()
            try:
                reply = await client.request(LadderStandings(args.name), Standings)
            except ArenaError as error:
                raise ValueError(f"the server at {url} says: {error.reply.message}") from None
        return Table.from_wire(reply.ladder, reply.rows).render()

    configure_logging()
    if args.server:
        print(asyncio.run(asked(args.server)), end="")
        return 0
    with _redis_url(args) as url:
        print(asyncio.run(_with_redis(url, table)), end="")
    return 0


def _archive(args: argparse.Namespace) -> int:
    # Read first: a file that is not records stops the export before anything is appended.
    present = set()
    if args.out is not None and args.out.exists():
        present = {record.game_id for record in read_records(args.out)}

    async def export(redis: aioredis.Redis) -> list[GameRecord]:
        return [game.record() async for game in GameStore(redis).archived()]

    configure_logging()
    with _redis_url(args) as url:
        records = asyncio.run(_with_redis(url, export))
    lines = [record.to_json() for record in records if record.game_id not in present]
    if args.out is None:
        for line in lines:
            print(line)
        return 0
    # A gzip file may hold several members one after another: appending one keeps it readable.
    with gzip.open(args.out, "at") if args.out.suffix == ".gz" else args.out.open("a") as out:
        out.writelines(line + "\n" for line in lines)
    games = f"{len(lines)} game{'s' if len(lines) != 1 else ''}"
    kept = len(records) - len(lines)
    print(f"wrote {games} to {args.out}" + (f" ({kept} already there)" if kept else ""))
    return 0


async def _with_redis(url: str, action: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
    redis = open_redis(url)
    try:
        return await action(redis)
    finally:
        await redis.aclose()


if __name__ == "__main__":
    sys.exit(main())
