"""accounts: invitation and password-reset links, what a web session's list shows, and
each person's notification level per room

``account_links`` holds single-use, expiring links (an invitation to join, a password reset)
by the SHA-256 of their token only. ``web_sessions`` gains the browser that signed in and
when the session was last used, for the person's list of sessions. Passwords go in the
``users.password_hash`` column the first schema already has (argon2id). ``room_notify``
holds a person's choice for a room (``all``, ``mentions``, ``none``); no row means the default.

Revision ID: 0014
Revises: 0013
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "account_links",
        sa.Column("token_hash", sa.String(length=64), primary_key=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("email", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=True),
        sa.Column("created_by", sa.String(length=36), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_account_links_email", "account_links", ["email"])
    op.create_table(
        "room_notify",
        sa.Column("user_id", sa.String(length=36), primary_key=True),
        sa.Column("room_id", sa.String(length=36), primary_key=True),
        sa.Column("level", sa.String(length=8), nullable=False),
    )
    with op.batch_alter_table("web_sessions") as batch:
        batch.add_column(sa.Column("user_agent", sa.String(length=300), nullable=True))
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("web_sessions") as batch:
        batch.drop_column("last_used_at")
        batch.drop_column("user_agent")
    op.drop_table("room_notify")
    op.drop_index("ix_account_links_email", table_name="account_links")
    op.drop_table("account_links")
