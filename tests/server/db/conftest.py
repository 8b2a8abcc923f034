"""The history store's tests run on SQLite and on a real PostgreSQL server: one per test worker
(a pytest session under xdist), started from the system's binaries (Debian's `postgresql`
package) with pytest-postgresql on a free port in a folder of its own, and stopped after. Each
test gets a database of its own on it.

PostgreSQL's `initdb` and server refuse to run as root, as CI and the tests here do: then
pg_ctl runs as the `postgres` user, through a small script given to pytest-postgresql as its
pg_ctl, in a folder that user owns.
"""

import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import port_for
import pytest
import pytest_asyncio
from pytest_postgresql.executors.proc import PostgreSQLExecutor
from pytest_postgresql.janitor import DatabaseJanitor

from server.db import Database

POSTGRES_USER = "postgres"  # the system's user that owns the server's files when run as root


def _pg_ctl() -> Path:
    """The newest pg_ctl of the system's PostgreSQL."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda path: int(path.parts[-3])
    )
    if not found:
        pytest.fail(
            "no PostgreSQL binaries in /usr/lib/postgresql: install Debian's postgresql "
            "package (.ci/run does)"
        )
    return found[-1]


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[PostgreSQLExecutor]:
    pg_ctl = _pg_ctl()
    folder = Path(tempfile.mkdtemp(prefix="arena-pg-", dir="/tmp"))
    executable = pg_ctl
    if os.geteuid() == 0:
        shutil.chown(folder, POSTGRES_USER)
        executable = folder / "pg_ctl"
        executable.write_text(f'#!/bin/sh\nexec runuser -u {POSTGRES_USER} -- {pg_ctl} "$@"\n')
        executable.chmod(0o755)
    port = port_for.get_port(None)
    assert port is not None
    server = PostgreSQLExecutor(
        executable=str(executable),
        host="127.0.0.1",
        port=port,
        datadir=str(folder / "data"),
        unixsocketdir=str(folder),
        logfile=str(folder / "server.log"),
        startparams="-w",
        dbname="arena",
        user=POSTGRES_USER,
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgresql_url(postgresql_server: PostgreSQLExecutor) -> Iterator[str]:
    """A new, empty database on the session's PostgreSQL server, dropped after the test."""
    name = f"arena_{uuid.uuid4().hex[:12]}"
    janitor = DatabaseJanitor(
        user=POSTGRES_USER,
        host=postgresql_server.host,
        port=postgresql_server.port,
        dbname=name,
    )
    janitor.init()
    try:
        yield (
            f"postgresql://{POSTGRES_USER}@{postgresql_server.host}:{postgresql_server.port}/{name}"
        )
    finally:
        janitor.drop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of a new, empty database: a SQLite file, or a database on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    url: str = request.getfixturevalue("postgresql_url")
    return url


@pytest_asyncio.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    """The database at `database_url`, opened (its schema made) and closed after."""
    database = await Database.open(database_url, Path("unused"))
    try:
        yield database
    finally:
        await database.close()
