"""Group commit for SQLite: many units of work per transaction, one fsync per batch.

SQLite has one writer. Every :meth:`GroupCommitter.unit` takes the writer's turn in arrival
order (FIFO), runs inside its own ``SAVEPOINT`` of the batch's open transaction, and releases
it (or rolls back to it when the unit raised, leaving the others' work intact); the batch's
first unit needs none (it fails alone by rolling back the whole transaction). When a unit
ends and nobody else is waiting for the turn (or the batch is full), the batch commits:
``COMMIT`` is handed to the writer's thread at once (no task to start first) while later units
queue up for the next batch. Each unit returns only after the commit of its batch is on disk,
so an answer sent after ``async with db.write()`` is durable; a failed commit fails every unit
of its batch.

Under light load every unit commits alone (no added latency); under heavy load a batch holds
everything that arrived during the previous commit (the fsync is shared).

A lone unit (a batch of one, nobody waiting for the turn) commits on the loop's thread when
nothing else is under way on the node either (:class:`InFlight`: the app counts its requests),
checked again after one pass of the loop (a request already read runs its first step then):
nobody waits for the loop during its fsync, and the two cross-thread wake-ups of the hop are
saved. Under load (another request in flight, units queued) the commit goes to the writer's
thread as before, and the loop serves the others meanwhile. Without that pass, requests read
in the same pass of the loop never showed in the count, each committed alone on the loop, and
no batch formed under load (measured in docs/decisions.md).

Before each ``COMMIT``, in the batch's transaction, the writer indexes the batch's text messages
for search (``store.search_index``) and writes the ``last_seq`` of the rooms it posted in, each
room's ``seq`` being counted in memory meanwhile (``store.room_seqs``): once a batch, not once a
message.

The writer's connection stays inside one SQLAlchemy transaction for its whole life; each batch
is a SQLite transaction under it, begun and committed straight on the driver connection
(``BEGIN IMMEDIATE`` / ``COMMIT``, see ``store.sqlite_inline``). Going through SQLAlchemy's
transaction objects for both cost about half of a lone unit's CPU (an agent's calls come one
at a time, so each is a batch of one; measured in docs/decisions.md).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, AsyncTransaction

from . import direct, room_seqs
from .room_seqs import RoomSeqs, UnitSeqs
from .search_index import index_pending
from .sqlite_inline import InlineConnection

# What ``__aexit__`` is given: the exception's type, the exception and its traceback, or Nones.
ExcInfo = tuple[type[BaseException] | None, BaseException | None, TracebackType | None]

log = logging.getLogger("band_server.store")

MAX_BATCH = 256
"""Units in one transaction at most: bounds how long one batch holds its callers."""
_SAVEPOINT = 'SAVEPOINT "band_unit"'
_RELEASE = 'RELEASE SAVEPOINT "band_unit"'
_ROLLBACK_TO = 'ROLLBACK TO SAVEPOINT "band_unit"'


@dataclass
class BatchStats:
    """Batches committed and the units they carried (``listeners`` feed /metrics)."""

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


@dataclass
class _Batch:
    done: asyncio.Future[None]
    size: int = 0


def _run(sqlite: sqlite3.Connection, sql: str) -> None:
    try:
        sqlite.execute(sql)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, (), exc, sqlite3.Error) from exc


class GroupCommitter:
    """The single SQLite writer (see the module docstring)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_batch: int = MAX_BATCH,
        on_batch: Callable[[int], None],
        in_flight: InFlight | None = None,
    ) -> None:
        self._engine = engine
        self._in_flight = in_flight  # None: every commit goes to the writer's thread
        self._max_batch = max_batch
        self._on_batch = on_batch
        self._turn = asyncio.Lock()
        self._waiting = 0
        self._conn: AsyncConnection | None = None
        self._outer: AsyncTransaction | None = None  # SQLAlchemy's view: one long transaction
        self._driver: InlineConnection | None = None
        self._sqlite: sqlite3.Connection | None = None  # the driver's own connection
        self._broken = False  # a unit's savepoint could not be undone: fail the batch
        self._batch: _Batch | None = None
        self._spare: AsyncSession | None = None  # a session no unit used (see _Unit)
        self._seqs = RoomSeqs(engine.dialect)  # each room's last seq (store.room_seqs)

    def unit(self) -> _Unit:
        """One unit of work; on a clean exit, returns once it is durably committed."""
        return _Unit(self)

    def _closes(self, batch: _Batch) -> bool:
        """Commit now: nobody is waiting, the batch is full, or its transaction broke."""
        return self._waiting == 0 or batch.size >= self._max_batch or not self._usable()

    def _alone(self, batch: _Batch) -> bool:
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
        """The batch's transaction is open and nothing broke it."""
        return not self._broken and self._outer is not None and self._outer.is_active

    def _commit_here(self, batch: _Batch) -> None:
        """The batch's ``COMMIT`` (the fsync) on the loop's thread; the turn is released."""
        assert self._sqlite is not None  # nosec B101 # narrows for mypy: set with the batch
        try:
            self._seqs.write(self._sqlite, self._seqs.pending())
            index_pending(self._sqlite)
            self._sqlite.commit()
        except BaseException as exc:
            # Discarding the connection awaits: a task, which owns the turn, as for the hop.
            asyncio.get_running_loop().create_task(self._failed(batch, exc))
            return
        self._committed(batch)
        self._turn.release()

    def _commit_off(self, batch: _Batch) -> None:
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

        seqs, rows = self._seqs, self._seqs.pending()

        def before(sqlite: sqlite3.Connection) -> None:  # on the writer's thread
            seqs.write(sqlite, rows)
            index_pending(sqlite)

        try:
            driver.commit_soon(done, before=before)
        except BaseException as exc:
            done(None, exc)

    async def _open(self) -> _Batch:
        if self._conn is None or self._conn.closed or self._outer is None:
            await self._discard()
            self._conn = await self._engine.connect()
            self._outer = await self._conn.begin()  # the first batch: BEGIN IMMEDIATE
            driver = self._conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]
            assert isinstance(driver, InlineConnection)  # nosec B101 # narrows for mypy: the engine's driver
            self._driver = driver
            self._sqlite = driver._connection
        else:
            assert self._driver is not None and self._sqlite is not None  # nosec B101 # narrows for mypy: set with the batch
            try:
                # The write lock is almost always free (one writer per process): taken here at
                # once, with no call through aiosqlite's adapter (busy timeout 0 on the loop).
                self._sqlite.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                    raise
                await self._driver.begin_immediate()  # another process holds it: wait off-loop
        assert self._sqlite is not None  # nosec B101 # narrows for mypy: set above
        self._seqs.begin(self._sqlite)  # another connection's commit: read the rooms again
        batch = _Batch(asyncio.get_running_loop().create_future())
        self._batch = batch
        return batch

    async def _end_rare(self, batch: _Batch) -> None:
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

    def _committed(self, batch: _Batch) -> None:
        if batch.size:
            self._on_batch(batch.size)
        if not batch.done.done():
            batch.done.set_result(None)

    async def _fail(self, batch: _Batch, exc: BaseException) -> None:
        log.error("group commit of %d units failed: %r", batch.size, exc)
        await self._discard()
        if not batch.done.done():
            batch.done.set_exception(exc)
            batch.done.exception()  # retrieved: a batch nobody waits on must not warn

    async def _failed(self, batch: _Batch, exc: BaseException) -> None:
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
        self._outer = self._driver = self._sqlite = None
        if conn is not None:
            try:
                await conn.invalidate()
            except Exception:
                log.exception("could not discard the writer's connection")

    async def close(self) -> None:
        async with self._turn:
            self._spare = None
            conn, self._conn = self._conn, None
            self._outer = self._driver = self._sqlite = None
            if conn is not None:
                await conn.close()


class _Unit:
    """:meth:`GroupCommitter.unit`: an object, not a generator-based context manager (each
    async generator cost the loop a hook call, a weak reference and its frames, per unit).

    The batch's first unit runs without a savepoint of its own: nothing else is in the
    transaction yet, so when it fails the whole transaction is rolled back and the batch is
    dropped (the next unit begins another). Later units each hold ``SAVEPOINT "band_unit"``,
    released, or rolled back to (alone) when they raise. The session begins only if used:
    direct statements (``store.direct``) run in the transaction at once; anything else makes
    the session begin its own nested savepoint, committed (flushed) or rolled back before the
    unit's own end.
    """

    __slots__ = ("_batch", "_first", "_seqs", "_session", "_writer")

    def __init__(self, writer: GroupCommitter) -> None:
        self._writer = writer
        self._batch: _Batch | None = None
        self._first = False
        self._session: AsyncSession | None = None
        self._seqs: UnitSeqs | None = None

    async def __aenter__(self) -> AsyncSession:
        w = self._writer
        w._waiting += 1
        try:
            await w._turn.acquire()
        finally:
            w._waiting -= 1
        try:
            batch = w._batch
            if batch is None:
                batch = await w._open()
                self._first = True
            self._batch = batch
            sqlite = w._sqlite
            assert sqlite is not None  # nosec B101 # narrows for mypy: _open() set it
            if not self._first:
                _run(sqlite, _SAVEPOINT)
        except BaseException:
            self._end()
            raise
        # A session no unit used (direct statements only: never begun, nothing loaded) serves
        # the next unit on the same connection too, rather than building one a unit.
        session, w._spare = w._spare, None
        if session is None or session.bind is not w._conn:
            session = AsyncSession(
                bind=w._conn, join_transaction_mode="create_savepoint", expire_on_commit=False
            )
        direct.adopt(session, sqlite, w._engine.dialect)
        self._seqs = seqs = UnitSeqs(w._seqs, sqlite)
        room_seqs.attach(session, seqs)
        self._session = session
        return session

    async def __aexit__(self, *exc_info: *ExcInfo) -> None:
        try:
            if exc_info[1] is not None:
                try:
                    await self._close_session()
                finally:
                    self._undo()
                return  # the unit's own exception goes on
            try:
                untouched = await self._settle()
            except BaseException:
                self._undo()
                raise
            w = self._writer
            if not self._first:
                assert w._sqlite is not None  # nosec B101 # narrows for mypy: set with the batch
                _run(w._sqlite, _RELEASE)
            if untouched:
                w._spare = self._session
            batch = self._batch
            assert batch is not None  # nosec B101 # narrows for mypy: set on entry
            batch.size += 1
            if w._alone(batch):
                # One pass of the loop first: whatever already waits for it (a request read
                # but not begun yet, a unit about to ask for the turn) runs before the loop
                # blocks. A request begun sends the commit to the writer's thread; a unit that
                # asks for the turn joins this batch.
                await asyncio.sleep(0)
        finally:
            self._end()
        batch = self._batch
        assert batch is not None  # nosec B101 # narrows for mypy: set on entry
        if batch.done.done():
            batch.done.result()
        else:
            await asyncio.shield(batch.done)

    async def _settle(self) -> bool:
        """Flush (commit) the session if it was used, then close it; True if it never was."""
        session = self._session
        assert session is not None  # nosec B101 # narrows for mypy: set on entry
        sync = session.sync_session
        if not sync.in_transaction() and sync._is_clean():  # clean: nothing new either
            if not len(sync.identity_map):
                return True  # never used (direct statements only): nothing to close
            await session.close()  # it loaded rows: detach them
            return False
        try:
            await session.commit()
        finally:
            await self._close_session()
        return False

    async def _close_session(self) -> None:
        # A session that was used is closed, as every unit's was: what it loaded is detached
        # (no later lazy load on the writer's connection), and a savepoint still open is
        # rolled back.
        session = self._session
        if session is None:
            return
        sync = session.sync_session
        if sync.in_transaction() or len(sync.identity_map) or sync._new:
            await session.close()

    def _undo(self) -> None:
        """The unit's work undone: its savepoint rolled back to, or, for the batch's first
        unit, the whole transaction rolled back (the batch is dropped)."""
        w = self._writer
        sqlite = w._sqlite
        assert sqlite is not None  # nosec B101 # narrows for mypy: set with the batch
        try:
            if self._first:
                w._seqs.forget()  # the whole transaction goes
                if sqlite.in_transaction:
                    _run(sqlite, "ROLLBACK")
                if w._batch is self._batch:
                    w._batch = None
                self._batch = None
            else:
                _run(sqlite, _ROLLBACK_TO)
                _run(sqlite, _RELEASE)
                if self._seqs is not None:
                    self._seqs.undo()  # the seqs it took are free again
        except DBAPIError:
            log.exception("a unit's work could not be rolled back: the batch fails")
            w._broken = True

    def _end(self) -> None:
        """The unit leaves the writer's turn: its batch closes (commits) or stays open for the
        next unit; a dropped batch (its first unit failed) only frees the turn."""
        w = self._writer
        batch = self._batch
        if batch is not None and w._closes(batch):
            w._batch = None
            if w._alone(batch):
                w._commit_here(batch)  # no await: nothing can cancel it half-way
            else:
                # The commit owns the turn from here and releases it when done, so a
                # cancelled caller can never leave a batch half-committed or the turn held.
                w._commit_off(batch)
            return
        w._turn.release()
