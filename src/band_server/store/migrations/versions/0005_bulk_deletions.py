"""bulk deletion jobs"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import key, stamp

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "bulk_deletions",
        key("id", primary_key=True),
        key("owner_id", index=True),
        sa.Column("resource_type", sa.String(8), nullable=False),
        sa.Column("force", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False, index=True),
        sa.Column("results", sa.JSON(), nullable=False),
        stamp("created_at"),
        stamp("started_at", nullable=True),
        stamp("completed_at", nullable=True),
    )


def downgrade() -> None:
    op.drop_table("bulk_deletions")
