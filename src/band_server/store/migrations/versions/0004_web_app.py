"""web app: disabled people, agent tags, read markers

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('users') as batch_op:
        batch_op.add_column(sa.Column('disabled_at', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('agents') as batch_op:
        batch_op.add_column(sa.Column('tags', sa.JSON(), nullable=False, server_default='[]'))
    with op.batch_alter_table('participants') as batch_op:
        batch_op.add_column(
            sa.Column('last_read_seq', sa.Integer(), nullable=False, server_default='0')
        )


def downgrade() -> None:
    with op.batch_alter_table('participants') as batch_op:
        batch_op.drop_column('last_read_seq')
    with op.batch_alter_table('agents') as batch_op:
        batch_op.drop_column('tags')
    with op.batch_alter_table('users') as batch_op:
        batch_op.drop_column('disabled_at')
