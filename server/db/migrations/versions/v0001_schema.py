"""The history store's first schema: accounts, bot tokens, ratings and their history, finished
games and their moves, ladder results.

Revision 0001, the first.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("password", sa.Text(), nullable=True),
        sa.Column("owner_id", sa.Text(), nullable=True),
        sa.Column("created", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["accounts.id"], name=op.f("fk_accounts_owner_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name_key", name=op.f("uq_accounts_name_key")),
    )
    op.create_table(
        "games",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("setup", sa.Text(), nullable=True),
        sa.Column("start", sa.Text(), nullable=False),
        sa.Column("time_base", sa.Integer(), nullable=False),
        sa.Column("time_increment", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("ladder", sa.Text(), nullable=True),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.Column("ended", sa.BigInteger(), nullable=False),
        sa.Column("winner", sa.Text(), nullable=True),
        sa.Column("termination", sa.Text(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("white", sa.Text(), nullable=False),
        sa.Column("white_key", sa.Text(), nullable=False),
        sa.Column("white_kind", sa.Text(), nullable=False),
        sa.Column("white_house", sa.Text(), nullable=True),
        sa.Column("white_rating_before", sa.Float(), nullable=True),
        sa.Column("white_rating_after", sa.Float(), nullable=True),
        sa.Column("black", sa.Text(), nullable=False),
        sa.Column("black_key", sa.Text(), nullable=False),
        sa.Column("black_kind", sa.Text(), nullable=False),
        sa.Column("black_house", sa.Text(), nullable=True),
        sa.Column("black_rating_before", sa.Float(), nullable=True),
        sa.Column("black_rating_after", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_games_black_key_ended"), ["black_key", "ended"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_games_ended_game_id"), ["ended", "game_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_games_ladder_ended"), ["ladder", "ended"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_games_white_key_ended"), ["white_key", "ended"], unique=False
        )

    op.create_table(
        "ladder_results",
        sa.Column("ladder", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("white", sa.Text(), nullable=False),
        sa.Column("black", sa.Text(), nullable=False),
        sa.Column("white_won", sa.Boolean(), nullable=False),
        sa.Column("ended", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("ladder", "game_id", name=op.f("pk_ladder_results")),
    )
    with op.batch_alter_table("ladder_results", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ladder_results_ladder_ended"), ["ladder", "ended"], unique=False
        )

    op.create_table(
        "rating_history",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("ladder", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("setup", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
        sa.UniqueConstraint(
            "player",
            "game",
            "ladder",
            "game_id",
            name=op.f("uq_rating_history_player_game_ladder_game_id"),
        ),
    )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_rating_history_player_game_ladder_at"),
            ["player", "game", "ladder", "at"],
            unique=False,
        )

    op.create_table(
        "ratings",
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("ladder", sa.Text(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("updated", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player", "game", "ladder", name=op.f("pk_ratings")),
    )
    op.create_table(
        "bot_tokens",
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=True),
        sa.Column("revoked", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_bot_tokens_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_bot_tokens")),
    )
    with op.batch_alter_table("bot_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_tokens_account_id"), ["account_id"], unique=False)

    op.create_table(
        "moves",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("move", sa.Text(), nullable=False),
        sa.Column("ms", sa.Integer(), nullable=False),
        sa.Column("white_ms", sa.BigInteger(), nullable=False),
        sa.Column("black_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.game_id"], name=op.f("fk_moves_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "ply", name=op.f("pk_moves")),
    )


def downgrade() -> None:
    op.drop_table("moves")
    with op.batch_alter_table("bot_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_tokens_account_id"))

    op.drop_table("bot_tokens")
    op.drop_table("ratings")
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rating_history_player_game_ladder_at"))

    op.drop_table("rating_history")
    with op.batch_alter_table("ladder_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ladder_results_ladder_ended"))

    op.drop_table("ladder_results")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_white_key_ended"))
        batch_op.drop_index(batch_op.f("ix_games_ladder_ended"))
        batch_op.drop_index(batch_op.f("ix_games_ended_game_id"))
        batch_op.drop_index(batch_op.f("ix_games_black_key_ended"))

    op.drop_table("games")
    op.drop_table("accounts")
