"""delegation: target systems, consents, delegated tokens

Revision ID: 0007
Revises: 0006
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "delegation_systems",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("owner_id", sa.String(36), nullable=False, index=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("delegation_enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("deleted_at", TS, nullable=True),
    )
    op.create_table(
        "delegation_consents",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("person_id", sa.String(36), nullable=False, index=True),
        sa.Column("agent_id", sa.String(36), nullable=False),
        sa.Column("system_id", sa.String(36), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("revoked_at", TS, nullable=True),
        sa.UniqueConstraint("person_id", "agent_id", "system_id"),
    )
    op.create_table(
        "delegated_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("consent_id", sa.String(36), nullable=False, index=True),
        sa.Column("system_id", sa.String(36), nullable=False),
        sa.Column("originator_id", sa.String(36), nullable=False),
        sa.Column("agent_id", sa.String(36), nullable=False),
        sa.Column("message_id", sa.String(36), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
    )
    op.create_index(
        "ix_delegated_tokens_message_agent", "delegated_tokens", ["message_id", "agent_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_delegated_tokens_message_agent", table_name="delegated_tokens")
    op.drop_table("delegated_tokens")
    op.drop_table("delegation_consents")
    op.drop_table("delegation_systems")
