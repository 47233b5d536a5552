"""a room's last activity on its row: ``rooms.last_message_at`` replaces ix_messages_room_created

The room list's last activity is the newest ``created_at`` of a room's messages (it can run
against ``seq``: imports, concurrent posts on PostgreSQL, a clock stepping back). 0017 read it
from an index ``(room_id, created_at)``: one b-tree more, and a page more written, under every
message. Every post writes its room's row anyway (``last_seq``); the writers of messages now
keep the maximum there too (``store.room_seqs.newest``: posts, events, imports). Messages are
never deleted and their ``created_at`` never changes, so the maximum only grows. Upgrading
fills the column from the messages there; downgrading restores the index.
"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import add_columns, drop_columns

revision = "0020"
down_revision = "0019"


def upgrade() -> None:
    add_columns("rooms", sa.Column("last_message_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE rooms SET last_message_at ="
        " (SELECT max(m.created_at) FROM messages m WHERE m.room_id = rooms.id)"
    )
    op.drop_index("ix_messages_room_created", table_name="messages")


def downgrade() -> None:
    op.create_index("ix_messages_room_created", "messages", ["room_id", "created_at"])
    drop_columns("rooms", "last_message_at")
