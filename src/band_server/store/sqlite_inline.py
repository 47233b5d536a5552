"""SQLite for the async engine without a thread hop per statement.

How it works: docs/internals/server.md, "SQLite on the loop's thread".

Statements run on the loop's thread; only what may wait on the disk or another process's lock
goes to a worker thread.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import sys
import threading
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.engine import Connection as SyncConnection
from sqlalchemy.ext.asyncio import AsyncEngine

from .wal_checkpoint import WRITER_CHECKPOINT_PAGES

__all__ = ["InlineConnection", "connect_reader", "creator", "explicit_begin"]

WRITER_BUSY_MS = 10_000
WRITER_CACHE_KIB = 32 * 1024
READER_CACHE_KIB = 4 * 1024
SWITCH_INTERVAL = 0.0005
"""Seconds a thread waiting for the GIL waits before the running one must drop it (CPython's
default: 0.005). The writer's thread needs the GIL back the moment its ``COMMIT`` returns,
while the loop's thread, busy under load, would keep it for the whole default interval: the
wait was most of a batch's commit under load (docs/decisions.md, "SQLite: one writer, group
commit, statements on the loop's thread")."""


PAGE_SIZE = 2048
"""Bytes a page of a database this node creates (SQLite's default: 4096; an existing file keeps
its own). A mention's commit writes one leaf of each b-tree it touches, whole, to the WAL and
checksums it: at 2 KiB those are half the bytes written and fsynced for about one frame more
(docs/decisions.md, "SQLite pages of 2 KiB")."""


def _pragmas(conn: sqlite3.Connection, *, writer: bool) -> None:
    # A new file only (before its first table; after that SQLite ignores it, and in WAL mode
    # no VACUUM changes it).
    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
    # WAL lets readers run beside the one writer; synchronous=FULL makes every commit durable
    # before we answer 2xx (a kill -9 right after the answer loses nothing).
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    # Savepoints (one per unit of work) keep their undo data in memory, and the writer's bigger
    # page cache keeps the hot indexes of a busy node from being read again and again. Each
    # reader (up to 15 under load, overflow ones reopened cold) keeps its own cache: at 32 MiB
    # each they held up to 175 MiB and the node's RSS grew for the whole soak (bench/soak.py,
    # docs/decisions.md "Soak"); at 4 MiB it is flat once warm, misses served by the OS cache.
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute(f"PRAGMA cache_size={-WRITER_CACHE_KIB if writer else -READER_CACHE_KIB}")
    # A reader runs on the loop's thread: WAL readers never wait for the writer, so a long
    # busy wait could only come from a crash recovery; keep it short. The writer never waits
    # on the loop's thread: holding the write lock from BEGIN IMMEDIATE on, its statements
    # take no other lock, and BEGIN IMMEDIATE itself, when another process (a CLI command)
    # holds the lock, waits in the worker thread with WRITER_BUSY_MS (``_waiting``).
    conn.execute(f"PRAGMA busy_timeout={0 if writer else 2000}")
    if writer:
        # The WAL is copied into the file beside the writer (store.wal_checkpoint); its own
        # checkpoint only bounds the WAL's length.
        conn.execute(f"PRAGMA wal_autocheckpoint={WRITER_CHECKPOINT_PAGES}")


class _InlineQueue:
    """Stands in for aiosqlite's queue to its worker thread: runs the call at once."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = item
        try:
            result = function()
        except BaseException as exc:
            if future is not None and not future.done():
                future.set_exception(exc)
            return
        if future is not None and not future.done():
            future.set_result(result)


class OffLoop:
    """One worker thread for the calls that may block (the writer's ``COMMIT``: the fsync).

    ``loop.run_in_executor`` cost the loop's CPU on every call (a
    ``concurrent.futures`` future chained to an asyncio one, locks on both, a coroutine-function
    check of the callable): one per write unit, as much as the unit's own statements. This
    hands the call to the thread through a ``SimpleQueue`` and the result back through
    ``call_soon_threadsafe``, nothing else. The thread starts on first use; it is a daemon, so
    a process ending mid-commit ends as a crash would (SQLite recovers; nothing was answered).
    Starting it lowers the interpreter's switch interval (:func:`prompt_gil`): a ``COMMIT``
    gives the GIL up for the fsync and needs it back to return, from a busy loop's thread.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def run(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self.submit(fn, partial(_settle, future))
        return future

    def submit(
        self, fn: Callable[[], Any], done: Callable[[Any, BaseException | None], None]
    ) -> None:
        """Hand ``fn`` to the thread now; ``done(result, exc)`` runs on the loop when it ends.

        No future and no task: the thread has the call before the caller's next statement,
        and ``done`` is the loop's first step after it (``call_soon_threadsafe``).
        """
        loop = asyncio.get_running_loop()

        def call() -> None:
            try:
                result = fn()
            except BaseException as exc:
                loop.call_soon_threadsafe(done, None, exc)
            else:
                loop.call_soon_threadsafe(done, result, None)

        if self._thread is None:
            prompt_gil()
            self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
            self._thread.start()
        self._calls.put(call)

    def _serve(self) -> None:
        while True:
            self._calls.get()()


def prompt_gil() -> None:
    """Lower the interpreter's switch interval to :data:`SWITCH_INTERVAL` (never raise it)."""
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.done():  # the waiter was cancelled; the call itself still ran to its end
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)


class InlineConnection(aiosqlite.Connection):
    """An aiosqlite connection that executes on the calling thread (see the module doc)."""

    def __init__(
        self, connector: Callable[[], sqlite3.Connection], executor: OffLoop | None
    ) -> None:
        super().__init__(connector, iter_chunk_size=64)
        self._tx = _InlineQueue()  # type: ignore[assignment]
        self._offload = executor

    def __await__(self) -> Any:
        # No worker thread to start: connect on the spot.
        return self._connect().__await__()

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        if self._offload is None:
            return fn(*args, **kwargs)
        if fn == self._connection.commit:
            return await self._off(fn, *args, **kwargs)
        if _begins_immediate(args):
            # The write lock is almost always free (this process has one writer): take it on
            # the spot without waiting (the writer's busy timeout is 0 on the loop's thread),
            # and only wait for it (on the thread) when another process holds it. Saves a
            # thread round trip per batch.
            try:
                return fn(*args, **kwargs)
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                    raise
            return await self._off(partial(_waiting, self._connection, fn), *args, **kwargs)
        return fn(*args, **kwargs)

    async def _off(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        assert self._offload is not None  # nosec B101 # narrows for mypy: set while running
        return await self._offload.run(partial(fn, *args, **kwargs))

    def commit_soon(
        self,
        done: Callable[[Any, BaseException | None], None],
        *,
        before: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        """``COMMIT`` handed to the writer's thread at once; ``done(None, exc)`` on the loop.

        ``before(connection)`` runs on that thread first, in the transaction (a failure fails
        the commit): work that belongs to the batch, done while the loop serves others."""
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        assert self._offload is not None  # nosec B101 # narrows for mypy: set while running
        conn = self._connection
        if before is None:
            self._offload.submit(conn.commit, done)
            return

        def prepare_and_commit() -> None:
            before(conn)
            conn.commit()

        self._offload.submit(prepare_and_commit, done)

    async def begin_immediate(self) -> None:
        """``BEGIN IMMEDIATE`` straight on the connection (see :meth:`_execute`)."""
        await self._execute(self._conn.execute, "BEGIN IMMEDIATE")


def _begins_immediate(args: tuple[Any, ...]) -> bool:
    return bool(args) and isinstance(args[0], str) and args[0].startswith("BEGIN IMMEDIATE")


def _waiting(conn: sqlite3.Connection, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn`` with the writer's busy timeout (on the writer's thread; 0 again after it)."""
    conn.execute(f"PRAGMA busy_timeout={WRITER_BUSY_MS}")
    try:
        return fn(*args, **kwargs)
    finally:
        conn.execute("PRAGMA busy_timeout=0")


def connect_reader(path: str) -> sqlite3.Connection:
    """A plain reader connection on the loop's thread (autocommit: one snapshot per statement)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    _pragmas(conn, writer=False)
    return conn


def creator(path: str, *, writer: bool) -> Callable[[], Awaitable[InlineConnection]]:
    """An ``async_creator`` for ``create_async_engine``: inline connections to ``path``.

    The writer's connection gets one worker thread for its commits and its waits for the lock.
    """
    executor = OffLoop("sqlite-commit") if writer else None

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        _pragmas(conn, writer=writer)
        return conn

    async def create() -> InlineConnection:
        conn = InlineConnection(connect, executor)
        await conn._connect()
        return conn

    return create


def explicit_begin(engine: AsyncEngine, statement: str = "BEGIN") -> None:
    """Begin every transaction with ``statement`` (the driver itself never begins one)."""

    def begin(conn: SyncConnection) -> None:
        conn.exec_driver_sql(statement)

    event.listen(engine.sync_engine, "begin", begin)
