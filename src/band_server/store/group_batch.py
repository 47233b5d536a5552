"""The group committer's batches: one SQLite transaction each on the writer's connection,
opened, committed (on the loop's thread or the writer's), or failed and discarded as a whole.

How it works: docs/internals/server.md, "The group committer's batches".
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, AsyncTransaction

from .room_seqs import RoomSeqs
from .search_index import index_pending
from .sqlite_inline import InlineConnection
from .statement_log import StatementLog
from .turn import Turn

log = logging.getLogger("band_server.store")

MAX_BATCH = 256
"""Units in one transaction at most: bounds how long one batch holds its callers."""
INDEX_EVERY = 1.0
"""Seconds between the search index's passes in the commit path (FTS5 writes a segment each
transaction it indexes in); a search asks for one first (``Database.search_ready``)."""
INDEX_UNITS = 128
"""Units committed since the last pass that make the next batch pass sooner: a pass indexes at
most about this many messages, so it never holds the writer's turn for long (a second of
3,000 posts took ~30 ms)."""


@dataclass
class BatchStats:
    """Batches committed and the units they carried (``listeners``: /metrics, the WAL's
    checkpointer)."""

    batches: int = 0
    units: int = 0
    listeners: list[Callable[[int], None]] = field(default_factory=list)

    def record(self, size: int) -> None:
        self.batches += 1
        self.units += size
        for listener in self.listeners:
            listener(size)


class InFlight:
    """Callers under way on the node, counted by whoever serves them (the app: its requests).

    The writer commits a lone unit on the loop's thread only while at most one is under way
    (the unit's own): blocking the loop for the fsync then holds up nobody.
    """

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class Batch:
    """One transaction's units so far, and its outcome once it commits or fails.

    A unit that finished its work waits in :meth:`outcome` with a future of its own: a caller
    cancelled meanwhile cancels only that future, never the batch, and the wake-up is one step
    of the loop (no shield's inner and outer futures, no pass for its callback).
    """

    __slots__ = ("_waiters", "error", "log", "marked", "settled", "size")

    def __init__(self) -> None:
        self.size = 0
        self.settled = False
        self.error: BaseException | None = None
        self._waiters: list[asyncio.Future[None]] = []
        # The writes of the units since the batch's savepoint (``marked``), to run again after
        # a rollback to it; None once a unit wrote what a log cannot repeat (store.group_commit).
        self.log: StatementLog | None = StatementLog()
        self.marked = False

    def settle(self, error: BaseException | None) -> None:
        """Committed (``None``) or failed: every unit still waiting is told (the first word
        stands)."""
        if self.settled:
            return
        self.settled = True
        self.error = error
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if waiter.done():  # its caller was cancelled
                continue
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)

    def outcome(self) -> asyncio.Future[None] | None:
        """``None`` once settled (:attr:`error` says how); else a future to await for it."""
        if self.settled:
            return None
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return waiter


class BatchWriter:
    """The single SQLite writer's connection and its batches (see the module docstring); the
    units that fill them are :class:`~band_server.store.group_commit.GroupCommitter`'s."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_batch: int = MAX_BATCH,
        on_batch: Callable[[int], None],
        in_flight: InFlight | None = None,
    ) -> None:
        self._engine = engine
        self._dialect = engine.dialect  # (a property of the async engine: read once)
        self._in_flight = in_flight  # None: every commit goes to the writer's thread
        self._max_batch = max_batch
        self._on_batch = on_batch
        self._turn = Turn()
        self._waiting = 0
        self._conn: AsyncConnection | None = None
        self._outer: AsyncTransaction | None = None  # SQLAlchemy's view: one long transaction
        self._driver: InlineConnection | None = None
        self._sqlite: sqlite3.Connection | None = None  # the driver's own connection
        # The writer's own statements (``BEGIN IMMEDIATE``, ``PRAGMA data_version``, the rooms'
        # ``last_seq``) on one cursor of that connection: ``Connection.execute`` builds and
        # drops a cursor a statement. Used only while the turn is held (a commit on the
        # writer's thread holds it), so never from two threads at once.
        self._cursor: sqlite3.Cursor | None = None
        self._broken = False  # a unit's savepoint could not be undone: fail the batch
        self._batch: Batch | None = None
        self._spare: AsyncSession | None = None  # a session no unit used (see group_commit)
        self._seqs = RoomSeqs(self._dialect)  # each room's last seq (store.room_seqs)
        self._indexed_at = float("-inf")  # when a batch last indexed for search
        self._index_next = False  # a search asked: the next batch indexes
        self._since_index = 0  # units committed since (a bound on what the next pass indexes)

    def index_next(self) -> None:
        """The next batch to commit indexes what the search index lacks, whenever the last
        pass was (a unit entered after this call is in that batch or a later one)."""
        self._index_next = True

    def _index_due(self, batch: Batch) -> bool:
        """Whether the batch about to commit indexes for search (then counted as done: a
        request made after this point goes to the next batch)."""
        self._since_index += batch.size
        now = time.monotonic()
        if (
            self._index_next
            or self._since_index >= INDEX_UNITS
            or now - self._indexed_at >= INDEX_EVERY
        ):
            self._index_next = False
            self._indexed_at = now
            self._since_index = 0
            return True
        return False

    def _closes(self, batch: Batch) -> bool:
        """Commit now: nobody is waiting, the batch is full, or its transaction broke."""
        return self._waiting == 0 or batch.size >= self._max_batch or not self._usable()

    def _alone(self, batch: Batch) -> bool:
        """A lone unit, and nothing else under way on the node: commit on the loop's thread."""
        in_flight = self._in_flight
        return (
            in_flight is not None
            and in_flight.count <= 1  # the unit's own request, or none
            and batch.size == 1
            and self._waiting == 0
            and self._usable()
        )

    def _usable(self) -> bool:
        """The batch's transaction is open and nothing broke it (asked of SQLAlchemy's own
        transaction: the async proxy's ``is_active`` is two calls, once a unit)."""
        outer = self._outer
        if self._broken or outer is None:
            return False
        sync = outer.sync_transaction
        return sync is not None and sync.is_active

    def _commit_here(self, batch: Batch) -> None:
        """The batch's ``COMMIT`` (the fsync) on the loop's thread; the turn is released."""
        assert self._sqlite is not None and self._cursor is not None  # nosec B101 # narrows for mypy: set with the batch
        try:
            self._seqs.write(self._cursor, self._seqs.pending())
            if self._index_due(batch):
                index_pending(self._sqlite)
            self._sqlite.commit()
        except BaseException as exc:
            # Discarding the connection awaits: a task, which owns the turn, as for the hop.
            asyncio.get_running_loop().create_task(self._failed(batch, exc))
            return
        self._committed(batch)
        self._turn.release()

    def _commit_off(self, batch: Batch) -> None:
        """The batch's ``COMMIT`` handed to the writer's thread now (no task to start first:
        a task's first step would wait behind everything the loop has ready)."""
        driver = self._driver
        if batch.size == 0 or driver is None or not self._usable():
            asyncio.get_running_loop().create_task(self._end_rare(batch))
            return

        def done(_result: object, exc: BaseException | None) -> None:
            if exc is None:
                try:
                    self._committed(batch)
                finally:
                    self._turn.release()
            else:
                # Discarding the connection awaits: a task, which owns the turn, as _end_rare.
                asyncio.get_running_loop().create_task(self._failed(batch, exc))

        seqs, rows, index = self._seqs, self._seqs.pending(), self._index_due(batch)
        cursor = self._cursor
        assert cursor is not None  # nosec B101 # narrows for mypy: set with the batch

        def before(sqlite: sqlite3.Connection) -> None:  # on the writer's thread
            seqs.write(cursor, rows)
            if index:
                index_pending(sqlite)

        try:
            driver.commit_soon(done, before=before)
        except BaseException as exc:
            done(None, exc)

    def _open_now(self) -> Batch | None:
        """The next batch, begun on the spot (no coroutine) on the open connection; None
        when :meth:`_open` must await: no connection yet, or the write lock held elsewhere."""
        cursor = self._cursor
        if cursor is None or self._conn is None or self._conn.closed or self._outer is None:
            return None
        try:
            # The write lock is almost always free (one writer per process): taken here at
            # once, with no call through aiosqlite's adapter (busy timeout 0 on the loop).
            cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                raise
            return None
        return self._begun(cursor)

    async def _open(self) -> Batch:
        """The next batch, where :meth:`_open_now` could not begin it."""
        if self._conn is None or self._conn.closed or self._outer is None:
            await self._discard()
            self._conn = await self._engine.connect()
            self._outer = await self._conn.begin()  # the first batch: BEGIN IMMEDIATE
            driver = self._conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]
            assert isinstance(driver, InlineConnection)  # nosec B101 # narrows for mypy: the engine's driver
            self._driver = driver
            self._sqlite = driver._connection
            self._cursor = driver._conn.cursor()
        else:
            assert self._driver is not None  # nosec B101 # narrows for mypy: set with the batch
            await self._driver.begin_immediate()  # another process holds it: wait off-loop
        assert self._cursor is not None  # nosec B101 # narrows for mypy: set above
        return self._begun(self._cursor)

    def _begun(self, cursor: sqlite3.Cursor) -> Batch:
        self._seqs.begin(cursor)  # another connection's commit: read the rooms again
        batch = Batch()
        self._batch = batch
        return batch

    async def _end_rare(self, batch: Batch) -> None:
        """What :meth:`_commit_off` does not hand over, in a task that owns the turn: an empty
        batch's ``ROLLBACK``, or the failure of a batch whose transaction broke."""
        try:
            assert self._driver is not None  # nosec B101 # narrows for mypy: set with the batch
            if not self._usable():
                raise RuntimeError("the writer's transaction was rolled back")
            self._seqs.forget()
            await self._driver.execute("ROLLBACK")  # an empty batch
        except BaseException as exc:
            await self._fail(batch, exc)
            if not isinstance(exc, Exception):
                raise
        else:
            self._committed(batch)
        finally:
            self._turn.release()

    def _committed(self, batch: Batch) -> None:
        if batch.size:
            self._on_batch(batch.size)
        batch.settle(None)

    async def _fail(self, batch: Batch, exc: BaseException) -> None:
        log.error("group commit of %d units failed: %r", batch.size, exc)
        self._indexed_at = float("-inf")  # its index pass, if it made one, is undone
        await self._discard()
        batch.settle(exc)

    async def _failed(self, batch: Batch, exc: BaseException) -> None:
        """A commit on the loop's thread failed: fail its unit, then free the turn."""
        try:
            await self._fail(batch, exc)
        finally:
            self._turn.release()

    async def _discard(self) -> None:
        self._seqs.reset()
        conn, self._conn = self._conn, None
        self._spare = None
        self._broken = False
        self._outer = self._driver = self._sqlite = self._cursor = None
        if conn is not None:
            try:
                await conn.invalidate()
            except Exception:
                log.exception("could not discard the writer's connection")

    async def close(self) -> None:
        async with self._turn:
            self._spare = None
            conn, self._conn = self._conn, None
            self._outer = self._driver = self._sqlite = self._cursor = None
            if conn is not None:
                await conn.close()
