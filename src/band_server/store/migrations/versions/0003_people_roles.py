"""people have an email (unique, required) and a role; first and last names"""

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import add_columns

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    add_columns(
        "users",
        sa.Column("role", sa.String(16), nullable=False, server_default="user"),
        sa.Column("first_name", sa.String(80), nullable=True),
        sa.Column("last_name", sa.String(80), nullable=True),
    )
    op.execute("UPDATE users SET role = 'admin' WHERE is_admin")
    # People created before emails were required get their local mailbox (handles are unique).
    op.execute("UPDATE users SET email = handle || '@localhost' WHERE email IS NULL OR email = ''")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("is_admin")
        batch.alter_column("email", existing_type=sa.String(200), nullable=False)
        batch.create_unique_constraint("uq_users_email", ["email"])


def downgrade() -> None:
    add_columns(
        "users", sa.Column("is_admin", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.execute("UPDATE users SET is_admin = (role = 'admin')")
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_email", type_="unique")
        batch.alter_column("email", existing_type=sa.String(200), nullable=True)
        batch.drop_column("last_name")
        batch.drop_column("first_name")
        batch.drop_column("role")
