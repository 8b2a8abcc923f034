import asyncio
import io
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis, from_url

import server.cli
import server.commands
from clients import ArenaClient
from server import identity
from server.cli import DEFAULT_DATA_DIR, main
from server.db import Database
from server.protocol import PlayerKind
from server.redis_embedded import EmbeddedRedis
from tests.server.db.test_accounts import OLD_TOKEN, write_old_folder

COMMAND_SECONDS = 60  # for one command to run, so a command that hangs fails its test


class _Gone(io.StringIO):
    """Standard output whose reader has gone away, as in `arena moves | head -1`."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_goes_away_is_not_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", _Gone())
    assert main(["moves"]) == 0
    assert capsys.readouterr().err == ""


def test_an_unreadable_file_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "/nonexistent/games.jsonl"])
    assert exit_info.value.code == 2
    assert "arena fit: error: cannot read /nonexistent/games.jsonl" in capsys.readouterr().err


def test_a_bad_metrics_port_in_the_environment_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARENA_METRICS_PORT", "ninety")
    with pytest.raises(SystemExit) as exit_info:
        main(["worker"])
    assert exit_info.value.code == 2
    assert "argument --metrics-port: a port is 0..65535, got 'ninety'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "environment"),
    [(["serve", "--signups", "maybe"], {}), (["serve"], {"ARENA_SIGNUPS": "maybe"})],
)
def test_a_sign_up_setting_other_than_open_or_closed_is_named(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    environment: dict[str, str],
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "argument --signups: sign-ups are open or closed, got 'maybe'" in (
        capsys.readouterr().err
    )


def test_the_workers_arena_serve_starts_get_no_metrics_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several workers cannot share one port: those of `arena serve --workers N` have none."""
    started: list[dict[str, str]] = []

    def popen(args: list[str], env: dict[str, str], **options: Any) -> None:
        started.append(env)

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setenv("ARENA_METRICS_PORT", "9101")
    monkeypatch.setenv("ARENA_METRICS_HOST", "0.0.0.0")
    server.commands._start_worker("redis://localhost:6379/0")
    assert "ARENA_METRICS_PORT" not in started[0]
    assert "ARENA_METRICS_HOST" not in started[0]


def _arena(
    *args: str, cwd: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` run as a user would, from `cwd`, with stdout and stderr apart."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_") and k != "REDIS_URL"}
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        cwd=cwd,
        env={**clean, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )


def test_a_token_is_the_only_output_and_the_data_folder_is_named(tmp_path: Path) -> None:
    data = tmp_path / ".arena"
    first = _arena("token", "create", "mybot", "--bot", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"bot_[A-Za-z0-9_-]{43}\n", first.stdout)
    assert f"data folder {data} (a new database" in first.stderr
    again = _arena("token", "create", "mybot", "--bot", cwd=tmp_path)
    assert re.fullmatch(r"bot_[A-Za-z0-9_-]{43}\n", again.stdout)
    assert f"data folder {data}" in again.stderr
    assert "new database" not in again.stderr


def test_a_bots_owner_is_a_human_account_and_is_not_changed(tmp_path: Path) -> None:
    for human in ("ann", "cid"):
        made = _arena("user", "create", human, cwd=tmp_path, env={"ARENA_PASSWORD": "pw"})
        assert made.returncode == 0, made.stderr
    owned = _arena("token", "create", "mybot", "--bot", "--owner", "ANN", cwd=tmp_path)
    assert re.fullmatch(r"bot_[A-Za-z0-9_-]{43}\n", owned.stdout), owned.stderr
    again = _arena("token", "create", "mybot", "--bot", "--owner", "ann", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    for owner, problem in [
        ("cid", "bot 'mybot' is owned by 'ann', not 'cid'; an owner is not changed"),
        ("nobody", "a bot's owner is a human account: there is no account 'nobody'"),
        ("mybot", "a bot's owner is a human account: that is not a human account 'mybot'"),
    ]:
        refused = _arena("token", "create", "mybot", "--bot", "--owner", owner, cwd=tmp_path)
        assert (refused.returncode, refused.stdout) == (2, ""), refused.stderr
        assert refused.stderr.splitlines()[-1] == f"arena token create: error: {problem}"


def test_archive_and_user_create_write_only_their_output_to_stdout(tmp_path: Path) -> None:
    created = _arena("user", "create", "ann", cwd=tmp_path, env={"ARENA_PASSWORD": "pw"})
    assert (created.returncode, created.stdout) == (0, "created account ann\n"), created.stderr
    archived = _arena("archive", cwd=tmp_path)
    assert (archived.returncode, archived.stdout) == (0, ""), archived.stderr
    assert f"{tmp_path / '.arena' / 'arena.sqlite3'}" in archived.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--port", "0", "--workers", "0"],
        ["worker"],
        ["token", "create", "mybot", "--bot"],
        ["user", "create", "ann"],
    ],
)
def test_a_redis_that_does_not_answer_is_one_line_naming_it(
    command: list[str], tmp_path: Path
) -> None:
    url = "redis://:secret@127.0.0.1:1/0"
    result = _arena(*command, "--redis-url", url, cwd=tmp_path, env={"ARENA_PASSWORD": "pw"})
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "cannot reach Redis at redis://:***@127.0.0.1:1/0" in result.stderr
    assert "secret" not in result.stderr


class _Terminal:
    """`arena ARGS` on a pseudo-terminal of its own, read and typed into as a person would."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.output = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes the command, with the terminal as its own
            os.chdir(cwd)
            os.execv(sys.executable, [sys.executable, "-m", "server.cli", *args])

    def expect(self, text: str) -> None:
        """Read until `text` has appeared; fail after COMMAND_SECONDS."""
        deadline = time.monotonic() + COMMAND_SECONDS
        while text.encode() not in self.output:
            if not self._read(deadline):
                pytest.fail(f"no {text!r} in {self.output.decode(errors='replace')!r}")

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def finish(self) -> int:
        """Read to the end and return the exit status."""
        deadline = time.monotonic() + COMMAND_SECONDS
        while self._read(deadline):
            pass
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    def _read(self, deadline: float) -> bool:
        if not select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            os.kill(self.pid, signal.SIGKILL)
            return False
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # EIO: the command has exited and closed the terminal
            return False
        self.output += data
        return bool(data)


def test_user_create_asks_a_terminal_for_the_password_twice_without_echo(
    tmp_path: Path, redis_url: str, redis: Redis
) -> None:
    # `redis` empties the session's Redis first: an account another test left there would be
    # moved into the new database as an older data folder's.
    terminal = _Terminal("user", "create", "ann", "--redis-url", redis_url, cwd=tmp_path)
    terminal.expect("Password for ann: ")
    terminal.type("s3cret-pw")
    terminal.expect("The same password again: ")
    terminal.type("s3cret-pw")
    assert terminal.finish() == 0, terminal.output
    assert b"created account ann" in terminal.output
    assert b"s3cret-pw" not in terminal.output

    async def log_in() -> identity.Account | None:
        database = await Database.open(None, tmp_path / DEFAULT_DATA_DIR)
        try:
            return await identity.authenticate(database, "ann", "s3cret-pw")
        finally:
            await database.close()

    assert asyncio.run(log_in()) == identity.Account("ann", PlayerKind.HUMAN)


def test_user_create_refuses_two_different_passwords(tmp_path: Path, redis_url: str) -> None:
    terminal = _Terminal("user", "create", "bob", "--redis-url", redis_url, cwd=tmp_path)
    terminal.expect("Password for bob: ")
    terminal.type("one-password")
    terminal.expect("The same password again: ")
    terminal.type("another-one")
    assert terminal.finish() == 2
    assert b"arena user create: error: the two passwords differ" in terminal.output


def test_an_older_folders_accounts_move_to_the_database_once_and_it_says_so(
    tmp_path: Path,
) -> None:
    """A folder whose accounts and tokens today's code kept in Redis: the first command that
    opens its database moves them (and says how many), the old token is listed and logs in."""

    async def write() -> None:
        client = from_url(redis.url)
        try:
            await write_old_folder(client)
        finally:
            await client.aclose()

    with EmbeddedRedis(tmp_path / DEFAULT_DATA_DIR) as redis:
        asyncio.run(write())
    listed = _arena("token", "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "arena token list: moved 2 accounts and 1 bot token from Redis to " in listed.stderr
    assert listed.stdout.split()[:2] == [identity.token_id(OLD_TOKEN), "Crawler"]
    again = _arena("token", "list", cwd=tmp_path)
    assert "moved" not in again.stderr
    assert again.stdout == listed.stdout


def test_tokens_are_listed_and_revoked(tmp_path: Path) -> None:
    made = [_arena("token", "create", "MyBot", "--bot", cwd=tmp_path).stdout for _ in range(2)]
    ids = [identity.token_id(token.strip()) for token in made]
    listed = _arena("token", "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [[ids[0], "MyBot"], [ids[1], "MyBot"]]
    assert all(re.search(r"  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", line) for line in lines)

    revoked = _arena("token", "revoke", ids[0], cwd=tmp_path)
    assert (revoked.returncode, revoked.stdout) == (0, f"revoked bot token {ids[0]} of MyBot\n")
    assert [
        line.split()[0] for line in _arena("token", "list", cwd=tmp_path).stdout.splitlines()
    ] == [ids[1]]
    again = _arena("token", "revoke", ids[0], cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.splitlines()[-1] == (
        f"arena token revoke: error: no bot token with id {ids[0]}; `arena token list` shows them"
    )


def _processes_naming(folder: Path) -> list[str]:
    """The command lines of running processes that name `folder` (a server, worker or Redis
    of it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # gone meanwhile
        if str(folder) in command:
            found.append(command)
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_arena_play_runs_its_own_server_and_leaves_nothing_behind(tmp_path: Path) -> None:
    data = tmp_path / "play-data"

    async def sign_in(url: str) -> str:
        client = await ArenaClient.connect(url)
        welcome = await client.guest()
        await client.close()
        return welcome.user.name

    with server.cli._background_server(data) as url:
        assert re.fullmatch(r"ws://127\.0\.0\.1:\d+", url)
        assert asyncio.run(sign_in(url)).startswith("guest")
        running = _processes_naming(data)
        assert any(" serve " in c for c in running), running
        assert any(" worker " in c for c in running), running
        assert any("redis-server" in c for c in running), running
    assert _processes_naming(data) == []
    assert (data / "appendonly.aof").exists()
    assert "serving" in (data / "play-server.log").read_text()
