"""A finished game's review (`analyze_game`): every position's judgement and each move's mark,
kept with the game so that the next request for it is answered at once. One row a game and
engine effort; the review itself is the `game_analysis` event's fields as JSON.

Revision 0006, on 0005.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_reviews",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("effort", sa.Integer(), nullable=False),
        sa.Column("review", sa.Text(), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "effort", name=op.f("pk_game_reviews")),
    )


def downgrade() -> None:
    op.drop_table("game_reviews")
