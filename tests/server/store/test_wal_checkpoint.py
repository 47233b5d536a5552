"""The WAL is copied into the database file beside the writer (``store.wal_checkpoint``): after
commits a pass copies what they wrote, the writer's own autocheckpoint is only a cap, a failing
pass is logged and the next one tries again, and stopping ends the thread."""

from __future__ import annotations

import asyncio
import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text

from band_server.store import wal_checkpoint
from band_server.store.db import Database
from band_server.store.wal_checkpoint import WRITER_CHECKPOINT_PAGES, Checkpointer


def _writer(path: Path) -> sqlite3.Connection:
    """A writer that never checkpoints by itself: what is in the file came from a pass."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER PRIMARY KEY, body TEXT)")
    return conn


def _write(conn: sqlite3.Connection, first: int, count: int) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO t VALUES (?, ?)", [(n, "x" * 300) for n in range(first, first + count)]
    )
    conn.execute("COMMIT")


def _rows_in_file_alone(path: Path, tmp: Path) -> int:
    """Rows of ``t`` in the database file without its WAL (a copy of the file, opened alone)."""
    alone = tmp / "alone.db"
    shutil.copyfile(path, alone)
    conn = sqlite3.connect(f"file:{alone}?immutable=1", uri=True)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 't'").fetchone() is None:
            return 0  # the table itself is still in the WAL only
        return int(conn.execute("SELECT count(*) FROM t").fetchone()[0])
    finally:
        conn.close()


def _wait_for(predicate: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_a_pass_copies_what_commits_wrote_into_the_file(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    writer = _writer(path)
    checkpoints = Checkpointer(str(path), delay=0.01)
    try:
        _write(writer, 0, 500)
        assert _rows_in_file_alone(path, tmp_path) == 0  # all of it still in the WAL only
        checkpoints.nudge()
        assert _wait_for(lambda: checkpoints.passes >= 1)
        assert _rows_in_file_alone(path, tmp_path) == 500
        # A second burst, a second pass: the writer never checkpointed by itself.
        _write(writer, 500, 500)
        checkpoints.nudge()
        assert _wait_for(lambda: checkpoints.passes >= 2)
        assert _rows_in_file_alone(path, tmp_path) == 1000
    finally:
        checkpoints.stop()
        writer.close()


def test_nothing_committed_no_thread_and_stop_ends_it(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    writer = _writer(path)
    checkpoints = Checkpointer(str(path), delay=0.01)
    named = [t for t in threading.enumerate() if t.name == "sqlite-checkpoint"]
    assert checkpoints.passes == 0
    checkpoints.nudge()
    assert _wait_for(lambda: checkpoints.passes == 1)
    time.sleep(0.05)
    assert checkpoints.passes == 1  # one nudge, one pass: no polling while idle
    running = [t for t in threading.enumerate() if t.name == "sqlite-checkpoint"]
    assert len(running) == len(named) + 1
    checkpoints.delay = 5.0
    checkpoints.nudge()
    started = time.monotonic()
    checkpoints.stop()  # a pass waiting for its delay is not made, nor waited for
    assert time.monotonic() - started < 0.5
    assert checkpoints.passes == 1
    assert [t for t in threading.enumerate() if t.name == "sqlite-checkpoint"] == named
    checkpoints.nudge()  # after stop: no thread again
    assert [t for t in threading.enumerate() if t.name == "sqlite-checkpoint"] == named
    writer.close()


def test_a_failing_pass_is_logged_and_the_next_one_tries_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "later" / "w.db"  # its folder does not exist yet: the pass cannot open it
    checkpoints = Checkpointer(str(path), delay=0.01)
    try:
        with caplog.at_level(logging.WARNING, logger=wal_checkpoint.__name__):
            checkpoints.nudge()
            assert _wait_for(lambda: "WAL checkpoint" in caplog.text)
        assert checkpoints.passes == 0
        path.parent.mkdir()
        writer = _writer(path)
        _write(writer, 0, 100)
        checkpoints.nudge()
        assert _wait_for(lambda: checkpoints.passes == 1)
        assert _rows_in_file_alone(path, tmp_path) == 100
        writer.close()
    finally:
        checkpoints.stop()


async def _node(tmp_path: Path) -> Database:
    """A node's database at ``node.db`` with the table ``t``."""
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'node.db'}")
    async with database.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)"))
    return database


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await _node(tmp_path)
    yield database
    await database.dispose()


async def test_the_nodes_writer_caps_and_its_commits_nudge(db: Database, tmp_path: Path) -> None:
    async with db.write() as session:
        cap = (await session.execute(text("PRAGMA wal_autocheckpoint"))).scalar_one()
        await session.execute(text("INSERT INTO t VALUES (1, 'one')"))
    assert cap == WRITER_CHECKPOINT_PAGES
    checkpoints = db._checkpoints
    assert checkpoints is not None
    for n in range(2, 40):
        async with db.write() as session:
            await session.execute(text("INSERT INTO t VALUES (:n, 'x')"), {"n": n})
    # Only a pass copies (the writer's cap is far off): the file alone comes to hold them all.
    for _ in range(500):
        if _rows_in_file_alone(tmp_path / "node.db", tmp_path) == 39:
            break
        await asyncio.sleep(0.01)
    assert _rows_in_file_alone(tmp_path / "node.db", tmp_path) == 39
    assert checkpoints.passes >= 1


async def test_dispose_stops_the_thread(tmp_path: Path) -> None:
    database = await _node(tmp_path)
    async with database.write() as session:
        await session.execute(text("INSERT INTO t VALUES (1, 'one')"))
    checkpoints = database._checkpoints
    assert checkpoints is not None and checkpoints._thread is not None
    thread = checkpoints._thread
    await database.dispose()
    assert not thread.is_alive()
