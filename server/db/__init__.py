"""The history store: what must last (accounts, bot tokens, ratings and their history, finished
games, ladder results) in a database, SQLite in the data folder by default or PostgreSQL, through
one schema (`schema.py`, versioned by `migrations/`, run by `migrate.py`) and one query layer.
Redis keeps what is live (docs/architecture.md, "The two stores").
"""

from server.db.database import DATABASE_FILE, Database, database_url
from server.db.errors import DatabaseError
from server.db.finished_games import (
    FinishedGame,
    GameCursor,
    GamePage,
    RatingChange,
    Recorded,
    Seat,
    finished_game,
    games,
    record_finished_game,
)
from server.db.migrate import SchemaRevisions, head_revision

__all__ = [
    "DATABASE_FILE",
    "Database",
    "DatabaseError",
    "FinishedGame",
    "GameCursor",
    "GamePage",
    "RatingChange",
    "Recorded",
    "SchemaRevisions",
    "Seat",
    "database_url",
    "finished_game",
    "games",
    "head_revision",
    "record_finished_game",
]
