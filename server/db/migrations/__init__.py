"""The history store's schema versions, which `server.db.migrate` runs (Alembic, no alembic.ini)."""
