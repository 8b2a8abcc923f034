"""The history store's schema versions: Alembic's revisions shipped in `server/db/migrations/`
and run by the program on its own connection (no alembic.ini). A database is brought up to the
program's newest revision; one at a revision the program does not know (a newer program wrote
it) is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from server.db.errors import DatabaseError

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["HEAD", "MIGRATIONS", "SchemaRevisions", "head_revision", "upgrade_schema"]

MIGRATIONS = Path(__file__).with_name("migrations")
# The newest revision in migrations/versions (a test holds it to them): a database already at
# it is opened without loading Alembic, a tenth of a second of every server's start.
HEAD: Final = "0006"
VERSION_TABLE = "alembic_version"  # where Alembic keeps a database's revision
# Held by the transaction that upgrades a PostgreSQL database, so two servers starting at once
# upgrade it one after the other (SQLite's write lock does as much for a file).
_UPGRADE_LOCK = 0x41_72_65_6E_61  # "Arena"


class SchemaRevisions(NamedTuple):
    """A database's schema revision before an upgrade (None: it had no schema) and after."""

    before: str | None
    after: str


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision among the migrations, as Alembic finds it."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "server/db/migrations has no revision"
    return head


def _revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    found: str | None = connection.execute(
        text(f"SELECT version_num FROM {VERSION_TABLE}")
    ).scalar()
    return found


def upgrade_schema(connection: Connection, where: str) -> SchemaRevisions:
    """Bring the schema of the database on `connection` (named `where` in messages) up to the
    newest revision, in the connection's transaction. A DatabaseError when the database's
    revision is one the program does not know."""
    current = _revision(connection)
    if current == HEAD:
        return SchemaRevisions(HEAD, HEAD)
    from alembic import command
    from alembic.script import ScriptDirectory

    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _UPGRADE_LOCK})
        current = _revision(connection)  # another server may have upgraded it meanwhile
    config = _config(connection)
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    if current is not None and current not in known:
        raise DatabaseError(
            f"the database {where} has schema revision {current}, newer than this program's "
            f"({HEAD}): run a newer version of the program on it"
        )
    if current != HEAD:
        command.upgrade(config, "head")
    return SchemaRevisions(current, HEAD)
