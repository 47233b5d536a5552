"""row keys by age: the sweep of speech posts' expired keys reads only those

A partial index on ``messages.created_at`` for the rows that still carry an
``Idempotency-Key`` (migration 0010): every node clears the keys older than a day every few
minutes, and without it that ``UPDATE`` walked every keyed row of the day in key order
(docs/decisions.md, "A keyed speech post: the key rides on the message").

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEYED = sa.text("idem_key IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_messages_idem_created",
        "messages",
        ["created_at"],
        sqlite_where=_KEYED,
        postgresql_where=_KEYED,
    )


def downgrade() -> None:
    op.drop_index("ix_messages_idem_created", table_name="messages")
