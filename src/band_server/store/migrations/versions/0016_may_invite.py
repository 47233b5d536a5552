"""may_invite: whom an admin allows to invite people by email

``users.may_invite`` is an admin's grant to one person: they may send invitations as an
admin does (``BAND_MEMBERS_MAY_INVITE`` still lets everyone). Off for everyone at first.
"""

import sqlalchemy as sa

from band_server.store.migration_ops import add_columns, drop_columns

revision = "0016"
down_revision = "0015"


def upgrade() -> None:
    add_columns(
        "users", sa.Column("may_invite", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    drop_columns("users", "may_invite")
