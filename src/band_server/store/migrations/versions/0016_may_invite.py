"""may_invite: whom an admin allows to invite people by email

``users.may_invite`` is an admin's grant to one person: they may send invitations as an
admin does (``BAND_MEMBERS_MAY_INVITE`` still lets everyone). Off for everyone at first.

Revision ID: 0016
Revises: 0015
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("may_invite", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("may_invite")
