"""The hottest Core statements, executed straight on SQLite's driver connection.

How it works: docs/internals/server.md, "Statements straight on the driver".

It takes the session's own Core statements and parameters and writes the same rows; anything
else (PostgreSQL, ``IN`` lists, pending ORM changes) goes through ``session.execute``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection as SyncConnection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select
from sqlalchemy.sql.dml import UpdateBase

from .direct_plans import Params, Plan, Processor, bind_of, plan_for, plan_in_order
from .statement_log import StatementLog

__all__ = [
    "StatementLog",
    "adopt",
    "clean",
    "every",
    "execute",
    "first",
    "never_used",
    "rows",
    "run_on",
    "scalar",
    "sqlite_of",
    "unlogged",
]


def sqlite_of(conn: SyncConnection) -> sqlite3.Connection | None:
    """The ``sqlite3`` connection under an (aiosqlite-adapted) SQLAlchemy connection."""
    driver = getattr(conn.connection.driver_connection, "_connection", None)
    return driver if isinstance(driver, sqlite3.Connection) else None


_INFO = "band.direct.sqlite"
_UNIT = "band.direct.unit"
_LOG = "band.direct.log"


def adopt(
    session: AsyncSession,
    driver: sqlite3.Connection,
    dialect: Dialect,
    log: StatementLog | None = None,
) -> None:
    """Run this session's direct statements on ``driver`` without beginning its transaction.

    For a unit of work of the group commit (``store.group_commit``): a unit that only runs
    direct statements never begins the session (no ``SAVEPOINT``, flush or ``RELEASE``
    through SQLAlchemy's transaction objects). With ``log``, each write is noted in it.
    """
    info = session.sync_session.info
    info[_UNIT] = (driver, dialect)
    info[_LOG] = log


def clean(sync: Session) -> bool:
    """``sync._is_clean()`` read from the fields it reads (its two calls, twice a post): nothing
    new, deleted or changed to flush (``test_direct_statements`` compares, in every state)."""
    return not sync.identity_map._modified and not sync._deleted and not sync._new


def never_used(sync: Session) -> bool:
    """``not sync.in_transaction() and sync._is_clean() and not len(sync.identity_map)``: the
    session never began, has nothing to flush, and loaded nothing (a unit of direct statements
    only; ``test_direct_statements`` compares)."""
    return sync._transaction is None and clean(sync) and not sync.identity_map._dict


def unlogged(session: AsyncSession) -> None:
    """The session's unit writes on its connection in a way :class:`StatementLog` cannot
    repeat (``room_seqs.settle``): its log is no longer a replay of its work."""
    log: StatementLog | None = session.sync_session.info.get(_LOG)
    if log is not None:
        log.replayable = False


async def _driver(session: AsyncSession) -> tuple[sqlite3.Connection, Dialect] | None:
    sync = session.sync_session  # (the async proxies' properties cost a call each)
    # What ``Session.flush`` itself asks (``new``/``dirty``/``deleted`` build a set each).
    if not sync._is_clean():
        return None  # the session would flush these first: let it
    adopted: tuple[sqlite3.Connection, Dialect] | None = sync.info.get(_UNIT)
    if adopted is not None:
        return adopted
    known: tuple[sqlite3.Connection, Dialect] | None = sync.info.get(_INFO)
    if known is not None and sync.in_transaction():
        return known
    if session.bind is None or session.bind.dialect.name != "sqlite":
        return None
    conn = await session.connection()  # begins the session's transaction (or savepoint)
    driver = sqlite_of(conn.sync_connection) if conn.sync_connection else None
    if driver is None:
        return None
    session.info[_INFO] = found = (driver, conn.dialect)
    return found


def _run(
    driver: sqlite3.Connection | sqlite3.Cursor,
    plan: Plan,
    rows: Sequence[Params],
    log: StatementLog | None = None,
) -> sqlite3.Cursor:
    args = [plan.arguments(rows[0])] if len(rows) == 1 else [plan.arguments(p) for p in rows]
    try:
        if len(args) == 1:
            cursor = driver.execute(plan.sql, args[0])
        else:
            cursor = driver.executemany(plan.sql, args)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(plan.sql, args, exc, sqlite3.Error) from exc
    if log is not None:
        log.statements.append((plan.sql, args))
        log.changes += cursor.rowcount
    return cursor


async def execute(
    session: AsyncSession, stmt: UpdateBase, params: Params | Sequence[Params]
) -> None:
    """``await session.execute(stmt, params)`` for an insert, update or delete (no result)."""
    # The exact types first: ``isinstance`` against the ``Mapping`` ABC costs a call of its own.
    if type(params) is dict:
        rows: Sequence[Params] = [params]
    elif type(params) is list:
        rows = params  # (only read)
    else:
        rows = [params] if isinstance(params, Mapping) else list(params)
    sync = session.sync_session
    # A unit's adopted connection without a coroutine to ask (_driver's first answer).
    found = sync.info.get(_UNIT) if clean(sync) else None
    if found is None and rows:
        found = await _driver(session)
    plan = plan_in_order(stmt, found[1], rows[0]) if found else None
    # Several rows go straight only with the same keys each (one row needs no comparison).
    if (
        found is None
        or plan is None
        or (len(rows) > 1 and any(frozenset(r) != frozenset(rows[0]) for r in rows[1:]))
    ):
        await session.execute(stmt, params)
        return
    _run(found[0], plan, rows, sync.info.get(_LOG))


def run_on(
    driver: sqlite3.Connection | sqlite3.Cursor,
    dialect: Dialect,
    stmt: UpdateBase,
    rows: Sequence[Params],
) -> None:
    """:func:`execute`'s work straight on a ``sqlite3`` connection (or a cursor of it),
    without a session (the group committer's own statements); every row has the same keys."""
    plan = plan_for(stmt, dialect, frozenset(rows[0]), rows[0])
    if plan is None:
        raise ValueError("direct.run_on takes plain positional statements only")
    _run(driver, plan, rows)


async def scalar(session: AsyncSession, stmt: UpdateBase, params: Params) -> Any:
    """``await session.scalar(stmt, params)`` for a statement with ``RETURNING`` one column."""
    found = await _driver(session)
    plan = plan_for(stmt, found[1], frozenset(params), params) if found else None
    if found is None or plan is None:
        return await session.scalar(stmt, params)
    # Read to the end: a statement left stepping would keep its savepoint from being released.
    rows = _run(found[0], plan, [params], session.sync_session.info.get(_LOG)).fetchall()
    return rows[0][0] if rows else None


@dataclass(frozen=True)
class _ReadPlan:
    sql: str
    binds: tuple[tuple[str, Processor], ...]
    fixed: tuple[tuple[str, Any], ...]
    results: tuple[Processor, ...]


_reads: dict[tuple[Select[Any], Dialect, frozenset[str]], _ReadPlan] = {}


def _read_plan(stmt: Select[Any], dialect: Dialect, params: Params) -> _ReadPlan:
    keys = frozenset(params)
    plan = _reads.get((stmt, dialect, keys))
    if plan is not None:
        return plan
    compiled = stmt.compile(dialect=dialect)
    if compiled.positiontup is None or any(b.expanding for b in compiled.binds.values()):
        raise ValueError("direct.first takes plain positional selects only")
    binds = tuple(
        (name, bind_of(compiled.binds[name].type, dialect)) for name in compiled.positiontup
    )
    fixed = tuple(
        (n, v) for n, v in compiled.construct_params(dict(params)).items() if n not in keys
    )
    results = tuple(
        c.type.dialect_impl(dialect).result_processor(dialect, None) for c in stmt.selected_columns
    )
    plan = _reads[(stmt, dialect, keys)] = _ReadPlan(compiled.string, binds, fixed, results)
    return plan


def _select(
    driver: sqlite3.Connection, dialect: Dialect, stmt: Select[Any], params: Params
) -> tuple[_ReadPlan, sqlite3.Cursor]:
    plan = _read_plan(stmt, dialect, params)
    values = dict(plan.fixed)
    values.update(params)
    args = tuple(v if p is None else p(v) for v, p in ((values[n], p) for n, p in plan.binds))
    try:
        return plan, driver.execute(plan.sql, args)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(plan.sql, args, exc, sqlite3.Error) from exc


def _processed(plan: _ReadPlan, row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(v if p is None else p(v) for v, p in zip(row, plan.results, strict=True))


def first(
    driver: sqlite3.Connection, dialect: Dialect, stmt: Select[Any], params: Params
) -> tuple[Any, ...] | None:
    """The first row of ``stmt`` (a select built once, at import), or None."""
    plan, cursor = _select(driver, dialect, stmt, params)
    try:
        row = cursor.fetchone()
    except sqlite3.Error as exc:
        raise DBAPIError.instance(plan.sql, (), exc, sqlite3.Error) from exc
    return None if row is None else _processed(plan, row)


def every(
    driver: sqlite3.Connection, dialect: Dialect, stmt: Select[Any], params: Params
) -> list[tuple[Any, ...]]:
    """Every row of ``stmt`` (a select built once, at import): one statement, one snapshot."""
    plan, cursor = _select(driver, dialect, stmt, params)
    try:
        fetched = cursor.fetchall()
    except sqlite3.Error as exc:
        raise DBAPIError.instance(plan.sql, (), exc, sqlite3.Error) from exc
    return [_processed(plan, r) for r in fetched]


async def rows(session: AsyncSession, stmt: Select[Any], params: Params) -> list[tuple[Any, ...]]:
    """``(await session.execute(stmt, params)).all()`` for a Core select built once.

    On SQLite it runs on the session's own connection, in its transaction (the unit's
    savepoint: a write unit reads what it is about to change under the writer's lock).
    """
    found = await _driver(session)
    if found is None:
        return [tuple(r) for r in (await session.execute(stmt, params)).all()]
    return every(found[0], found[1], stmt, params)
