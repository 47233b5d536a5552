"""imports: the journal of archive imports (issue 36)

``imports`` holds one row per archive imported (by its archive id) with the records applied
so far; ``import_map`` what each source id became, written in the same transaction as the
rows it describes, so an import resumed after a crash never writes a row twice.

Revision ID: 0015
Revises: 0014
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "imports",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("archive_id", sa.String(64), nullable=False, unique=True),
        sa.Column("created_by", sa.String(36), nullable=False),
        sa.Column("source", sa.JSON(), nullable=False),
        sa.Column("expected", sa.JSON(), nullable=False),
        sa.Column("applied", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "import_map",
        sa.Column("import_id", sa.String(36), sa.ForeignKey("imports.id"), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("source_id", sa.String(200), primary_key=True),
        sa.Column("target_id", sa.String(36), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("import_map")
    op.drop_table("imports")
