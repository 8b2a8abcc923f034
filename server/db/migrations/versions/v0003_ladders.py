"""The ladders' definitions in the database: each ladder's game, setup and time control, by its
name in lower case, and when it was made (None for one moved from an older data folder).

Revision 0003, on 0002.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("setup", sa.Text(), nullable=False),
        sa.Column("time_base", sa.Integer(), nullable=False),
        sa.Column("time_increment", sa.Integer(), nullable=False),
        sa.Column("created", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_ladders")),
    )


def downgrade() -> None:
    op.drop_table("ladders")
