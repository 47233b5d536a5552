"""room list indexes: a room's texts by sequence, and its messages by time

Issue 26's soak: the web app's room list counted every unread message, and found each room's
newest text and last activity, by reading every message of every room (three grouped scans
taking 0.5-3 s a page at 600,000 messages, on the loop's thread). With these, each is an index
lookup a room, and unread counts read only the index entries after the person's read marker
(``services.rooms.rows``; docs/decisions.md, "Soak: one node, twenty minutes, nothing lost").
"""

from alembic import op

from band_server.store.migration_ops import partial_index

revision = "0017"
down_revision = "0016"


def upgrade() -> None:
    texts = "message_type = 'text'"
    partial_index("ix_messages_room_texts", "messages", ["room_id", "seq", "sender_id"], texts)
    op.create_index("ix_messages_room_created", "messages", ["room_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_messages_room_created", table_name="messages")
    op.drop_index("ix_messages_room_texts", table_name="messages")
