"""room tasks, their assignments and history; the room board and its history"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import key, stamp

revision = "0006"
down_revision = "0005"


def _history(table: str, parent: str, parents: str) -> None:
    """A journal of events on a task or a board: who did what, when."""
    op.create_table(
        table,
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        key(parent),
        sa.Column("event", sa.String(length=20), nullable=False),
        sa.Column("actor", sa.JSON(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        stamp("at"),
        sa.ForeignKeyConstraint([parent], [f"{parents}.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(f"ix_{table}_{parent}", table, [parent])


def upgrade() -> None:
    op.create_table(
        "tasks",
        key("id"),
        key("room_id"),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("overall_status", sa.String(length=12), nullable=False),
        key("superseded_by_id", nullable=True),
        sa.Column("created_by", sa.JSON(), nullable=False),
        stamp("started_at", nullable=True),
        stamp("completed_at", nullable=True),
        stamp("created_at"),
        stamp("updated_at"),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("room_id", "number"),
    )
    op.create_table(
        "task_assignments",
        key("task_id"),
        key("assignee_id"),
        sa.Column("assignee", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("active_form", sa.Text(), nullable=False),
        sa.Column("linked_native_id", sa.Text(), nullable=False),
        stamp("created_at"),
        stamp("updated_at"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"]),
        sa.PrimaryKeyConstraint("task_id", "assignee_id"),
    )
    _history("task_events", "task_id", "tasks")
    op.create_table(
        "boards",
        key("room_id"),
        sa.Column("goal_title", sa.Text(), nullable=True),
        sa.Column("goal_summary", sa.Text(), nullable=True),
        sa.Column("created_by", sa.JSON(), nullable=False),
        sa.Column("updated_by", sa.JSON(), nullable=False),
        stamp("created_at"),
        stamp("updated_at"),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"]),
        sa.PrimaryKeyConstraint("room_id"),
    )
    _history("board_events", "room_id", "rooms")


def downgrade() -> None:
    op.drop_index("ix_board_events_room_id", table_name="board_events")
    op.drop_table("board_events")
    op.drop_table("boards")
    op.drop_index("ix_task_events_task_id", table_name="task_events")
    op.drop_table("task_events")
    op.drop_table("task_assignments")
    op.drop_table("tasks")
