"""Alembic's entry point: it runs the revisions on the connection `server.db.migrate` hands it
(the program's own, so SQLite's and PostgreSQL's async drivers serve migrations too)."""

from __future__ import annotations

from alembic import context

from server.db.schema import METADATA

connection = context.config.attributes["connection"]
# SQLite alters a table by copying it (batch mode); PostgreSQL alters it in place.
context.configure(
    connection=connection,
    target_metadata=METADATA,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
