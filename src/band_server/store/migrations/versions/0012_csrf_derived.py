"""csrf derived: a web session's CSRF token is no longer stored

The token is derived from the session's cookie token when a page is rendered
(``services.web_sessions.csrf_of``), so no secret of the web app is kept in the clear and none
reaches a log of the database's statements or rows. Downgrading ends every web session (the
column comes back empty): people sign in again.
"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import add_columns, drop_columns

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    drop_columns("web_sessions", "csrf_token")


def downgrade() -> None:
    op.execute("DELETE FROM web_sessions")
    add_columns(
        "web_sessions",
        sa.Column("csrf_token", sa.String(length=64), nullable=False, server_default=""),
    )
