"""The database handle: engine, read and write units of work, durability settings."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from sqlalchemy.engine import Connection as SyncConnection
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.sql import Select

from ..json_text import dumps
from . import direct
from .direct import sqlite_of
from .group_commit import BatchStats, GroupCommitter, InFlight
from .search_index import any_pending
from .sqlite_inline import connect_reader, creator, explicit_begin
from .wal_checkpoint import Checkpointer

CONNECT_TIMEOUT = 5.0  # seconds for a new PostgreSQL connection
POOL_TIMEOUT = 10.0  # seconds to wait for a pooled connection


def direct_savepoints(engine: AsyncEngine) -> None:
    """Run the engine's ``SAVEPOINT`` / ``RELEASE`` / ``ROLLBACK TO`` statements straight on
    its ``sqlite3`` connections (SQLAlchemy runs each as a compiled Core statement)."""
    dialect = engine.sync_engine.dialect
    quote = dialect.identifier_preparer.quote

    def statement(verb: str) -> Callable[[SyncConnection, str], None]:
        def run(conn: SyncConnection, name: str) -> None:
            driver = sqlite_of(conn)
            sql = f"{verb} {quote(name)}"
            if driver is None:
                conn.exec_driver_sql(sql)
                return
            try:
                driver.execute(sql)
            except sqlite3.Error as exc:
                raise DBAPIError.instance(sql, (), exc, sqlite3.Error) from exc

        return run

    # Instance attributes of this engine's own dialect; other engines keep SQLAlchemy's.
    dialect.do_savepoint = statement("SAVEPOINT")  # type: ignore[method-assign,assignment]
    dialect.do_release_savepoint = statement("RELEASE SAVEPOINT")  # type: ignore[method-assign,assignment]
    dialect.do_rollback_to_savepoint = statement(  # type: ignore[method-assign,assignment]
        "ROLLBACK TO SAVEPOINT"
    )


class Database:
    """Owns the engines.

    On SQLite, reads run on pooled connections without a thread hop per statement, and all
    writes go through one :class:`~band_server.store.group_commit.GroupCommitter` (SQLite has
    one writer): many units of work share one durable commit. On PostgreSQL every unit of
    work is its own transaction on a pooled connection (the server groups the commits).

    ``in_flight``: the node's callers under way (the app counts its requests); with it, a lone
    unit commits on the loop's thread while nothing else is under way (``group_commit``).
    """

    def __init__(self, url: str, *, in_flight: InFlight | None = None) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.batches = BatchStats()
        self._writer: GroupCommitter | None = None
        self._peeker: sqlite3.Connection | None = None
        self._path: str | None = None
        self._checkpoints: Checkpointer | None = None
        if self.is_sqlite:
            path = make_url(url).database or ":memory:"
            self._path = None if path == ":memory:" else path
            if self._path is not None:
                checkpoints = self._checkpoints = Checkpointer(self._path)
                # After each group commit (as /metrics counts it), the WAL's copy is nudged.
                self.batches.listeners.append(lambda _units: checkpoints.nudge())
            # JSON columns: json.dumps's text from an encoder built once (band_server.json_text).
            self.engine: AsyncEngine = create_async_engine(
                url, async_creator=creator(path, writer=False), json_serializer=dumps
            )
            explicit_begin(self.engine)
            writer_engine = create_async_engine(
                url,
                async_creator=creator(path, writer=True),
                pool_size=1,
                max_overflow=0,
                json_serializer=dumps,
            )
            # IMMEDIATE takes the file's write lock up front: a unit never fails half-way on
            # a lock another process (a CLI command) holds.
            explicit_begin(writer_engine, "BEGIN IMMEDIATE")
            direct_savepoints(writer_engine)
            self._writer_engine: AsyncEngine | None = writer_engine
            self._writer = GroupCommitter(
                writer_engine, on_batch=self.batches.record, in_flight=in_flight
            )
        else:
            kwargs: dict[str, Any] = {
                "pool_size": 10,
                "max_overflow": 20,
                "pool_pre_ping": True,
                # A database that stopped answering costs a request seconds, not minutes: the
                # request is answered 503 (http.errors) instead of hanging.
                "pool_timeout": POOL_TIMEOUT,
            }
            if make_url(url).get_driver_name() == "asyncpg":
                kwargs["connect_args"] = {"timeout": CONNECT_TIMEOUT}
            self.engine = create_async_engine(url, **kwargs)
            self._writer_engine = None
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    def write(self) -> AbstractAsyncContextManager[AsyncSession]:
        """One write transaction; committed (durably) when the block exits cleanly."""
        if self._writer is not None:
            return self._writer.unit()  # as it is: no generator (a loop hook each) around it
        return self._pooled_write()

    @asynccontextmanager
    async def _pooled_write(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session, session.begin():
            yield session

    def _reader(self, path: str) -> sqlite3.Connection:
        """The plain reader connection of the loop's thread (opened on first use)."""
        if self._peeker is None:
            self._peeker = connect_reader(path)
        return self._peeker

    async def search_ready(self) -> None:
        """Before a search reads SQLite's full-text index: the committed texts it lacks are
        indexed first (the writer indexes once a second, ``store.search_index``). Nothing to
        do on PostgreSQL, whose index is written with each row."""
        writer = self._writer
        if writer is None:
            return
        if self._path is not None and not any_pending(self._reader(self._path)):
            return
        writer.index_next()
        async with self.write():
            pass  # a unit of its own: its batch indexes before its COMMIT

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            yield session

    async def peek(self, stmt: Select[Any], params: dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row of a select built once at import (bound by ``params``), or None.

        On SQLite it runs straight on a plain reader connection of the loop's thread
        (``store.direct``), for lookups on hot paths; elsewhere in a read session.
        """
        if self._path is None:
            async with self.read() as session:
                row = (await session.execute(stmt, params)).first()
            return None if row is None else tuple(row)
        return direct.first(self._reader(self._path), self.engine.dialect, stmt, params)

    async def peek_all(self, stmt: Select[Any], params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of such a select, in one statement (one snapshot), as :meth:`peek`."""
        if self._path is None:
            async with self.read() as session:
                return [tuple(r) for r in (await session.execute(stmt, params)).all()]
        return direct.every(self._reader(self._path), self.engine.dialect, stmt, params)

    async def dispose(self) -> None:
        if self._peeker is not None:
            self._peeker.close()
            self._peeker = None
        if self._writer is not None:
            await self._writer.close()
        if self._checkpoints is not None:
            self._checkpoints.stop()
        if self._writer_engine is not None:
            await self._writer_engine.dispose()
        await self.engine.dispose()
