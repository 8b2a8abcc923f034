"""An aborted game's cause and side in its record: why it was called off (`called_off`,
`no_first_move`) and which side called it off or made no first move in time, as `game_ended`
said them. Games recorded before have neither.

Revision 0002, on 0001.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("abort_cause", sa.Text(), nullable=True))
        games.add_column(sa.Column("abort_side", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.drop_column("abort_side")
        games.drop_column("abort_cause")
