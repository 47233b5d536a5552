"""Group commit for SQLite: many units of work per transaction, one fsync per batch.

How it works: docs/internals/server.md, "Group commit".

A unit returns only after its batch's commit is on disk; a unit that raises leaves the
others' work intact. The batches themselves are ``store.group_batch``'s.
"""

from __future__ import annotations

import logging
import sqlite3
import types
from collections.abc import Generator
from types import TracebackType

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from . import direct, room_seqs
from .group_batch import MAX_BATCH, Batch, BatchStats, BatchWriter, InFlight
from .room_seqs import UnitSeqs

__all__ = ["MAX_BATCH", "BatchStats", "ExcInfo", "GroupCommitter", "InFlight"]

# What ``__aexit__`` is given: the exception's type, the exception and its traceback, or Nones.
ExcInfo = tuple[type[BaseException] | None, BaseException | None, TracebackType | None]

log = logging.getLogger("band_server.store")

_SAVEPOINT = 'SAVEPOINT "band_unit"'
_RELEASE = 'RELEASE SAVEPOINT "band_unit"'
_ROLLBACK_TO = 'ROLLBACK TO SAVEPOINT "band_unit"'
_MARK = 'SAVEPOINT "band_batch"'
_BACK_TO_MARK = 'ROLLBACK TO SAVEPOINT "band_batch"'


@types.coroutine
def _one_pass() -> Generator[None, None, None]:
    """One pass of the loop: ``asyncio.sleep(0)``'s bare yield, without its coroutine."""
    yield


def _run(sqlite: sqlite3.Connection, sql: str) -> None:
    try:
        sqlite.execute(sql)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, (), exc, sqlite3.Error) from exc


class GroupCommitter(BatchWriter):
    """The single SQLite writer (see the module docstring)."""

    def unit(self) -> _Unit:
        """One unit of work; on a clean exit, returns once it is durably committed."""
        return _Unit(self)


class _Unit:
    """:meth:`GroupCommitter.unit`: an object, not a generator-based context manager (each
    async generator cost the loop a hook call, a weak reference and its frames, per unit).

    The batch's first unit runs without a savepoint of its own: nothing else is in the
    transaction yet, so when it fails the whole transaction is rolled back and the batch is
    dropped (the next unit begins another). Later units run after the batch's savepoint with
    their writes logged, or, after a unit the log cannot repeat, each in ``SAVEPOINT
    "band_unit"`` (see the module docstring). The session begins only if used:
    direct statements (``store.direct``) run in the transaction at once; anything else makes
    the session begin its own nested savepoint, committed (flushed) or rolled back before the
    unit's own end.
    """

    __slots__ = ("_batch", "_changes", "_first", "_log", "_own", "_seqs", "_session", "_writer")

    def __init__(self, writer: GroupCommitter) -> None:
        self._writer = writer
        self._batch: Batch | None = None
        self._first = False
        self._own = False  # holds "band_unit"
        self._log: direct.StatementLog | None = None  # a later unit's, without "band_unit"
        self._changes = 0  # the connection's total_changes as the unit began
        self._session: AsyncSession | None = None
        self._seqs: UnitSeqs | None = None

    async def __aenter__(self) -> AsyncSession:
        w = self._writer
        waiter = w._turn.take()  # a free turn: no coroutine to run for it
        if waiter is not None:
            w._waiting += 1
            try:
                await w._turn.wait(waiter)
            finally:
                w._waiting -= 1
        try:
            batch = w._batch
            if batch is None:
                batch = w._open_now() or await w._open()
                self._first = True
            self._batch = batch
            sqlite = w._sqlite
            assert sqlite is not None  # nosec B101 # narrows for mypy: _open() set it
            if self._first:
                pass
            elif batch.log is None:
                _run(sqlite, _SAVEPOINT)
                self._own = True
            else:
                if not batch.marked:
                    _run(sqlite, _MARK)
                    batch.marked = True
                self._log = direct.StatementLog()
                self._changes = sqlite.total_changes
        except BaseException:
            self._end()
            raise
        # A session no unit used (direct statements only: never begun, nothing loaded) serves
        # the next unit on the same connection too, rather than building one a unit. (Its
        # sync side's bind, compared: ``AsyncSession.bind`` translates it back, per unit.)
        session, w._spare = w._spare, None
        conn = w._conn
        if session is None or conn is None or session.sync_session.bind is not conn.sync_connection:
            session = AsyncSession(
                bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False
            )
        direct.adopt(session, sqlite, w._dialect, self._log)
        self._seqs = seqs = UnitSeqs(w._seqs, sqlite)
        room_seqs.attach(session, seqs)
        self._session = session
        return session

    async def __aexit__(self, *exc_info: *ExcInfo) -> None:
        try:
            if exc_info[1] is not None:
                session = self._session
                began = session is not None and session.sync_session.in_transaction()
                try:
                    await self._close_session()
                finally:
                    self._undo(began)
                return  # the unit's own exception goes on
            try:
                # A session never used (direct statements only: not begun, nothing new,
                # nothing loaded) has nothing to settle: no coroutine to run for it.
                session = self._session
                assert session is not None  # nosec B101 # narrows for mypy: set on entry
                untouched = direct.never_used(session.sync_session) or await self._settle()
            except BaseException:
                self._undo()
                raise
            w = self._writer
            batch = self._batch
            assert batch is not None  # nosec B101 # narrows for mypy: set on entry
            sqlite = w._sqlite
            assert sqlite is not None  # nosec B101 # narrows for mypy: set with the batch
            if self._own:
                _run(sqlite, _RELEASE)
            elif self._log is not None and batch.log is not None:
                if self._replays(untouched, sqlite):
                    batch.log.statements += self._log.statements
                else:
                    batch.log = None  # later units hold savepoints of their own
            if untouched:
                w._spare = self._session
            batch.size += 1
            if w._alone(batch):
                # One pass of the loop first: whatever already waits for it (a request read
                # but not begun yet, a unit about to ask for the turn) runs before the loop
                # blocks. A request begun sends the commit to the writer's thread; a unit that
                # asks for the turn joins this batch.
                await _one_pass()
        finally:
            self._end()
        batch = self._batch
        assert batch is not None  # nosec B101 # narrows for mypy: set on entry
        waiter = batch.outcome()
        if waiter is not None:
            await waiter
        elif batch.error is not None:
            raise batch.error

    def _replays(self, untouched: bool, sqlite: sqlite3.Connection) -> bool:
        """Whether the unit's log repeats all it wrote: its session never began, and the rows
        its connection changed meanwhile are the rows its logged statements changed."""
        log = self._log
        return (
            untouched
            and log is not None
            and log.replayable
            and sqlite.total_changes - self._changes == log.changes
        )

    def _wrote(self) -> bool:
        return self._log is not None and bool(self._log.statements)

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

    def _undo(self, began: bool = False) -> None:
        """The unit's work undone: for the batch's first unit, the whole transaction rolled
        back (the batch is dropped); else its savepoint rolled back to, or the batch rolled
        back to its own and the logged writes since then run again. ``began``: the unit's
        session had begun (it may have written)."""
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
                return
            if self._own:
                _run(sqlite, _ROLLBACK_TO)
                _run(sqlite, _RELEASE)
            elif began or not self._replays(True, sqlite) or self._wrote():
                # It wrote (or may have): back to the batch's savepoint, the others again.
                batch = self._batch
                assert batch is not None and batch.log is not None  # nosec B101 # narrows for mypy: no savepoint of its own
                _run(sqlite, _BACK_TO_MARK)
                try:
                    batch.log.replay(sqlite)
                except sqlite3.Error as exc:
                    raise DBAPIError.instance(_BACK_TO_MARK, (), exc, sqlite3.Error) from exc
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
