"""delivery leases: the sweep of open attempts reads them by their last sign of life

A partial index on ``deliveries.updated_at`` for the rows still ``processing`` (a handful at a
time), so the lease sweep of every node finds attempts with no sign of life without reading
the whole table (docs/decisions.md, "`/next` passes over heads that will not run; an attempt
holds a lease").

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PROCESSING = sa.text("status = 'processing'")


def upgrade() -> None:
    op.create_index(
        "ix_deliveries_leases",
        "deliveries",
        ["updated_at"],
        sqlite_where=_PROCESSING,
        postgresql_where=_PROCESSING,
    )


def downgrade() -> None:
    op.drop_index("ix_deliveries_leases", table_name="deliveries")
