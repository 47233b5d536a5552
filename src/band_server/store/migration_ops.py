"""The steps the Alembic migrations (``store/migrations/versions``) keep taking, said once.

A migration's schema is frozen when it is written: these helpers only spell the recurring
shapes (an id column, a timestamp, a partial index on both dialects, columns added to or
dropped from one table in a batch, which SQLite needs) so each migration reads as its change.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

STAMP = sa.DateTime(timezone=True)


def key(name: str, *, nullable: bool = False, **options: Any) -> sa.Column[Any]:
    """A column holding a row id (a 36-character UUID string)."""
    return sa.Column(name, sa.String(36), nullable=nullable, **options)


def stamp(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    """A timezone-aware timestamp column."""
    return sa.Column(name, STAMP, nullable=nullable)


def partial_index(
    name: str, table: str, columns: list[str], where: str, *, unique: bool = False
) -> None:
    """An index over the rows ``where`` holds, on SQLite and PostgreSQL alike."""
    clause = sa.text(where)
    op.create_index(
        name, table, columns, unique=unique, sqlite_where=clause, postgresql_where=clause
    )


def add_columns(table: str, *columns: sa.Column[Any]) -> None:
    """Add ``columns`` to ``table`` in one batch (a copy of the table on SQLite)."""
    with op.batch_alter_table(table) as batch:
        for column in columns:
            batch.add_column(column)


def drop_columns(table: str, *names: str) -> None:
    """Drop the columns ``names`` from ``table`` in one batch, in that order."""
    with op.batch_alter_table(table) as batch:
        for name in names:
            batch.drop_column(name)
