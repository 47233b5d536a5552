"""mentions are deliveries: the mention rows go

A text's mentions stay in its metadata (what every view shows). The ``mentions`` rows had one
reader: an agent's context (the texts mentioning it), and for an agent they were the
``deliveries`` rows it has anyway, one per routed mention of a text. That read now uses the
deliveries, and a post writes one row and three b-tree entries less (docs/decisions.md, "A
mention is its delivery"). Downgrading restores the table with the agents' mention rows,
rebuilt from the deliveries; people's mention rows, which nothing read, are not restored.
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"


def upgrade() -> None:
    op.drop_index("ix_mentions_participant_room", table_name="mentions")
    op.drop_table("mentions")


def downgrade() -> None:
    op.create_table(
        "mentions",
        sa.Column("message_id", sa.String(length=36), nullable=False),
        sa.Column("participant_id", sa.String(length=36), nullable=False),
        sa.Column("room_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(["message_id"], ["messages.id"]),
        sa.PrimaryKeyConstraint("message_id", "participant_id"),
    )
    op.create_index("ix_mentions_participant_room", "mentions", ["participant_id", "room_id"])
    op.execute(
        "INSERT INTO mentions (message_id, participant_id, room_id)"
        " SELECT message_id, agent_id, room_id FROM deliveries"
    )
