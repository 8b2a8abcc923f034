"""The server's subcommands of `arena`: `serve` (the game server, with an embedded Redis and
house-bot workers by default), `worker` (house-bot moves), `user` and `token` (accounts and bot
tokens), `archive` (finished games as records) and `ladder` (the bot ladders). `server/cli.py`
adds them to the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import getpass
import gzip
import os
import signal
import socket
import subprocess
import sys
import urllib.parse
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import redis
import redis.asyncio as aioredis
import structlog
import websockets.asyncio.server

from clients.connection import ArenaClient, ArenaError
from clients.tui.labels import readiness_text
from engine.game import game_names
from engine.records import GameRecord, read_records
from server import collector, identity
from server.app import HOUSE_BOTS_SECONDS, Arena, stop_serving
from server.cli import DEFAULT_DATA_DIR, add_database_option, command_name, connected, open_database
from server.clock import now_ms
from server.games import (
    ATTENDANCE_MS,
    CLAIM_GRACE_MS,
    ENDED_WINDOW_SECONDS,
    open_redis,
)
from server.ladder.standing import Table
from server.ladder.store import Ladder, LadderStore, parse_time
from server.logs import configure_logging
from server.offers import DEFAULT_TIME_CONTROLS, Offered, TimeControls
from server.protocol import DEFAULT_GAME, ErrorCode, LadderStandings, Standings
from server.protocol.bots import (
    BotList,
    CreateBot,
    CreateToken,
    ListBots,
    ListTokens,
    RevokeToken,
    TokenCreated,
    TokenList,
)
from server.redis_embedded import AOF_NAME, SOCKET_NAME, EmbeddedRedis
from server.web.origins import origin
from server.worker import HOUSE_BOTS, run_worker

__all__ = ["MAX_FRAME", "add_commands"]

DEFAULT_PORT = 8765
# Websocket frames above this close the connection (1009); smaller ones over the protocol's
# 16 KiB limit are answered with frame_too_large.
MAX_FRAME = 64 * 1024
CLOSE_SECONDS = 3  # for a client to answer the close frame when the server stops
PING_SECONDS = 10  # keepalive pings, which also measure each client's round trip for the clocks
REDIS_CHECK_SECONDS = 5  # for a Redis given by URL to answer before the command gives up
ONE_DAY = datetime.timedelta(days=1)

if TYPE_CHECKING:
    from server.db import Database

log = structlog.get_logger(__name__)
T = TypeVar("T")


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    add_database_option(serve)
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
        "--ended-window",
        type=_seconds,
        default=os.environ.get("ARENA_ENDED_WINDOW", f"{ENDED_WINDOW_SECONDS:g}"),
        metavar="SECONDS",
        help="how long a finished game stays in Redis once the database has it; then it is "
        f"read from the database (default {ENDED_WINDOW_SECONDS:g})",
    )
    serve.add_argument(
        "--signups",
        type=_signups,
        default=os.environ.get("ARENA_SIGNUPS", "open"),
        metavar="open|closed",
        help="open: anyone may make an account (`sign_up`, from the web page or `arena play`), "
        "so many an hour and a day from one address; closed: only `arena user create` makes "
        "accounts (default open; ARENA_SIGNUPS)",
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
    serve.add_argument(
        "--gc",
        type=_gc,
        default=os.environ.get("ARENA_GC", "frozen"),
        metavar="frozen|python",
        help="frozen: the connections' objects are frozen out of the garbage collector's walks, "
        "which keeps its pauses short with thousands of connections (docs/server.md); python: "
        "Python's own collector settings, to look into a leak (default frozen; ARENA_GC)",
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
    add_database_option(create)
    create.set_defaults(run=_user_create)

    archive = commands.add_parser(
        "archive",
        help="export finished games as game records (JSON lines)",
        description="Write the server's finished games, read from its database, oldest first, "
        "one game record per line (docs/records.md), to FILE or stdout; with filters, those "
        "that pass them all. Games already in FILE (by game id) are not written again. An "
        "older data folder's games move into the database on the first `arena serve`.",
    )
    archive.add_argument(
        "--out", type=Path, metavar="FILE", help="append the games not yet in FILE (.gz: gzipped)"
    )
    archive.add_argument("--player", metavar="NAME", help="only the games NAME played (any case)")
    archive.add_argument(
        "--since",
        type=_utc_day,
        metavar="DATE",
        help="only the games that ended on DATE (YYYY-MM-DD, UTC) or later",
    )
    archive.add_argument(
        "--until",
        type=_utc_day,
        metavar="DATE",
        help="only the games that ended on DATE (YYYY-MM-DD, UTC) or earlier",
    )
    archive.add_argument("--game", type=_game_name, metavar="GAME", help="only the games of GAME")
    rated = archive.add_mutually_exclusive_group()
    rated.add_argument(
        "--rated", dest="rated", action="store_true", default=None, help="only rated games"
    )
    rated.add_argument("--unrated", dest="rated", action="store_false", help="only casual games")
    archive.add_argument(
        "--ladder", metavar="NAME", help="only the finished games that bot ladder NAME started"
    )
    add_database_option(archive, data_dir=True)
    archive.set_defaults(run=_archive)

    token = commands.add_parser("token", help="manage bot tokens")
    token_commands = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = token_commands.add_parser("create", help="create a bot account's API token")
    make.add_argument("name")
    make.add_argument("--bot", action="store_true", required=True, help="a bot token (required)")
    make.add_argument(
        "--owner",
        metavar="ACCOUNT",
        help="the human account that owns the bot: the ladders pair two bots of one owner only "
        "when nobody else is left (default: the bot owns itself; an owner is not changed; with "
        "--server, the account signed in)",
    )
    _add_token_server_options(make, "make the bot, if you have none of that name, and its token")
    _add_redis_options(make)
    add_database_option(make)
    make.set_defaults(run=_token_create)
    listing = token_commands.add_parser(
        "list", help="list the bot tokens: id, bot, when made (the tokens themselves are not kept)"
    )
    _add_token_server_options(listing, "list your bots' tokens")
    _add_redis_options(listing)
    add_database_option(listing)
    listing.set_defaults(run=_token_list)
    revoke = token_commands.add_parser(
        "revoke",
        help="revoke a bot token by its id; connections logged in with it are closed at once",
    )
    revoke.add_argument("id", metavar="ID", help="the token's id, as `arena token list` shows it")
    _add_token_server_options(revoke, "revoke a token of one of your bots")
    _add_redis_options(revoke)
    add_database_option(revoke)
    revoke.set_defaults(run=_token_revoke)

    _add_ladder_commands(commands)


def _add_token_server_options(parser: argparse.ArgumentParser, doing: str) -> None:
    parser.add_argument(
        "--server",
        metavar="URL",
        help=f"{doing} on the server at URL (ws://host:port), signed in to your account there, "
        "from anywhere (default: this machine's server, by its database)",
    )
    parser.add_argument(
        "--user",
        metavar="NAME",
        default=os.environ.get("ARENA_USER"),
        help="with --server, your user name (default: $ARENA_USER, else asked for); the "
        "password is read from ARENA_PASSWORD, else asked for on a terminal without echo, else "
        "read from stdin's first line",
    )


def _add_ladder_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ladder = commands.add_parser("ladder", help="manage the bot ladders")
    ladder_commands = ladder.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = ladder_commands.add_parser(
        "create",
        help="create a bot ladder: its games' setup and time control, which the server must "
        "offer ($ARENA_TIME_CONTROLS, as `arena serve --time-controls`)",
    )
    create.add_argument("name", metavar="NAME", help="letters, digits, _ and -")
    create.add_argument(
        "--setup", metavar="SETUP", help="e.g. 10x10 (default: the game's standard setup)"
    )
    create.add_argument(
        "--time", required=True, metavar="BASE+INC", help="whole seconds, e.g. 60+1"
    )
    create.add_argument(
        "--game", default=DEFAULT_GAME, metavar="GAME", help=f"default {DEFAULT_GAME}"
    )
    _add_redis_options(create)
    add_database_option(create)
    create.set_defaults(run=_ladder_create)
    listing = ladder_commands.add_parser("list", help="list the ladders and their members")
    _add_redis_options(listing)
    add_database_option(listing)
    listing.set_defaults(run=_ladder_list)
    remove = ladder_commands.add_parser(
        "remove", help="remove a ladder (games under way go on; no more start)"
    )
    remove.add_argument("name", metavar="NAME")
    _add_redis_options(remove)
    add_database_option(remove)
    remove.set_defaults(run=_ladder_remove)
    table = ladder_commands.add_parser(
        "standings",
        help="a ladder's standings: the rating list with 95%% intervals, Glicko-2, last seen, "
        "owner, engine, and the last games",
        description="Print a ladder's standings and its last games, from its database (and "
        "who is connected now from its Redis) or, with --server, asked of a running server as "
        "a guest.",
    )
    table.add_argument("name", metavar="NAME")
    table.add_argument("--server", metavar="URL", help="ask the server at URL (ws://host:port)")
    table.add_argument(
        "--cross",
        action="store_true",
        help="also the cross table: each bot's wins-losses against each other, columns by rank",
    )
    _add_redis_options(table)
    add_database_option(table)
    table.set_defaults(run=_ladder_standings)


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


def _signups(text: str) -> bool:
    """Whether anyone may sign up: `open` or `closed` (checked for ARENA_SIGNUPS too)."""
    if text not in ("open", "closed"):
        raise argparse.ArgumentTypeError(f"sign-ups are open or closed, got {text!r}")
    return text == "open"


def _gc(text: str) -> bool:
    """Whether the server tunes the garbage collector: `frozen` or `python` (checked for
    ARENA_GC too)."""
    if text not in ("frozen", "python"):
        raise argparse.ArgumentTypeError(f"the collector is frozen or python, got {text!r}")
    return text == "frozen"


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


def _utc_day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def _game_name(text: str) -> str:
    names = game_names()
    if text not in names:
        raise argparse.ArgumentTypeError(f"no game {text!r}; the games are {', '.join(names)}")
    return text


def _day_ms(day: datetime.date) -> int:
    """When the UTC day `day` begins, in ms since the epoch."""
    return int(datetime.datetime.combine(day, datetime.time(), datetime.UTC).timestamp()) * 1000


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
    print(f"{command_name(args)}: {text}", file=sys.stderr, flush=True)


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
    if not args.redis_url:
        _progress("starting Redis")
    with _redis_url(args) as url:
        # Before the workers and the server: a database that cannot be used stops it here.
        _progress("starting the database")
        _note(args, open_database(args.database_url, args.data_dir))
        _progress("starting the server")
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
    from server.db import Database  # its libraries load only for the commands that use it

    # Made or upgraded already (`_serve`): at its schema's head, this opens without Alembic.
    database = await Database.open(args.database_url, args.data_dir)
    await _move_keys(args, redis)
    await _move_accounts(args, redis, database)
    await _move_ladders(args, redis, database)
    if not args.redis_url:
        # The private Redis is this server's own: it starts with the default ladders.
        for ladder in await LadderStore(redis, database).ensure_defaults():
            log.info("ladder_created", ladder=ladder.name, terms=ladder.terms)
    arena = Arena(
        redis,
        time_controls=args.time_controls,
        claim_grace_ms=round(args.claim_grace * 1000),
        attendance_ms=round(args.presence_lapse * 1000),
        ended_window_ms=round(args.ended_window * 1000),
        allowed_origins=args.allowed_origin,
        database=database,
        signups=args.signups,
        freezer=collector.Freezer() if args.gc else None,
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
        if args.gc:
            collector.settle()
        saying = asyncio.create_task(_say_readiness(arena))
        await stop.wait()
        saying.cancel()
        log.info("stopping", connections=len(arena.sessions))
    finally:
        # Each step is bounded: a client that does not answer its close frame, or a Redis
        # that went away, must not keep the process from exiting. Games are safe in Redis.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop_serving(server), CLOSE_SECONDS + 1)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(arena.close(), CLOSE_SECONDS)
        with contextlib.suppress(TimeoutError, OSError):
            await asyncio.wait_for(redis.aclose(), CLOSE_SECONDS)
        with contextlib.suppress(TimeoutError, OSError):
            await asyncio.wait_for(database.close(), CLOSE_SECONDS)
        log.info("stopped")


def _progress(doing: str) -> None:
    """Say on stderr what the server is doing as it starts (`arena play` shows it as it
    waits); stdout's first line stays the one that says where it listens."""
    # A reader gone (`arena play` stopping) is no reason to fail.
    with contextlib.suppress(OSError):
        print(f"arena serve: {doing}", file=sys.stderr, flush=True)


async def _say_readiness(arena: Arena) -> None:
    """Say on stdout how the rules and the house bots get ready, at each change, until every
    one is."""
    said = None
    while True:
        news = arena.house_bots_news
        if news is not None and news != said:
            said = news
            _progress(readiness_text(news))
            if news.rules_ready and news.ready and not news.preparing:
                return
        await asyncio.sleep(HOUSE_BOTS_SECONDS)


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
    # Bound before the house bots are prepared, so a port in use fails at once.
    metrics = None if args.metrics_port is None else _listen(args.metrics_host, args.metrics_port)
    try:
        with _redis_url(args) as url:

            async def work() -> None:
                await run_worker(url, _stop_event(), metrics, collector.settle)

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


def _user_create(args: argparse.Namespace) -> int:
    configure_logging()
    password = os.environ.get("ARENA_PASSWORD") or _read_password(args.name)
    with _redis_url(args) as url:
        asyncio.run(
            _with_accounts(
                url, args, lambda _, db: identity.create_account(db, args.name, password)
            )
        )
    print(f"created account {args.name}")
    return 0


def _read_password(name: str, *, twice: bool = True) -> str:
    """The password from a terminal, typed without echo (twice, for a new one), or else
    stdin's first line."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    password = getpass.getpass(f"Password for {name}: ")
    if twice and getpass.getpass("The same password again: ") != password:
        raise ValueError("the two passwords differ")
    return password


def _token_create(args: argparse.Namespace) -> int:
    configure_logging()
    if args.server:
        if args.owner is not None:
            raise ValueError("--owner is for this machine's server: with --server, you own the bot")
        made = asyncio.run(_signed_in(args, lambda client: _remote_token(client, args.name)))
        _note(args, f"token {made.token_id} of bot {made.bot}: it is shown only now")
        print(made.token)
        return 0
    with _redis_url(args) as url:
        token = asyncio.run(
            _with_accounts(
                url, args, lambda _, db: identity.create_bot_token(db, args.name, args.owner)
            )
        )
    print(token)
    return 0


async def _remote_token(client: ArenaClient, bot: str) -> TokenCreated:
    """A new token of the signed-in person's bot `bot`, made first if they have none so called
    (as `arena token create` makes one on the server's machine)."""
    try:
        return await client.request(CreateToken(bot), TokenCreated)
    except ArenaError as error:
        if error.code is not ErrorCode.NOT_FOUND:
            raise
    await client.request(CreateBot(bot), BotList)
    return await client.request(CreateToken(bot), TokenCreated)


async def _remote_tokens(client: ArenaClient) -> list[identity.BotToken]:
    """Every live token of the signed-in person's bots, by bot and then age."""
    tokens = []
    for bot in (await client.request(ListBots(), BotList)).bots:
        listed = await client.request(ListTokens(bot.name), TokenList)
        tokens += [
            identity.BotToken(token.token_id, listed.bot, _utc(token.created))
            for token in listed.tokens
        ]
    return tokens


async def _signed_in(args: argparse.Namespace, action: Callable[[ArenaClient], Awaitable[T]]) -> T:
    """`action` on a connection to the server at --server, logged in to the account of --user
    (asked for, as is the password, when not given); a refusal is a ValueError, in one line."""
    user = args.user or _ask("User name: ", "no user name: give --user NAME or set ARENA_USER")
    password = os.environ.get("ARENA_PASSWORD") or _read_password(user, twice=False)
    async with connected(args.server) as client:
        try:
            await client.login(user, password)
            return await action(client)
        except ArenaError as error:
            raise ValueError(f"the server at {args.server} says: {error.reply.message}") from None


def _ask(prompt: str, otherwise: str) -> str:
    if not sys.stdin.isatty():
        raise ValueError(otherwise)
    return input(prompt).strip()


def _utc(ms: int | None) -> datetime.datetime | None:
    return None if ms is None else datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


def _token_list(args: argparse.Namespace) -> int:
    configure_logging()
    if args.server:
        tokens = asyncio.run(_signed_in(args, _remote_tokens))
    else:
        with _redis_url(args) as url:
            tokens = asyncio.run(
                _with_accounts(url, args, lambda _, db: identity.list_bot_tokens(db))
            )
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
    if args.server:

        async def revoke(client: ArenaClient) -> str:
            return (await client.request(RevokeToken(args.id), TokenList)).bot

        print(f"revoked bot token {args.id} of {asyncio.run(_signed_in(args, revoke))}")
        return 0
    with _redis_url(args) as url:
        token = asyncio.run(
            _with_accounts(url, args, lambda r, db: identity.revoke_bot_token(r, db, args.id))
        )
    print(f"revoked bot token {token.id} of {token.bot}")
    return 0


def _ladder_create(args: argparse.Namespace) -> int:
    ladder = Ladder.new(args.name, parse_time(args.time), args.game, args.setup)
    controls = TimeControls.parse(os.environ.get("ARENA_TIME_CONTROLS", DEFAULT_TIME_CONTROLS))
    refusal = ladder.refusal(Offered.every_game(controls, HOUSE_BOTS))
    if refusal is not None:
        raise ValueError(f"the server does not offer {refusal}")
    configure_logging()
    with _redis_url(args) as url:
        added = asyncio.run(_with_ladders(url, args, lambda store: store.create(ladder)))
    if not added:
        raise ValueError(f"there is a ladder {args.name} already; `arena ladder remove` it first")
    print(f"created ladder {ladder.name}: {ladder.terms}")
    return 0


def _ladder_list(args: argparse.Namespace) -> int:
    async def listing(store: LadderStore) -> list[tuple[Ladder, dict[str, int]]]:
        now = now_ms()
        return [(ladder, await store.members(ladder.name, now)) for ladder in await store.ladders()]

    configure_logging()
    with _redis_url(args) as url:
        ladders = asyncio.run(_with_ladders(url, args, listing))
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
        ladder = asyncio.run(_with_ladders(url, args, lambda store: store.remove(args.name)))
    print(f"removed ladder {ladder.name}")
    return 0


def _ladder_standings(args: argparse.Namespace) -> int:
    async def table(store: LadderStore) -> Table:
        return await store.table(args.name, now_ms())

    async def asked(url: str) -> Table:
        async with connected(url) as client:
            await client.guest()
            try:
                reply = await client.request(LadderStandings(args.name), Standings)
            except ArenaError as error:
                raise ValueError(f"the server at {url} says: {error.reply.message}") from None
        return Table.from_wire(reply)

    configure_logging()
    if args.server:
        shown = asyncio.run(asked(args.server))
    else:
        with _redis_url(args) as url:
            shown = asyncio.run(_with_ladders(url, args, table))
    print(shown.render(now_ms()), end="")
    if args.cross:
        print("\n" + shown.render_cross(), end="")
    return 0


def _archive(args: argparse.Namespace) -> int:
    # Read first: a file that is not records stops the export before anything is appended.
    present = set()
    if args.out is not None and args.out.exists():
        present = {record.game_id for record in read_records(args.out)}
    if args.since is not None and args.until is not None and args.until < args.since:
        raise ValueError(f"--until {args.until} is before --since {args.since}")
    from server.db import Database
    from server.db.finished_games import every_game

    async def export() -> list[GameRecord]:
        # A path in full: the line says which folder's games these are.
        database = await Database.open(args.database_url, args.data_dir.absolute())
        try:
            _note(args, f"finished games of {database.where}")
            found = [
                game
                async for game in every_game(
                    database,
                    player=args.player,
                    since=None if args.since is None else _day_ms(args.since),
                    until=None if args.until is None else _day_ms(args.until + ONE_DAY),
                    game=args.game,
                    rated=args.rated,
                    ladder=None if args.ladder is None else args.ladder.lower(),
                )
            ]
        finally:
            await database.close()
        return [game.record for game in reversed(found)]

    configure_logging()
    records = asyncio.run(export())
    lines = [record.to_json() for record in records if record.game_id not in present]
    if args.out is None:
        for line in lines:
            print(line)
        return 0
    # A gzip file may hold several members one after another: appending one keeps it readable.
    with gzip.open(args.out, "at") if args.out.suffix == ".gz" else args.out.open("a") as out:
        out.writelines(line + "\n" for line in lines)
    written = f"{len(lines)} game{'s' if len(lines) != 1 else ''}"
    kept = len(records) - len(lines)
    print(f"wrote {written} to {args.out}" + (f" ({kept} already there)" if kept else ""))
    return 0


async def _with_accounts(
    url: str, args: argparse.Namespace, action: Callable[[aioredis.Redis, Database], Awaitable[T]]
) -> T:
    """`action` on the Redis at `url` and the database of `args`, the accounts of an older data
    folder moved into it first (`_move_accounts`)."""
    from server.db import Database

    database = await Database.open(args.database_url, args.data_dir)
    try:

        async def moved_first(redis: aioredis.Redis) -> T:
            await _move_accounts(args, redis, database)
            return await action(redis, database)

        return await _with_redis(url, moved_first)
    finally:
        await database.close()


async def _move_keys(args: argparse.Namespace, redis: aioredis.Redis) -> None:
    """Rename the keys a data folder kept under the names of servers before a cluster could hold
    them, once, and say so."""
    from server.moved_keys import move_keys

    moved = await move_keys(redis)
    if moved is not None and any(moved):
        log.info("keys_moved", **moved._asdict())
        _note(args, str(moved))


async def _move_accounts(args: argparse.Namespace, redis: aioredis.Redis, db: Database) -> None:
    """Move the accounts and bot tokens a data folder kept in Redis before the database into
    it, on the first start against a database without accounts, and say so."""
    moved = await identity.move_to_database(redis, db)
    if moved is not None and any(moved):
        log.info("accounts_moved", accounts=moved[0], bot_tokens=moved[1], database=db.where)
        accounts, tokens = (
            f"{n} {what}{'' if n == 1 else 's'}"
            for n, what in zip(moved, ("account", "bot token"), strict=True)
        )
        _note(args, f"moved {accounts} and {tokens} from Redis to {db.where}")


async def _with_ladders(
    url: str, args: argparse.Namespace, action: Callable[[LadderStore], Awaitable[T]]
) -> T:
    """`action` on the ladders of the Redis at `url` and the database of `args`, an older data
    folder's ladders moved into it first (`_move_ladders`)."""

    async def moved_first(redis: aioredis.Redis, database: Database) -> T:
        await _move_ladders(args, redis, database)
        return await action(LadderStore(redis, database))

    return await _with_accounts(url, args, moved_first)


async def _move_ladders(args: argparse.Namespace, redis: aioredis.Redis, db: Database) -> None:
    """Move the ladders a data folder kept in Redis before the database into it, once, and say
    so."""
    from server.db.moved_ladders import move_ladders

    moved = await move_ladders(db, redis)
    if moved is not None:
        log.info("ladders_moved", **moved._asdict(), database=db.where)
        _note(args, f"moved {moved} from Redis to {db.where}")


async def _with_redis(url: str, action: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
    redis = open_redis(url)
    try:
        return await action(redis)
    finally:
        await redis.aclose()
