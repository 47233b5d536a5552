"""On SQLite, the migrations make the schema the models describe: each table's columns (not
their server defaults, as Alembic's comparison), its indexes (their columns, uniqueness and
origin), its foreign keys, and whether it has a rowid (``sqlite_with_rowid``, which Alembic's
comparison does not see). PostgreSQL's side is ``tests/scale/test_migrations.py``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import create_async_engine

from band_server.store.migrate import migrate
from band_server.store.models import Base

_AUTO = "sqlite_autoindex_"
"""SQLite names a constraint's index by its position in the table's DDL: not compared."""


def shape(path: Path) -> dict[str, Any]:
    """Each table (but the search index's and Alembic's): rowid or not, columns, indexes, FKs."""
    conn = sqlite3.connect(path)
    try:
        out: dict[str, Any] = {}
        for table, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"):
            if table.startswith("message_search") or table == "alembic_version":
                continue
            # name, type, not null, key (not the default: columns added later keep theirs)
            info = conn.execute(f"PRAGMA table_info('{table}')")
            columns = sorted((*r[1:4], r[5]) for r in info)
            indexes = sorted(
                (
                    "" if name.startswith(_AUTO) else name,
                    unique,
                    origin,
                    partial,
                    tuple(c[2] for c in conn.execute(f"PRAGMA index_info('{name}')")),
                )
                for _, name, unique, origin, partial in conn.execute(
                    f"PRAGMA index_list('{table}')"
                )
            )
            keys = sorted(r[2:5] for r in conn.execute(f"PRAGMA foreign_key_list('{table}')"))
            out[table] = ("WITHOUT ROWID" in sql.upper(), columns, indexes, keys)
        return out
    finally:
        conn.close()


async def test_the_migrated_schema_is_the_models(tmp_path: Path) -> None:
    migrated, modelled = tmp_path / "migrated.db", tmp_path / "modelled.db"
    engine = create_async_engine(f"sqlite+aiosqlite:///{migrated}")
    try:
        await migrate(engine, "upgrade", "head")
    finally:
        await engine.dispose()
    engine = create_async_engine(f"sqlite+aiosqlite:///{modelled}")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
    finally:
        await engine.dispose()
    got, want = shape(migrated), shape(modelled)
    assert sorted(got) == sorted(want)
    assert {t: s for t, s in got.items() if s != want[t]} == {}
    assert {"messages", "deliveries", "rooms"} <= set(got)
    assert not got["messages"][0]  # the search index is keyed by messages' rowid
