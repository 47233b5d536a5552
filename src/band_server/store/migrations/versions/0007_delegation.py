"""delegation: target systems, consents, delegated tokens"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import key, stamp

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.create_table(
        "delegation_systems",
        key("id", primary_key=True),
        key("owner_id", index=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("delegation_enabled", sa.Boolean(), nullable=False),
        stamp("created_at"),
        stamp("deleted_at", nullable=True),
    )
    op.create_table(
        "delegation_consents",
        key("id", primary_key=True),
        key("person_id", index=True),
        key("agent_id"),
        key("system_id"),
        stamp("created_at"),
        stamp("revoked_at", nullable=True),
        sa.UniqueConstraint("person_id", "agent_id", "system_id"),
    )
    op.create_table(
        "delegated_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        key("consent_id", index=True),
        key("system_id"),
        key("originator_id"),
        key("agent_id"),
        key("message_id"),
        stamp("created_at"),
        stamp("expires_at"),
    )
    op.create_index(
        "ix_delegated_tokens_message_agent", "delegated_tokens", ["message_id", "agent_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_delegated_tokens_message_agent", table_name="delegated_tokens")
    op.drop_table("delegated_tokens")
    op.drop_table("delegation_consents")
    op.drop_table("delegation_systems")
