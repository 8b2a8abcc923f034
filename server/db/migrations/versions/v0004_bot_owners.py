"""An index on a bot account's owner: a person's bots are listed, counted against their limit
and have their tokens revoked by it (server/db/accounts.py), and without it each of those read
every account.

Revision 0004, on 0003.
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as accounts:
        accounts.create_index(accounts.f("ix_accounts_owner_id"), ["owner_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("accounts") as accounts:
        accounts.drop_index(accounts.f("ix_accounts_owner_id"))
