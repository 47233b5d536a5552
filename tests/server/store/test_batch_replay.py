"""Later units of a batch without savepoints of their own (``store.group_commit``).

The second unit of a batch opens ``SAVEPOINT "band_batch"``; a unit that writes only through
``store.direct`` logs its statements and holds no savepoint. When one raises after writing,
the batch goes back to its savepoint and the logged writes of the units before it run again:
each unit's rows are on disk exactly when it returned. A unit that wrote any other way
(its session, even committed half-way) makes the later units hold ``SAVEPOINT "band_unit"``.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, Text, text

from band_server.store import direct
from band_server.store.db import Database

T = Table("t", MetaData(), Column("n", Integer, primary_key=True), Column("body", Text))
INSERT_T = T.insert()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'replay.db'}")
    async with database.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)"))
    yield database
    await database.dispose()


def on_disk(db: Database) -> list[int]:
    path = db.engine.url.database
    assert path
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT n FROM t ORDER BY n")]


async def traced(db: Database) -> list[str]:
    """The writer's connection opened (one unit), then every statement it runs."""
    await straight(db, 1)
    assert db._writer is not None and db._writer._sqlite is not None
    statements: list[str] = []
    db._writer._sqlite.set_trace_callback(statements.append)
    return statements


async def straight(db: Database, *ns: int) -> None:
    async with db.write() as session:
        for n in ns:
            await direct.execute(session, INSERT_T, {"n": n, "body": "direct"})


async def first(db: Database, n: int) -> None:
    """A batch's first unit, holding the turn while the units after it queue."""
    async with db.write() as session:
        await direct.execute(session, INSERT_T, {"n": n, "body": "first"})
        await asyncio.sleep(0.01)


async def straight_then_raise(db: Database, n: int) -> None:
    async with db.write() as session:
        await direct.execute(session, INSERT_T, {"n": n, "body": "doomed"})
        raise RuntimeError("refused half-way")


async def test_a_failing_unit_goes_back_to_the_batch_savepoint_and_the_others_run_again(
    db: Database,
) -> None:
    statements = await traced(db)
    results = await asyncio.gather(
        first(db, 10),
        straight(db, 20, 21),
        straight_then_raise(db, 30),
        straight(db, 40),
        straight_then_raise(db, 50),
        straight(db, 60),
        return_exceptions=True,
    )
    assert [type(r).__name__ for r in results] == [
        "NoneType", "NoneType", "RuntimeError", "NoneType", "RuntimeError", "NoneType",
    ]  # fmt: skip
    assert on_disk(db) == [1, 10, 20, 21, 40, 60]
    assert statements.count('SAVEPOINT "band_batch"') == 1
    assert statements.count('ROLLBACK TO SAVEPOINT "band_batch"') == 2
    assert not any("band_unit" in s for s in statements)
    inserts = [s for s in statements if s.startswith("INSERT INTO t")]
    # 20 and 21 ran again after each failure, 40 after the second; the first unit (10) is
    # before the savepoint and never runs again.
    assert [s.split("(")[-1].split(",")[0] for s in inserts] == [
        "10", "20", "21", "30", "20", "21", "40", "50", "20", "21", "40", "60",
    ]  # fmt: skip


async def test_a_unit_that_failed_before_writing_rolls_nothing_back(db: Database) -> None:
    statements = await traced(db)

    async def refused_at_once() -> None:
        async with db.write():
            raise RuntimeError("refused before writing")

    results = await asyncio.gather(
        first(db, 10), refused_at_once(), straight(db, 20), return_exceptions=True
    )
    assert isinstance(results[1], RuntimeError)
    assert on_disk(db) == [1, 10, 20]
    assert not any(s.startswith("ROLLBACK") for s in statements)


async def test_a_unit_that_wrote_through_its_session_makes_later_units_hold_savepoints(
    db: Database,
) -> None:
    """Even a session committed half-way, which looks unused at the unit's end: its rows are
    counted (the connection's ``total_changes``), so nothing rolls back over them."""
    statements = await traced(db)

    async def through_session(n: int) -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n, body) VALUES (:n, 'orm')"), {"n": n})
            await session.commit()

    results = await asyncio.gather(
        first(db, 10),
        through_session(20),
        straight_then_raise(db, 30),
        straight(db, 40),
        return_exceptions=True,
    )
    assert isinstance(results[2], RuntimeError) and list(results[:2]) == [None, None]
    assert on_disk(db) == [1, 10, 20, 40]
    assert statements.count('SAVEPOINT "band_unit"') == 2  # 30's and 40's
    assert not any(s.startswith('ROLLBACK TO SAVEPOINT "band_batch"') for s in statements)


async def test_a_replay_that_fails_fails_the_batch(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await traced(db)

    def refused(self: direct.StatementLog, driver: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(direct.StatementLog, "replay", refused)
    results = await asyncio.gather(
        first(db, 10),
        straight(db, 20),
        straight_then_raise(db, 30),
        return_exceptions=True,
    )
    assert isinstance(results[2], RuntimeError)
    assert all(isinstance(r, Exception) for r in results[:2])  # the batch could not commit
    assert on_disk(db) == [1]
    monkeypatch.undo()
    await straight(db, 40)  # the writer recovers
    assert on_disk(db) == [1, 40]


async def test_a_statement_refused_half_way_through_a_unit_undoes_its_earlier_writes(
    db: Database,
) -> None:
    """SQLite takes back only the refused statement; the unit's earlier write goes with the
    rollback to the batch's savepoint, and the units before it are on disk."""
    await traced(db)

    async def second_insert_refused() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 70, "body": "doomed"})
            await direct.execute(session, INSERT_T, {"n": 10, "body": "taken"})  # duplicate

    results = await asyncio.gather(
        first(db, 10),
        straight(db, 20),
        second_insert_refused(),
        straight(db, 30),
        return_exceptions=True,
    )
    assert list(results[:2]) == [None, None] and results[3] is None
    assert "UNIQUE" in str(results[2])
    assert on_disk(db) == [1, 10, 20, 30]
