"""The history store's schema, declared once as SQLAlchemy Core tables and read the same on
SQLite and PostgreSQL: accounts and bot tokens, ratings per game (and per ladder) with their
history, finished games with their moves, the ladders' definitions and their results. Times are
ms since the Unix epoch, as the server's clocks keep them. Migrations (`server/db/migrations/`)
version it.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "ACCOUNTS",
    "BOT_TOKENS",
    "GAMES",
    "GAME_POOL",
    "GAME_REVIEWS",
    "LADDERS",
    "LADDER_RESULTS",
    "METADATA",
    "MOVES",
    "RATINGS",
    "RATING_HISTORY",
]

# Constraints named the same on every database, so a later migration can name what it alters.
METADATA = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# The `ladder` of a rating in its game's own pool, not a ladder's.
GAME_POOL = ""

ACCOUNTS = Table(
    "accounts",
    METADATA,
    # Random, so a name freed and taken again inherits nothing (server/identity.py).
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),  # as typed
    Column("name_key", Text, nullable=False, unique=True),  # lower case: names compare so
    Column("kind", Text, nullable=False),  # human or bot
    Column("password", Text),  # argon2 hash; None for a bot that logs in by token only
    Column("owner_id", Text, ForeignKey("accounts.id"), index=True),  # a bot's human owner
    Column("created", BigInteger),  # None for accounts made before creation times were kept
)

BOT_TOKENS = Table(
    "bot_tokens",
    METADATA,
    Column("digest", Text, primary_key=True),  # SHA-256 hex: the token itself is never kept
    Column("account_id", Text, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created", BigInteger),
    Column("revoked", BigInteger),  # None while it logs in
)

RATINGS = Table(
    "ratings",
    METADATA,
    # An account's lower-case name, or a house bot's spec at one strength (`invader@5`).
    Column("player", Text, primary_key=True),
    Column("game", Text, primary_key=True),
    Column("ladder", Text, primary_key=True),  # GAME_POOL, or the ladder's name
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("updated", BigInteger, nullable=False),
)

RATING_HISTORY = Table(
    "rating_history",
    METADATA,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("player", Text, nullable=False),
    Column("game", Text, nullable=False),
    Column("ladder", Text, nullable=False),
    Column("game_id", Text, nullable=False),
    Column("at", BigInteger, nullable=False),  # when the game ended
    Column("rating", Float, nullable=False),  # after the game
    Column("deviation", Float, nullable=False),
    Column("setup", Text),
    # A game moves a player's rating in a pool once.
    UniqueConstraint("player", "game", "ladder", "game_id"),
    Index(None, "player", "game", "ladder", "at"),
)

GAMES = Table(
    "games",
    METADATA,
    Column("game_id", Text, primary_key=True),
    Column("game", Text, nullable=False),  # the registered game's name
    Column("setup", Text),
    Column("start", Text, nullable=False),  # position text
    Column("time_base", Integer, nullable=False),  # seconds
    Column("time_increment", Integer, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("ladder", Text),
    Column("created", BigInteger, nullable=False),
    Column("ended", BigInteger, nullable=False),
    Column("winner", Text),  # white or black; None for an aborted game
    Column("termination", Text, nullable=False),
    Column("plies", Integer, nullable=False),
    # An aborted game's why (called_off, no_first_move) and the side that called it off or
    # made no first move in time; None for any other game, and for one recorded before 0002.
    Column("abort_cause", Text),
    Column("abort_side", Text),
    # The clocks when the game ended (ms left), which a resignation, an abandonment or an
    # abort read after the last move's; None for a game recorded before 0005.
    Column("white_final_ms", BigInteger),
    Column("black_final_ms", BigInteger),
    *(
        column
        for side in ("white", "black")
        for column in (
            Column(side, Text, nullable=False),  # the name shown
            Column(f"{side}_key", Text, nullable=False),  # lower case, what a search names
            Column(f"{side}_kind", Text, nullable=False),
            Column(f"{side}_house", Text),  # a house bot's spec
            Column(f"{side}_rating_before", Float),
            Column(f"{side}_rating_after", Float),
        )
    ),
    # Keyset paging: newest first, ties broken by id.
    Index(None, "ended", "game_id"),
    Index(None, "white_key", "ended"),
    Index(None, "black_key", "ended"),
    Index(None, "ladder", "ended"),
)

MOVES = Table(
    "moves",
    METADATA,
    Column("game_id", Text, ForeignKey("games.game_id", ondelete="CASCADE"), primary_key=True),
    Column("ply", Integer, primary_key=True),  # from 1
    Column("move", Text, nullable=False),  # move text
    Column("ms", Integer, nullable=False),  # time charged
    Column("white_ms", BigInteger, nullable=False),  # clocks after it
    Column("black_ms", BigInteger, nullable=False),
)

# A finished game's review, per engine effort: the `game_analysis` event's fields as JSON. No
# key to GAMES: a game is reviewed in its window after its end, before it is handed over.
GAME_REVIEWS = Table(
    "game_reviews",
    METADATA,
    Column("game_id", Text, primary_key=True),
    Column("effort", Integer, primary_key=True),
    Column("review", Text, nullable=False),
    Column("created", BigInteger, nullable=False),  # ms
)

# The ladders' definitions: the game, setup and time control of every game a ladder starts. A
# ladder's ratings (RATINGS and RATING_HISTORY under its name, of its game) and results stay when
# it is removed, and a ladder of that name made again takes them up.
LADDERS = Table(
    "ladders",
    METADATA,
    Column("name", Text, primary_key=True),  # lower case: names compare so
    Column("game", Text, nullable=False),
    Column("setup", Text, nullable=False),
    Column("time_base", Integer, nullable=False),  # seconds
    Column("time_increment", Integer, nullable=False),
    Column("created", BigInteger),  # None for a ladder moved from an older data folder
)

# A ladder's results stand apart from its games' records: a result outlives a record that an
# operator deleted, and results kept before records were (an older data folder's) move over.
LADDER_RESULTS = Table(
    "ladder_results",
    METADATA,
    Column("ladder", Text, primary_key=True),
    Column("game_id", Text, primary_key=True),
    Column("white", Text, nullable=False),
    Column("black", Text, nullable=False),
    Column("white_won", Boolean, nullable=False),
    Column("ended", BigInteger),
    Index(None, "ladder", "ended"),
)
