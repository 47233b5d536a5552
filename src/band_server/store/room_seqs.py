"""Each room's last message ``seq``, kept in memory by SQLite's one writer.

How it works: docs/internals/server.md, "Room seqs in memory".

Anything else that moves a room's ``last_seq`` in a unit calls :func:`settle` first;
PostgreSQL has none of this.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, DateTime, bindparam, case, or_, update
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from . import direct
from .models import Base, Room

__all__ = ["RoomSeqs", "UnitSeqs", "newest", "next_seq", "settle"]

KEPT = 4096
"""Rooms remembered at most; past it, the (then committed) values are dropped and read again."""
_INFO = "band.room_seqs"
_ROOMS = Base.metadata.tables[Room.__tablename__]
_READ = "SELECT last_seq FROM rooms WHERE id = ?"
# What a unit's undo needs of a room: its seq and newest post before the unit (None: unknown).
Log = list[tuple[str, int | None, datetime | None]]


def newest(at: BindParameter[datetime]) -> ColumnElement[datetime]:
    """``rooms.last_message_at`` moved to ``at`` when ``at`` is newer (a NULL ``at``: as it
    was): what every writer of messages sets with their ``created_at``, so the column stays
    the maximum ``created_at`` of the room's messages, whatever their order."""
    column = _ROOMS.c.last_message_at
    return case((or_(column.is_(None), column < at), at), else_=column)


AT = bindparam("at", type_=DateTime(timezone=True))
"""The ``created_at`` bound in :func:`newest` (the writers' statements name it ``at``)."""
# Through store.direct: the column's onupdate (``updated_at``) is applied as the increment did.
_WRITE = (
    update(_ROOMS)
    .where(_ROOMS.c.id == bindparam("room_id"))
    .values(last_seq=bindparam("last_seq"), last_message_at=newest(AT))
)


class RoomSeqs:
    """The writer's view of each room's last ``seq``, uncommitted increments included."""

    __slots__ = ("_at", "_dialect", "_dirty", "_last", "_version")

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._last: dict[str, int] = {}
        self._at: dict[str, datetime] = {}  # the newest created_at posted, not written yet
        self._dirty: set[str] = set()
        self._version: int | None = None

    def begin(self, writer: sqlite3.Cursor) -> None:
        """A batch's transaction began: forget what another connection may have changed
        (``writer``: a cursor of the writer's connection)."""
        version = writer.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version or len(self._last) > KEPT:
            self.forget()
            self._version = version

    def forget(self) -> None:
        """Read every room again (the batch's transaction was rolled back, or may have been)."""
        self._last.clear()
        self._at.clear()
        self._dirty.clear()

    def reset(self) -> None:
        """A new connection: forget, and its ``data_version`` is a count of its own."""
        self.forget()
        self._version = None

    def take(self, sqlite: sqlite3.Connection, room_id: str, at: datetime, log: Log) -> int | None:
        """The room's next ``seq`` (None: no such room in the transaction) for a message
        created ``at``; ``log`` keeps what to give back if the unit rolls back."""
        known = self._last.get(room_id)
        last = known
        if last is None:
            try:
                row = sqlite.execute(_READ, (room_id,)).fetchone()
            except sqlite3.Error as exc:  # as the session would raise it
                raise DBAPIError.instance(_READ, (room_id,), exc, sqlite3.Error) from exc
            if row is None:
                return None
            last = int(row[0])
        newest_at = self._at.get(room_id)
        log.append((room_id, known, newest_at))
        self._last[room_id] = seq = last + 1
        if newest_at is None or newest_at < at:
            self._at[room_id] = at
        self._dirty.add(room_id)
        return seq

    def undo(self, log: Log) -> None:
        """A unit rolled back to its savepoint: its rooms' ``seq`` and newest post as before
        it."""
        for room_id, known, newest_at in reversed(log):
            if known is None:
                self._last.pop(room_id, None)
            else:
                self._last[room_id] = known
            if newest_at is None:
                self._at.pop(room_id, None)
            else:
                self._at[room_id] = newest_at
        log.clear()

    def pending(self) -> list[dict[str, Any]]:
        """The batch's rooms and their ``last_seq``, to write before its ``COMMIT``
        (:meth:`write`); taken on the loop's thread as the batch closes."""
        last, at = self._last, self._at
        rows = [
            {"room_id": r, "last_seq": last[r], "at": at.get(r)} for r in self._dirty if r in last
        ]
        self._dirty.clear()
        at.clear()
        return rows

    def write(self, writer: sqlite3.Cursor, rows: list[dict[str, Any]]) -> None:
        """:meth:`pending`'s rows written in the batch's transaction (any thread; ``writer``:
        a cursor of the writer's connection)."""
        if rows:
            direct.run_on(writer, self._dialect, _WRITE, rows)

    def settle_room(self, sqlite: sqlite3.Connection, room_id: str, log: Log) -> None:
        """Write one room's values now (in the unit's savepoint) and read the row next time;
        ``log``: the unit's, so that its undo remembers the values again."""
        known = self._last.pop(room_id, None)
        newest_at = self._at.pop(room_id, None)
        if known is None:
            return
        log.append((room_id, known, newest_at))
        if room_id in self._dirty:
            row = {"room_id": room_id, "last_seq": known, "at": newest_at}
            direct.run_on(sqlite, self._dialect, _WRITE, [row])


class UnitSeqs:
    """One unit of work's handle on :class:`RoomSeqs`, with what it took (for its undo)."""

    __slots__ = ("log", "seqs", "sqlite")

    def __init__(self, seqs: RoomSeqs, sqlite: sqlite3.Connection) -> None:
        self.seqs = seqs
        self.sqlite = sqlite
        self.log: Log = []

    def undo(self) -> None:
        if self.log:
            self.seqs.undo(self.log)


def attach(session: AsyncSession, unit: UnitSeqs | None) -> None:
    """The unit's handle, for :func:`next_seq` on its session (None: none, the SQL way)."""
    info: dict[str, Any] = session.sync_session.info
    info[_INFO] = unit


def next_seq(session: AsyncSession, room_id: str, at: datetime) -> int | None:
    """The room's next ``seq`` for a message created ``at``, from the writer's memory, or
    None (PostgreSQL, no writer, no such room): then the caller increments the row (and moves
    its ``last_message_at`` with :func:`newest`)."""
    unit: UnitSeqs | None = session.sync_session.info.get(_INFO)
    if unit is None:
        return None
    return unit.seqs.take(unit.sqlite, room_id, at, unit.log)


def settle(session: AsyncSession, room_id: str) -> None:
    """Before a unit moves a room's ``last_seq`` itself: the memory's value written, then
    forgotten (read again from the row next time)."""
    unit: UnitSeqs | None = session.sync_session.info.get(_INFO)
    if unit is not None:
        direct.unlogged(session)  # a write the unit's statement log does not hold
        unit.seqs.settle_room(unit.sqlite, room_id, unit.log)
