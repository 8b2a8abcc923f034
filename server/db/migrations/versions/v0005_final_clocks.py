"""A finished game's clocks at its end: white's and black's ms left when it ended, which differ
from those after its last move when it ended by a resignation, an abandonment, a claimed
victory or an abort (the side to move's clock ran on until then). Games recorded before have
neither, and are read with the clocks after their last move.

Revision 0005, on 0004.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("white_final_ms", sa.BigInteger(), nullable=True))
        games.add_column(sa.Column("black_final_ms", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.drop_column("black_final_ms")
        games.drop_column("white_final_ms")
