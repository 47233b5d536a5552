"""web app: disabled people, agent tags, read markers"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import add_columns, drop_columns, stamp

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    add_columns("users", stamp("disabled_at", nullable=True))
    add_columns("agents", sa.Column("tags", sa.JSON(), nullable=False, server_default="[]"))
    add_columns(
        "participants",
        sa.Column("last_read_seq", sa.Integer(), nullable=False, server_default="0"),
    )


def downgrade() -> None:
    drop_columns("participants", "last_read_seq")
    drop_columns("agents", "tags")
    drop_columns("users", "disabled_at")
