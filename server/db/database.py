"""Opening the history store: a database URL (or none: a SQLite file in the data folder) made
into an engine on an async driver (aiosqlite, asyncpg), its schema brought up to date, and the
transactions the queries run in. Every way a database cannot be used is a `DatabaseError` of one
line naming it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Concatenate, Final, ParamSpec, TypeVar, TypeVarTuple

from sqlalchemy import URL, Engine, Row, Select, create_engine, event, make_url
from sqlalchemy.engine import Connection
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from server.db.errors import DatabaseError
from server.db.migrate import SchemaRevisions, upgrade_schema

__all__ = ["DATABASE_FILE", "Database", "DatabaseError", "database_url"]

DATABASE_FILE = "arena.sqlite3"  # the default database, in the data folder
CONNECT_SECONDS = 10  # for a PostgreSQL server to answer before the program gives up on it
# For SQLite's write lock, which one writer at a time holds (a second process, a retry): the
# longest write is a game's end, a few ms.
SQLITE_BUSY_SECONDS = 30
READING_THREADS = 2  # on SQLite, for `Database.first`: reads at once, beside the writer
SQLITE_HEADER: Final = b"SQLite format 3\x00"
# An execution option: the transaction writes, and on SQLite takes the write lock as it
# begins (BEGIN IMMEDIATE), so what it reads cannot change before it writes.
_WRITES = "arena_writes"

T = TypeVar("T")
P = ParamSpec("P")
Ts = TypeVarTuple("Ts")


def database_url(url: str | None, data_dir: Path) -> URL:
    """The URL of the database to open on an async driver: `url` (sqlite:///PATH or
    postgresql://...), or with none the SQLite file DATABASE_FILE in `data_dir`."""
    if url is None:
        return URL.create("sqlite+aiosqlite", database=str(data_dir / DATABASE_FILE))
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError(
            f"database URL {url!r} is not a URL: give sqlite:///PATH or "
            "postgresql://USER:PASSWORD@HOST:PORT/NAME"
        ) from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise DatabaseError(f"database URL {url!r} names no file: give sqlite:///PATH")
        return parsed.set(drivername="sqlite+aiosqlite")
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+asyncpg")
    raise DatabaseError(
        f"database URL {shown(parsed)!r}: the database is SQLite (sqlite:///PATH) or "
        f"PostgreSQL (postgresql://...), not {backend}"
    )


def shown(url: URL) -> str:
    """`url` as messages show it: the password hidden, the driver as the user would write it."""
    return url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)


class Database:
    """The history store, open: `open` it, run queries in `reading` and `writing` transactions
    (or a whole writing transaction in one step: `transact`), `close` it."""

    def __init__(
        self,
        engine: AsyncEngine,
        revisions: SchemaRevisions,
        where: str,
        blocking: Engine | None = None,
    ) -> None:
        self.engine = engine
        self.revisions = revisions  # the schema's revision before and after opening
        self.where = where  # the database as messages name it, without its password
        # SQLite's: the same file on the blocking driver, for `transact` on a thread of its own.
        self._blocking = blocking
        # One writer, as SQLite has; readers of their own, which its write-ahead log lets read
        # while it writes.
        self._writer: ThreadPoolExecutor | None = None
        self._readers: ThreadPoolExecutor | None = None
        if blocking is not None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="arena-db-write")
            self._readers = ThreadPoolExecutor(READING_THREADS, thread_name_prefix="arena-db-read")

    @classmethod
    async def open(cls, url: str | None, data_dir: Path) -> Database:
        """The database at `url` (`database_url`), its schema upgraded to the program's.
        A DatabaseError when it cannot be: the URL is not one, its server does not answer, its
        file is not a SQLite database (left as it is), its schema is newer than the program."""
        target = database_url(url, data_dir)
        where = shown(target)
        if url is None:
            data_dir.mkdir(parents=True, exist_ok=True)
        blocking = None
        if target.get_backend_name() == "sqlite":
            _check_sqlite_file(Path(target.database or ""))
            engine = create_async_engine(
                target, connect_args={"timeout": SQLITE_BUSY_SECONDS}, pool_pre_ping=False
            )
            _take_sqlite_transactions(engine.sync_engine)
            blocking = create_engine(
                target.set(drivername="sqlite+pysqlite"),
                connect_args={"timeout": SQLITE_BUSY_SECONDS},
            )
            _take_sqlite_transactions(blocking)
        else:
            engine = create_async_engine(
                target, connect_args={"timeout": CONNECT_SECONDS}, pool_pre_ping=True
            )
        try:
            async with engine.connect() as connection:
                connection = await connection.execution_options(**{_WRITES: True})
                revisions = await connection.run_sync(upgrade_schema, where)
                await connection.commit()
        except BaseException as error:
            await engine.dispose()
            if blocking is not None:
                blocking.dispose()
            if isinstance(error, DatabaseError):
                raise
            if isinstance(error, SQLAlchemyError | OSError | TimeoutError):
                raise DatabaseError(_failure(target, error)) from None
            raise
        return cls(engine, revisions, where, blocking)

    async def close(self) -> None:
        await self.engine.dispose()
        for pool in (self._writer, self._readers):
            if pool is not None:
                pool.shutdown()
        if self._blocking is not None:
            self._blocking.dispose()

    def opened(self) -> str:
        """What opening it did to the schema, for a line to the user."""
        before, after = self.revisions
        if before is None:
            return f"database {self.where}: schema {after} made"
        if before != after:
            return f"database {self.where}: schema {before} upgraded to {after}"
        return f"database {self.where}: schema {after}, the newest"

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self.engine.dialect.name

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """A transaction that reads."""
        async with self.engine.connect() as connection, connection.begin():
            yield connection

    async def transact(
        self, work: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`work(connection, *args, **kwargs)` in one writing transaction (as `writing`'s),
        committed when it returns, its statements run on a blocking `connection`. On SQLite the
        whole of it runs on a thread of the database's own, in one hand-off: the async driver
        hands each statement's every step to its thread and back (a game's end made some 70
        such trips, most of its cost). On PostgreSQL the statements go through the async driver
        as `writing`'s do."""
        if self._blocking is None:
            async with self.writing() as connection:
                return await connection.run_sync(work, *args, **kwargs)

        def bound(connection: Connection) -> T:
            return work(connection, *args, **kwargs)

        return await self._on_thread(self._writer, True, bound)

    async def first(self, statement: Select[*Ts], parameters: Mapping[str, Any]) -> Row[*Ts] | None:
        """The first row `statement` reads with `parameters`, or None, in a reading transaction
        of its own: on SQLite in one hand-off (as `transact`), on a reading thread, so a login
        waits for no game's end."""
        if self._blocking is None:
            async with self.reading() as connection:
                return (await connection.execute(statement, parameters)).first()

        def read(connection: Connection) -> Row[*Ts] | None:
            return connection.execute(statement, parameters).first()

        return await self._on_thread(self._readers, False, read)

    async def _on_thread(
        self, pool: ThreadPoolExecutor | None, writes: bool, work: Callable[[Connection], T]
    ) -> T:
        """`work` in one transaction on the blocking engine, on a thread of `pool`."""
        blocking = self._blocking
        assert blocking is not None, "only SQLite's database has a blocking engine"
        assert pool is not None, "SQLite's blocking engine has its threads"

        def run() -> T:
            with blocking.connect() as connection:
                connection = connection.execution_options(**{_WRITES: writes})
                with connection.begin():
                    return work(connection)

        return await asyncio.get_running_loop().run_in_executor(pool, run)

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        """A transaction that writes, committed when the block ends without an error; on SQLite
        it holds the write lock from its start."""
        async with self.engine.connect() as connection:
            connection = await connection.execution_options(**{_WRITES: True})
            async with connection.begin():
                yield connection


def _check_sqlite_file(path: Path) -> None:
    """Refuse a file that is there and is not a SQLite database: SQLite would fail on it, and
    it must never be written over; and one that cannot be made, in a folder that is not there."""
    if not path.parent.is_dir():
        raise DatabaseError(f"cannot open the database {path}: there is no folder {path.parent}")
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as error:
        raise DatabaseError(f"cannot read the database {path}: {error.strerror}") from None
    if header and header != SQLITE_HEADER:
        raise DatabaseError(_not_sqlite(path))


def _not_sqlite(path: Path) -> str:
    return (
        f"{path} is not a SQLite database (damaged, or another kind of file); it is left as it "
        "is: move it away, or give another with --database-url"
    )


def _take_sqlite_transactions(engine: Engine) -> None:
    """Have SQLAlchemy begin SQLite's transactions itself (the sqlite3 module's own begin late
    and never before DDL), a writing one with the write lock, and have SQLite enforce foreign
    keys and let readers read while one writes (write-ahead log). A commit is synced at the
    log's checkpoints only: it survives the process's death, and a power cut may lose the last
    ones, as Redis's append-only file syncs once a second; it halves a game's end (3.6 ms)."""

    @event.listens_for(engine, "connect")
    def connect(dbapi_connection: Any, _record: object) -> None:
        dbapi_connection.isolation_level = None
        try:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")  # the first read of a file
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.close()
        except Exception:
            # Not a database: closed here, not left to stop its thread after its event loop.
            dbapi_connection.close()
            raise

    @event.listens_for(engine, "begin")
    def begin(connection: Connection) -> None:
        writes = connection.get_execution_options().get(_WRITES, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def _failure(url: URL, error: BaseException) -> str:
    """One line for a database that could not be opened."""
    if url.get_backend_name() == "sqlite":
        cause = getattr(error, "orig", error)
        if isinstance(cause, sqlite3.DatabaseError) and "not a database" in str(cause):
            return _not_sqlite(Path(url.database or ""))
        return f"cannot open the database {url.database}: {_reason(error)}"
    if isinstance(error, TimeoutError):
        return f"cannot reach the database at {shown(url)}: no answer in {CONNECT_SECONDS} s"
    return f"cannot reach the database at {shown(url)}: {_reason(error)}"


def _reason(error: BaseException) -> str:
    """The driver's or the operating system's words for a failure, on one line."""
    cause: BaseException | None = error
    while cause is not None:
        # asyncpg words a refused connection its own way; the system's words are plainer.
        if isinstance(cause, OSError) and cause.errno and cause.errno > 0:
            return os.strerror(cause.errno)
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
        inner = getattr(cause, "orig", None)
        if inner is None:
            break
        cause = inner
    text = str(cause if cause is not None else error)
    return text.splitlines()[0] if text else type(error).__name__
