"""`arena db upgrade`, and `arena serve` opening the database before it starts anything:
`--database-url` or `ARENA_DATABASE_URL`, else a SQLite file in the data folder."""

import asyncio
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from server.cli import main
from server.db.database import DATABASE_FILE, Database
from server.db.migrate import head_revision

COMMAND_SECONDS = 60  # for one command to run, so a command that hangs fails its test


def _arena(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=COMMAND_SECONDS,
    )


def test_db_upgrade_makes_the_schema_in_the_data_folder_then_says_it_is_the_newest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    database = folder / DATABASE_FILE
    assert main(["db", "upgrade", "--data-dir", str(folder)]) == 0
    head = head_revision()
    assert capsys.readouterr().out == (
        f"arena db upgrade: database sqlite:///{database}: schema {head} made\n"
    )
    assert main(["db", "upgrade", "--data-dir", str(folder)]) == 0
    assert capsys.readouterr().out == (
        f"arena db upgrade: database sqlite:///{database}: schema {head}, the newest\n"
    )


def test_db_upgrade_takes_the_url_from_the_environment(
    postgresql_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", postgresql_url)
    assert main(["db", "upgrade"]) == 0
    assert capsys.readouterr().out == (
        f"arena db upgrade: database {postgresql_url}: schema {head_revision()} made\n"
    )


def test_db_upgrade_leaves_a_newer_schema_as_it_is_and_says_so(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async def from_a_newer_program() -> None:
        db = await Database.open(database_url, Path("unused"))
        async with db.writing() as connection:
            await connection.execute(text("UPDATE alembic_version SET version_num = 'f00d'"))
        await db.close()

    asyncio.run(from_a_newer_program())
    with pytest.raises(SystemExit) as exit_info:
        main(["db", "upgrade", "--database-url", database_url])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("arena db upgrade: error: the database ")
    assert "has schema revision f00d, newer than this program's" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--database-url", "nonsense"], "database URL 'nonsense' is not a URL"),
        (["--database-url", "postgresql://arena:secret@127.0.0.1:1/arena"], "Connection refused"),
    ],
)
def test_serve_with_a_database_it_cannot_use_stops_before_it_listens(
    short_dir: Path, redis_url: str, given: list[str], said: str
) -> None:
    command = ["serve", "--port", "0", "--data-dir", str(short_dir), "--redis-url", redis_url]
    result = _arena(*command, *given, cwd=short_dir)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == "arena serve: starting the database"
    assert result.stderr.splitlines()[1].startswith("arena serve: error: ")
    assert said in result.stderr
    assert len(result.stderr.splitlines()) == 2, result.stderr
    assert "secret" not in result.stderr
    assert list(short_dir.iterdir()) == []  # no database file made


def test_serve_takes_a_bad_url_from_the_environment_too(short_dir: Path) -> None:
    result = _arena(
        "serve", "--data-dir", str(short_dir), cwd=short_dir, env={"ARENA_DATABASE_URL": "x"}
    )
    assert result.returncode == 2
    assert "arena serve: error: database URL 'x' is not a URL" in result.stderr


def test_serve_makes_the_schema_before_it_listens(short_dir: Path, postgresql_url: str) -> None:
    command = ["serve", "--port", "0", "--workers", "0", "--data-dir", str(short_dir)]
    server = subprocess.Popen(
        [sys.executable, "-m", "server.cli", *command, "--database-url", postgresql_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=short_dir,
    )
    try:
        assert server.stdout is not None
        # A server that hangs fails the test rather than holding it.
        assert select.select([server.stdout], [], [], COMMAND_SECONDS)[0], "it never listened"
        line = server.stdout.readline()
        assert line.startswith("arena: serving on ws://"), line
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=COMMAND_SECONDS)
    said = f"arena serve: database {postgresql_url}: schema {head_revision()} made"
    assert said in err.splitlines()

    async def revisions() -> tuple[str | None, str]:
        db = await Database.open(postgresql_url, Path("unused"))
        await db.close()
        return db.revisions

    assert asyncio.run(revisions()) == (head_revision(), head_revision())
