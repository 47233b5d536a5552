"""imports: the journal of archive imports (issue 36)

``imports`` holds one row per archive imported (by its archive id) with the records applied
so far; ``import_map`` what each source id became, written in the same transaction as the
rows it describes, so an import resumed after a crash never writes a row twice.
"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import key, stamp

revision = "0015"
down_revision = "0014"


def upgrade() -> None:
    op.create_table(
        "imports",
        key("id", primary_key=True),
        sa.Column("archive_id", sa.String(64), nullable=False, unique=True),
        key("created_by"),
        sa.Column("source", sa.JSON(), nullable=False),
        sa.Column("expected", sa.JSON(), nullable=False),
        sa.Column("applied", sa.JSON(), nullable=False),
        stamp("created_at"),
        stamp("finished_at", nullable=True),
    )
    op.create_table(
        "import_map",
        key("import_id", primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("source_id", sa.String(200), primary_key=True),
        key("target_id"),
        sa.ForeignKeyConstraint(["import_id"], ["imports.id"]),
    )


def downgrade() -> None:
    op.drop_table("import_map")
    op.drop_table("imports")
