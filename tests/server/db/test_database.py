"""Opening the history store: the schema made and upgraded at start, on SQLite and PostgreSQL,
and every database that cannot be used refused in one line naming it."""

import socket
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection

from server.db.database import DATABASE_FILE, Database
from server.db.errors import DatabaseError
from server.db.migrate import HEAD, head_revision
from server.db.schema import METADATA


def _differences(connection: Connection) -> list[object]:
    return list(compare_metadata(MigrationContext.configure(connection), METADATA))


@pytest.mark.asyncio
async def test_a_new_database_gets_the_schema_the_tables_declare(database_url: str) -> None:
    db = await Database.open(database_url, Path("unused"))
    try:
        assert db.revisions == (None, head_revision())
        async with db.reading() as connection:
            assert await connection.run_sync(_differences) == []
    finally:
        await db.close()
    again = await Database.open(database_url, Path("unused"))
    assert again.revisions == (head_revision(), head_revision())
    await again.close()


@pytest.mark.asyncio
async def test_with_no_url_the_database_is_a_file_in_the_data_folder(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "data"
    db = await Database.open(None, folder)
    await db.close()
    assert db.dialect == "sqlite"
    assert (folder / DATABASE_FILE).read_bytes().startswith(b"SQLite format 3\x00")


@pytest.mark.asyncio
async def test_a_schema_newer_than_the_program_is_refused(database_url: str) -> None:
    db = await Database.open(database_url, Path("unused"))
    async with db.writing() as connection:
        await connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    await db.close()
    with pytest.raises(DatabaseError) as refused:
        await Database.open(database_url, Path("unused"))
    message = str(refused.value)
    assert "has schema revision 9999, newer than this program's" in message
    assert f"({head_revision()})" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("not a url", "database URL 'not a url' is not a URL: give sqlite:///PATH or postgresql:"),
        ("mysql://u:secret@host/db", "PostgreSQL (postgresql://...), not mysql"),
        ("sqlite://", "database URL 'sqlite://' names no file"),
    ],
)
@pytest.mark.asyncio
async def test_a_url_that_names_no_database_we_keep_is_one_line(url: str, said: str) -> None:
    with pytest.raises(DatabaseError) as refused:
        await Database.open(url, Path("unused"))
    assert said in str(refused.value)
    assert "secret" not in str(refused.value)


@pytest.mark.asyncio
async def test_a_postgresql_server_that_does_not_answer_is_named() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nothing listens on it
    url = f"postgresql://arena:secret@127.0.0.1:{port}/arena"
    with pytest.raises(DatabaseError) as refused:
        await Database.open(url, Path("unused"))
    message = str(refused.value)
    assert message.startswith(
        f"cannot reach the database at postgresql://arena:***@127.0.0.1:{port}"
    )
    assert "refused" in message.lower()
    assert "\n" not in message


@pytest.mark.asyncio
async def test_a_database_the_postgresql_server_does_not_have_is_named(postgresql_url: str) -> None:
    url = postgresql_url.rpartition("/")[0] + "/nowhere"
    with pytest.raises(DatabaseError) as refused:
        await Database.open(url, Path("unused"))
    assert str(refused.value) == (
        f'cannot reach the database at {url}: database "nowhere" does not exist'
    )


@pytest.mark.asyncio
async def test_a_sqlite_file_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no such folder" / "arena.sqlite3"
    with pytest.raises(DatabaseError) as refused:
        await Database.open(f"sqlite:///{path}", Path("unused"))
    assert str(refused.value) == (
        f"cannot open the database {path}: there is no folder {path.parent}"
    )


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"these are not the bytes of a database\n" * 200, id="another file"),
        pytest.param(b"SQLite format 3\x00" + b"\xff" * 4000, id="damaged database"),
    ],
)
@pytest.mark.asyncio
async def test_a_file_that_is_not_a_sqlite_database_is_named_and_left_as_it_is(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / DATABASE_FILE
    path.write_bytes(content)
    with pytest.raises(DatabaseError) as refused:
        await Database.open(None, tmp_path)
    message = str(refused.value)
    assert message.startswith(f"{path} is not a SQLite database")
    assert "it is left as it is" in message
    assert path.read_bytes() == content
    assert sorted(tmp_path.iterdir()) == [path]  # no journal or log left beside it either


def test_the_program_knows_its_newest_revision_without_loading_alembic() -> None:
    assert head_revision() == HEAD
