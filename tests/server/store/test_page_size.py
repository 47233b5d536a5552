"""The page size of a node's SQLite file: a file the node creates has ``PAGE_SIZE``-byte pages,
whichever connection (the writer's, a reader's, the migrations') touches it first; a file made
before keeps its own, and is read and written as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from band_server.store.db import Database
from band_server.store.migrate import upgrade
from band_server.store.sqlite_inline import PAGE_SIZE, connect_reader


def page_size(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()


async def test_a_new_database_has_the_nodes_page_size(tmp_path: Path) -> None:
    path = tmp_path / "band.db"
    db = Database(f"sqlite+aiosqlite:///{path}")
    try:
        await upgrade(db.engine)
    finally:
        await db.dispose()
    assert PAGE_SIZE != 4096  # (SQLite's default: otherwise this test would prove nothing)
    assert page_size(path) == PAGE_SIZE


def test_a_reader_first_on_a_new_file_gives_it_the_page_size(tmp_path: Path) -> None:
    path = tmp_path / "band.db"
    reader = connect_reader(str(path))
    reader.execute("CREATE TABLE t (n INTEGER)")
    reader.close()
    assert page_size(path) == PAGE_SIZE


@pytest.mark.parametrize("journal", ["WAL", "DELETE"])
async def test_an_older_file_keeps_its_pages_and_works(tmp_path: Path, journal: str) -> None:
    path = tmp_path / "band.db"
    old = sqlite3.connect(path)
    old.execute("PRAGMA page_size=4096")
    old.execute(f"PRAGMA journal_mode={journal}")
    old.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)")
    old.executemany("INSERT INTO t (body) VALUES (?)", [("x" * 300,) for _ in range(200)])
    old.commit()
    old.close()
    db = Database(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (body) VALUES ('y')"))
        async with db.engine.connect() as conn:
            count = (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one()
            check = (await conn.execute(text("PRAGMA integrity_check"))).scalar_one()
    finally:
        await db.dispose()
    assert (count, check) == (201, "ok")
    assert page_size(path) == 4096
