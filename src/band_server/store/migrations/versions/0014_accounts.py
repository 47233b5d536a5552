"""accounts: invitation and password-reset links, what a web session's list shows, and
each person's notification level per room

``account_links`` holds single-use, expiring links (an invitation to join, a password reset)
by the SHA-256 of their token only. ``web_sessions`` gains the browser that signed in and
when the session was last used, for the person's list of sessions. Passwords go in the
``users.password_hash`` column the first schema already has (argon2id). ``room_notify``
holds a person's choice for a room (``all``, ``mentions``, ``none``); no row means the default.
"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import add_columns, drop_columns, key, stamp

revision = "0014"
down_revision = "0013"


def upgrade() -> None:
    op.create_table(
        "account_links",
        sa.Column("token_hash", sa.String(length=64), primary_key=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("email", sa.String(length=200), nullable=False),
        key("user_id", nullable=True),
        key("created_by", nullable=True),
        stamp("created_at"),
        stamp("expires_at"),
        stamp("used_at", nullable=True),
    )
    op.create_index("ix_account_links_email", "account_links", ["email"])
    op.create_table(
        "room_notify",
        key("user_id", primary_key=True),
        key("room_id", primary_key=True),
        sa.Column("level", sa.String(length=8), nullable=False),
    )
    add_columns(
        "web_sessions",
        sa.Column("user_agent", sa.String(length=300), nullable=True),
        stamp("last_used_at", nullable=True),
    )


def downgrade() -> None:
    drop_columns("web_sessions", "last_used_at", "user_agent")
    op.drop_table("room_notify")
    op.drop_index("ix_account_links_email", table_name="account_links")
    op.drop_table("account_links")
