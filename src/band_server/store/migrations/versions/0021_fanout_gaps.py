"""fanout_gaps: a node's unannounced fan-out gap, durable past its death

A node cut off from Redis keeps committing but cannot publish; it announces the gap once
Redis is back. ``fanout_gaps`` holds one row per node with such a gap open (its id and when
its first lost publish was), written when the first loss is found and deleted once the gap
is announced: a node that finds it dead before then announces the gap in its stead.
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"


def upgrade() -> None:
    op.create_table(
        "fanout_gaps",
        sa.Column("node_id", sa.String(64), primary_key=True),
        sa.Column("since", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fanout_gaps")
