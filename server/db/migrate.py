"""The history store's schema versions: Alembic's revisions shipped in `server/db/migrations/`
and run by the program on its own connection (no alembic.ini). A database is brought up to the
program's newest revision; one at a revision the program does not know (a newer program wrote
it) is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from server.db.errors import DatabaseError

__all__ = ["MIGRATIONS", "SchemaRevisions", "head_revision", "upgrade_schema"]

MIGRATIONS = Path(__file__).with_name("migrations")
# Held by the transaction that upgrades a PostgreSQL database, so two servers starting at once
# upgrade it one after the other (SQLite's write lock does as much for a file).
_UPGRADE_LOCK = 0x41_72_65_6E_61  # "Arena"


class SchemaRevisions(NamedTuple):
    """A database's schema revision before an upgrade (None: it had no schema) and after."""

    before: str | None
    after: str


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision the program knows."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "server/db/migrations has no revision"
    return head


def upgrade_schema(connection: Connection, where: str) -> SchemaRevisions:
    """Bring the schema of the database on `connection` (named `where` in messages) up to the
    newest revision, in the connection's transaction. A DatabaseError when the database's
    revision is one the program does not know."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _UPGRADE_LOCK})
    config = _config(connection)
    scripts = ScriptDirectory.from_config(config)
    current = MigrationContext.configure(connection).get_current_revision()
    known = {script.revision for script in scripts.walk_revisions()}
    head = head_revision()
    if current is not None and current not in known:
        raise DatabaseError(
            f"the database {where} has schema revision {current}, newer than this program's "
            f"({head}): run a newer version of the program on it"
        )
    if current != head:
        command.upgrade(config, "head")
    return SchemaRevisions(current, head)
