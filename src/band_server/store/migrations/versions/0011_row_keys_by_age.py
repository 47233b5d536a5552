"""row keys by age: the sweep of speech posts' expired keys reads only those

A partial index on ``messages.created_at`` for the rows that still carry an
``Idempotency-Key`` (migration 0010): every node clears the keys older than a day every few
minutes, and without it that ``UPDATE`` walked every keyed row of the day in key order
(docs/decisions.md, "A keyed speech post: the key rides on the message").
"""

from alembic import op

from band_server.store.migration_ops import partial_index

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    partial_index("ix_messages_idem_created", "messages", ["created_at"], "idem_key IS NOT NULL")


def downgrade() -> None:
    op.drop_index("ix_messages_idem_created", table_name="messages")
