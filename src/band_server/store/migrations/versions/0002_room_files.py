"""room files and message attachments"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import add_columns, drop_columns, key, stamp

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "room_files",
        key("id"),
        key("room_id"),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("content_type", sa.String(length=127), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        key("uploader_id"),
        sa.Column("uploader_type", sa.String(length=8), nullable=False),
        stamp("created_at"),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("room_id", "sha256"),
    )
    add_columns("messages", sa.Column("attachments", sa.JSON(), nullable=True))


def downgrade() -> None:
    drop_columns("messages", "attachments")
    op.drop_table("room_files")
