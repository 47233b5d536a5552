"""csrf derived: a web session's CSRF token is no longer stored

The token is derived from the session's cookie token when a page is rendered
(``services.web_sessions.csrf_of``), so no secret of the web app is kept in the clear and none
reaches a log of the database's statements or rows. Downgrading ends every web session (the
column comes back empty): people sign in again.

Revision ID: 0012
Revises: 0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("web_sessions") as batch:
        batch.drop_column("csrf_token")


def downgrade() -> None:
    op.execute("DELETE FROM web_sessions")
    with op.batch_alter_table("web_sessions") as batch:
        batch.add_column(
            sa.Column("csrf_token", sa.String(length=64), nullable=False, server_default="")
        )
