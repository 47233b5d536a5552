"""The SQLite writer: many units share a commit, each returns only once it is on disk, a failing
unit takes nobody else with it, and the order of the units is the order they asked."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, Text, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from band_server.store import direct
from band_server.store.db import Database
from band_server.store.sqlite_inline import InlineConnection

T = Table("t", MetaData(), Column("n", Integer, primary_key=True), Column("body", Text))
INSERT_T = T.insert()


class _Base(DeclarativeBase):
    pass


class Row(_Base):
    __tablename__ = "t"
    n: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[str | None]


@pytest.fixture
async def db(tmp_path: Path) -> Database:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'gc.db'}")
    async with database.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)"))
    yield database  # type: ignore[misc]
    await database.dispose()


def rows_on_disk(db: Database) -> list[int]:
    """What a separate process reading the file would see right now."""
    path = db.engine.url.database
    assert path
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT n FROM t ORDER BY rowid")]


async def insert(db: Database, n: int, seen: list[list[int]]) -> None:
    async with db.write() as session:
        await session.execute(text("INSERT INTO t (n, body) VALUES (:n, 'x')"), {"n": n})
    # Returned: the row must be committed, visible to any other connection.
    seen.append(rows_on_disk(db))
    assert n in seen[-1]


async def test_concurrent_units_share_commits_and_are_durable_on_return(db: Database) -> None:
    seen: list[list[int]] = []
    await asyncio.gather(*(insert(db, n, seen) for n in range(200)))
    assert sorted(rows_on_disk(db)) == list(range(200))
    assert db.batches.units == 200
    assert db.batches.batches < 200  # at least some units shared a commit


async def test_units_commit_in_the_order_they_asked(db: Database) -> None:
    seen: list[list[int]] = []
    await asyncio.gather(*(insert(db, n, seen) for n in range(50)))
    assert rows_on_disk(db) == list(range(50))


async def test_a_failing_unit_rolls_back_alone(db: Database) -> None:
    seen: list[list[int]] = []

    async def failing() -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n, body) VALUES (1000, 'doomed')"))
            raise RuntimeError("refused half-way")

    async def duplicate() -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n, body) VALUES (1, 'again')"))

    results = await asyncio.gather(
        insert(db, 1, seen),
        failing(),
        insert(db, 2, seen),
        duplicate(),
        insert(db, 3, seen),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None and results[4] is None
    assert isinstance(results[1], RuntimeError)
    assert "UNIQUE" in str(results[3])
    assert rows_on_disk(db) == [1, 2, 3]


async def test_units_of_direct_statements_roll_back_alone_and_beside_orm_work(
    db: Database,
) -> None:
    """A unit that runs only direct statements never begins its session; one that fails half-way
    (a raise, or a flush refused at the end) undoes its direct rows and its ORM rows alone."""

    async def direct_only(n: int) -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": n, "body": "direct"})
            assert not session.sync_session.in_transaction()  # no SQLAlchemy savepoint

    async def direct_then_raise() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 500, "body": "doomed"})
            raise RuntimeError("refused half-way")

    async def direct_then_bad_flush() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 600, "body": "doomed"})
            session.add(Row(n=10, body="duplicate of a committed row"))  # fails at the end

    async def mixed(n: int) -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": n, "body": "direct"})
            session.add(Row(n=n + 1, body="orm"))
            await session.flush()
            await direct.execute(session, INSERT_T, {"n": n + 2, "body": "direct again"})

    async def loaded_then_detached() -> None:
        async with db.write() as session:
            row = await session.get(Row, 10)
            assert row is not None
        assert inspect(row).detached  # as before: nothing reads through it after its unit

    await direct_only(10)
    await loaded_then_detached()
    results = await asyncio.gather(
        direct_only(20),
        direct_then_raise(),
        mixed(30),
        direct_then_bad_flush(),
        direct_only(40),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None and results[4] is None, results
    assert isinstance(results[1], RuntimeError)
    assert isinstance(results[3], IntegrityError)
    assert rows_on_disk(db) == [10, 20, 30, 31, 32, 40]


async def test_a_session_no_unit_used_serves_the_next_unit(db: Database) -> None:
    """A unit of direct statements leaves its session (never begun, nothing loaded) to the
    next unit; a session that loaded rows, flushed or saw its unit fail is never handed on."""
    sessions = []

    async def unit(n: int, *, orm: bool = False, fail: bool = False) -> None:
        async with db.write() as session:
            sessions.append(session)
            assert not session.sync_session.in_transaction()
            assert not session.sync_session.identity_map
            await direct.execute(session, INSERT_T, {"n": n, "body": "direct"})
            if orm:
                assert await session.get(Row, n - 1) is not None
            if fail:
                raise RuntimeError("refused half-way")

    await unit(1)
    await unit(2)
    assert sessions[1] is sessions[0]
    await unit(3, orm=True)
    assert sessions[2] is sessions[0]  # it was still unused when this unit took it
    await unit(4)
    assert sessions[3] is not sessions[2]  # the one that loaded a row was closed, not reused
    with pytest.raises(RuntimeError):
        await unit(5, fail=True)
    await unit(6)
    assert sessions[5] is not sessions[4]
    assert rows_on_disk(db) == [1, 2, 3, 4, 6]


async def test_a_cancelled_caller_cannot_stop_its_commit(db: Database) -> None:
    """A caller cancelled while its batch commits: the commit still ends, on disk, and the
    writer is free for the next unit."""
    seen: list[list[int]] = []
    writer = db._writer
    assert writer is not None
    task = asyncio.create_task(insert(db, 9, seen))
    committing = False
    for _ in range(1000):  # until the unit is done and waits for its batch's commit
        await asyncio.sleep(0)
        if writer._batch is None and writer._turn.held:
            committing = True
            break
    assert committing
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await asyncio.wait_for(insert(db, 10, seen), 10)
    assert rows_on_disk(db) == [9, 10]


async def test_a_cancelled_caller_leaves_the_writer_usable(db: Database) -> None:
    seen: list[list[int]] = []
    started = asyncio.Event()

    async def slow() -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n, body) VALUES (7, 'slow')"))
            started.set()
            await asyncio.sleep(30)

    task = asyncio.create_task(slow())
    await started.wait()
    waiter = asyncio.create_task(insert(db, 8, seen))
    task.cancel()
    await asyncio.wait_for(waiter, 10)
    assert rows_on_disk(db) == [8]


async def test_reads_see_only_committed_writes(db: Database) -> None:
    inside = asyncio.Event()
    release = asyncio.Event()

    async def writer() -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n, body) VALUES (5, 'x')"))
            inside.set()
            await release.wait()

    task = asyncio.create_task(writer())
    await inside.wait()
    async with db.read() as session:
        assert (await session.execute(text("SELECT count(*) FROM t"))).scalar() == 0
    release.set()
    await task
    async with db.read() as session:
        assert (await session.execute(text("SELECT count(*) FROM t"))).scalar() == 1


@pytest.mark.parametrize("writer_open", [False, True], ids=["first batch", "later batch"])
async def test_a_write_lock_held_by_another_process_is_waited_for_off_the_loop(
    db: Database, writer_open: bool
) -> None:
    """Whether the writer's connection is opened by this batch or was open already (its
    ``BEGIN IMMEDIATE`` then tried at once on the driver)."""
    path = db.engine.url.database
    assert path
    if writer_open:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 6, "body": "before"})
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # a CLI command holding the file's write lock
    seen: list[list[int]] = []
    writing = asyncio.create_task(insert(db, 7, seen))
    ticks = 0
    while ticks < 20:  # the loop keeps running while the unit waits for the lock
        await asyncio.sleep(0.01)
        ticks += 1
    assert not writing.done()
    other.execute("COMMIT")
    other.close()
    await asyncio.wait_for(writing, timeout=30)
    before = [6] if writer_open else []
    assert rows_on_disk(db) == [*before, 7]
    # and with the lock free again, units go on as before
    await insert(db, 8, seen)
    assert rows_on_disk(db) == [*before, 7, 8]


async def test_a_later_batch_takes_a_free_write_lock_straight_on_the_driver(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the writer's connection is open, a batch's ``BEGIN IMMEDIATE`` goes straight to
    ``sqlite3`` (no call through aiosqlite's adapter) while the lock is free."""
    seen: list[list[int]] = []
    await insert(db, 1, seen)

    async def adapter_call(self: InlineConnection) -> None:
        raise AssertionError("BEGIN IMMEDIATE went through the adapter")

    monkeypatch.setattr(InlineConnection, "begin_immediate", adapter_call)
    await insert(db, 2, seen)
    await insert(db, 3, seen)
    assert rows_on_disk(db) == [1, 2, 3]


async def test_a_unit_of_work_starts_no_async_generator(db: Database) -> None:
    """``db.write()`` is an object with ``__aenter__``/``__aexit__``: each async generator a
    unit went through cost the loop a first-iteration hook, a weak reference and its frames."""
    started: list[object] = []
    firstiter, finalizer = sys.get_asyncgen_hooks()

    def counted(agen: object) -> None:
        started.append(agen)
        if firstiter is not None:
            firstiter(agen)  # type: ignore[arg-type]

    sys.set_asyncgen_hooks(firstiter=counted, finalizer=finalizer)
    try:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 1, "body": "direct"})
    finally:
        sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)
    assert started == []
    assert rows_on_disk(db) == [1]


async def test_the_first_unit_of_a_batch_runs_without_a_savepoint_and_still_fails_alone(
    db: Database,
) -> None:
    """The batch's first unit holds no ``SAVEPOINT`` (nothing else is in the transaction yet):
    when it fails, the whole transaction is rolled back, and the units queued behind it form a
    batch of their own, as if it had rolled back to its savepoint. The second unit of a batch
    opens the batch's savepoint."""
    seen: list[list[int]] = []
    await insert(db, 1, seen)  # the writer's connection is open from here
    assert db._writer is not None and db._writer._sqlite is not None
    statements: list[str] = []
    db._writer._sqlite.set_trace_callback(statements.append)

    async def doomed_direct() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 500, "body": "doomed"})
            await asyncio.sleep(0.01)  # the others queue for the turn meanwhile
            raise RuntimeError("refused half-way")

    async def doomed_flush() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 600, "body": "doomed"})
            await asyncio.sleep(0.01)
            session.add(Row(n=1, body="duplicate of a committed row"))  # fails at the end

    async def doomed_orm() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_T, {"n": 700, "body": "doomed"})
            assert await session.get(Row, 1) is not None
            session.add(Row(n=701, body="doomed"))
            await session.flush()
            raise RuntimeError("refused after a flush")

    first = await asyncio.gather(
        doomed_direct(), insert(db, 2, seen), insert(db, 3, seen), return_exceptions=True
    )
    assert isinstance(first[0], RuntimeError) and first[1:] == [None, None]
    assert statements.count("ROLLBACK") == 1
    assert statements.count('SAVEPOINT "band_batch"') == 1  # as unit 3 joined unit 2's batch
    assert statements.count('SAVEPOINT "band_unit"') == 0
    second = await asyncio.gather(doomed_flush(), insert(db, 4, seen), return_exceptions=True)
    assert isinstance(second[0], IntegrityError) and second[1] is None
    with pytest.raises(RuntimeError):
        await doomed_orm()  # alone
    await insert(db, 5, seen)
    assert rows_on_disk(db) == [1, 2, 3, 4, 5]
    assert statements.count("ROLLBACK") == 3
    assert statements.count('SAVEPOINT "band_batch"') == 1  # every other unit was a first
    assert statements.count('SAVEPOINT "band_unit"') == 0
    assert db.batches.units == 5


@pytest.mark.parametrize("units", [1, 4])
async def test_a_committed_batch_leaves_no_statement_of_the_writer_reading(
    db: Database, units: int
) -> None:
    """The writer's own statements (``BEGIN IMMEDIATE``, ``PRAGMA data_version``) share one
    cursor: each must be stepped to its end, or its read would outlive the ``COMMIT`` and keep
    the WAL from being checkpointed. Here no room's ``last_seq`` is written after the pragma,
    so nothing else would end it."""
    seen: list[list[int]] = []
    await asyncio.gather(*(insert(db, n, seen) for n in range(1, units + 1)))
    await insert(db, 100, seen)  # the writer's connection is open and reused from here
    path = db.engine.url.database
    assert path
    # The node's passive checkpointer (store.wal_checkpoint) may hold the checkpoint for an
    # instant after a commit: that busy passes, a statement the writer left reading does not.
    for _ in range(50):
        with sqlite3.connect(path) as other:
            found = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if found[0] == 0:
            break
        await asyncio.sleep(0.02)
    busy, frames, checkpointed = found
    assert busy == 0 and frames == checkpointed == 0  # the whole WAL copied back and emptied
