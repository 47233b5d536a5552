"""delivery leases: the sweep of open attempts reads them by their last sign of life

A partial index on ``deliveries.updated_at`` for the rows still ``processing`` (a handful at a
time), so the lease sweep of every node finds attempts with no sign of life without reading
the whole table (docs/decisions.md, "`/next` passes over heads that will not run; an attempt
holds a lease").
"""

from alembic import op

from band_server.store.migration_ops import partial_index

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    partial_index("ix_deliveries_leases", "deliveries", ["updated_at"], "status = 'processing'")


def downgrade() -> None:
    op.drop_index("ix_deliveries_leases", table_name="deliveries")
