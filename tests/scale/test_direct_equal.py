"""``store.direct`` against the ORM session it stands beside: a differential property test, on
SQLite and on a real PostgreSQL.

The statements compared are the ones the platform runs through ``store.direct``, found by
construction: a turn of an agent through the REST API (posts, a keyed post, ``/next``, the
marks, activity) is played on SQLite, and every statement ``direct`` planned for it
(``direct_plans.plans``, ``direct._reads``) is taken, with the parameter names it was called
with. A new direct statement on the hot path joins the property by itself.

For each, generated parameters (ids of rows that exist and of rows that do not, any text,
integers past 64 bits, times, JSON, some with its text already written, NULLs) run once
through ``direct`` and once through the session, each in a write unit that is then rolled
back: the same outcome (its result and the table's rows, or the same error class and kind),
and the same rows read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from sqlalchemy import JSON, Boolean, DateTime, Integer, String, Text, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Select
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.types import TypeEngine

from band_server.app import create_app
from band_server.config import Settings
from band_server.http.errors import database_error_kind
from band_server.services.identity import accounts
from band_server.services.views import encoded_meta
from band_server.store import direct, direct_plans
from band_server.store.db import Database
from band_server.store.models import Base
from property_kit import LoopThread, live

from .real_services import PostgresServer

EXAMPLES = 300
T = TypeVar("T")


class Undo(Exception):
    """Raised at the end of a write unit: nothing it did is kept."""


async def _turn(c: httpx.AsyncClient, db: Database) -> None:
    """A turn through every direct path: a mention, ``/next``, the marks, events, a keyed
    post, activity, a failure."""
    async with db.write() as session:
        alice, alice_key = await accounts.create_user(session, name="Alice", handle="alice")
    me = {"x-api-key": alice_key}
    r = await c.post(
        "/api/v1/me/agents/register",
        json={"agent": {"name": "Echo", "description": "An agent for direct statements"}},
        headers=me,
    )
    echo, echo_key = r.json()["data"]["agent"], r.json()["data"]["credentials"]["api_key"]
    agent = {"x-api-key": echo_key}
    room = (await c.post("/api/v1/me/chats", json={"chat": {"title": "R"}}, headers=me)).json()
    room_id = room["data"]["id"]
    add = {"participant": {"participant_id": echo["id"]}}
    await c.post(f"/api/v1/me/chats/{room_id}/participants", json=add, headers=me)
    base = f"/api/v1/agent/chats/{room_id}"
    for n in range(2):
        text = {"message": {"content": f"@{echo['handle']} task {n}"}}
        r = await c.post(f"/api/v1/me/chats/{room_id}/messages", json=text, headers=me)
        assert r.status_code == 201, r.text
    for mark in ("processed", "failed"):
        head = (await c.get(f"{base}/messages/next", headers=agent)).json()["data"]
        await c.post(f"{base}/messages/{head['id']}/processing", headers=agent)
        await asyncio.sleep(0.03)  # past the lease clock's interval: signs of life write
        await c.post(f"{base}/activity", json={"working": True}, headers=agent)
        await c.post(f"{base}/messages/{head['id']}/processing", headers=agent)  # again
        event = {"event": {"content": "thinking", "message_type": "thought"}}
        await c.post(f"{base}/events", json=event, headers={**agent, "Idempotency-Key": mark})
        reply = {"message": {"content": "@alice done", "mentions": [{"handle": "alice"}]}}
        await c.post(f"{base}/messages", json=reply, headers=agent)
        await c.post(f"{base}/messages/{head['id']}/{mark}", json={}, headers=agent)
    memory = {"memory": {"content": "Alice likes tea", "subject_id": alice.id}}
    r = await c.post(
        "/api/v1/agent/memories", json=memory, headers={**agent, "Idempotency-Key": "m"}
    )
    assert r.status_code == 201, r.text


class Backend:
    """A platform on one database, after the turn; its ids, and its loop."""

    def __init__(self, loop: LoopThread, settings: Settings) -> None:
        self.loop = loop
        self.app = create_app(settings)
        self._lifespan = self.app.router.lifespan_context(self.app)
        loop.run(self._lifespan.__aenter__())
        self.db: Database = self.app.state.platform.db
        transport = httpx.ASGITransport(app=self.app)
        client = httpx.AsyncClient(transport=transport, base_url="http://band.test")
        loop.run(_turn(client, self.db))
        loop.run(client.aclose())
        self.ids = loop.run(self._ids())

    async def _ids(self) -> list[str]:
        found: set[str] = set()
        async with self.db.read() as session:
            for table in Base.metadata.sorted_tables:
                for column in table.columns:
                    if column.key == "id" or column.key.endswith("_id"):
                        rows = await session.execute(select(column))
                        found |= {v for (v,) in rows if isinstance(v, str)}
        return sorted(found)

    def close(self) -> None:
        self.loop.run(self._lifespan.__aexit__(None, None, None))


@pytest.fixture(scope="module")
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def sqlite(loop: LoopThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    data = tmp_path_factory.mktemp("direct") / "data"
    # A short lease: the lease clock lets the turn's signs of life write (its own statement).
    settings = Settings(data_dir=data, database_url=None, redis_url=None, delivery_lease=0.08)
    backend = Backend(loop, settings)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def postgres(
    loop: LoopThread, postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    url = loop.run(postgres_server.create_database())
    data = tmp_path_factory.mktemp("direct-pg") / "data"
    backend = Backend(loop, Settings(data_dir=data, database_url=url, redis_url=None))
    yield backend
    backend.close()


def planned(backend: Backend) -> tuple[list[tuple[Any, list[str]]], list[tuple[Any, list[str]]]]:
    """The writes and the reads ``direct`` ran itself on ``backend`` (SQLite), with the
    parameter names of each call."""
    db = backend.db
    dialects = {id(db.engine.dialect), id(db._writer_engine.dialect if db._writer_engine else 0)}
    writes = [
        (stmt, sorted(keys))
        for (stmt, dialect, keys), plan in direct_plans.plans.items()
        if plan is not None and id(dialect) in dialects
    ]
    reads = [
        (stmt, sorted(keys)) for (stmt, dialect, keys) in direct._reads if id(dialect) in dialects
    ]
    return writes, reads


# -- parameters --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
NOW = datetime.now(UTC)
times = st.sampled_from([NOW, NOW - timedelta(days=1), NOW + timedelta(hours=1)]) | st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


def _type_of(stmt: Any, name: str) -> TypeEngine[Any]:
    table = getattr(stmt, "table", None)
    if table is not None and name in table.c:
        column_type: TypeEngine[Any] = table.c[name].type
        return column_type
    for bind in stmt.compile().binds.values():
        if bind.key == name:
            bound: TypeEngine[Any] = bind.type
            return bound
    raise LookupError(name)


def value_for(name: str, type_: TypeEngine[Any], ids: list[str]) -> st.SearchStrategy[Any]:
    """Values of the right Python type (what callers pass), NULL one time in twenty."""
    strategy: st.SearchStrategy[Any]
    if isinstance(type_, DateTime):
        strategy = times
    elif isinstance(type_, Boolean):
        strategy = st.booleans()
    elif isinstance(type_, Integer):
        strategy = st.integers(-3, 5) | st.integers(-(2**64), 2**64)
    elif isinstance(type_, JSON):
        plain = st.dictionaries(st.text(max_size=6), json_values, max_size=3)
        # Or as a post passes its metadata: with its text already written (json_text.Encoded).
        strategy = plain | plain.map(encoded_meta)
    elif isinstance(type_, String | Text):
        if name == "id" or name.endswith("_id"):
            strategy = st.sampled_from(ids) | st.uuids().map(str) | st.text(max_size=70)
        else:
            strategy = st.sampled_from(
                ["delivered", "processing", "processed", "failed"]
            ) | st.text(max_size=70)
    else:
        strategy = json_values
    return st.integers(0, 19).flatmap(lambda n: st.none() if n == 0 else strategy)


def params_for(stmt: Any, names: list[str], ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({n: value_for(n, _type_of(stmt, n), ids) for n in names})


# -- outcomes ----------------------------------------------------------------------------------


def _masked_defaults(stmt: UpdateBase, names: list[str]) -> set[str]:
    """Columns the statement fills from a Python default the parameters leave out (a new id,
    the time): random by design, so left out of the comparison."""
    table = getattr(stmt, "table", None)
    if table is None:
        return set()
    out = set()
    for column in table.columns:
        default = column.onupdate if stmt.is_update else column.default
        if (
            column.key not in names
            and default is not None
            and getattr(default, "is_callable", False)
        ):
            out.add(column.key)
    return out


async def write_outcome(
    db: Database, stmt: UpdateBase, params: Any, names: list[str], *, via_direct: bool
) -> tuple[Any, ...]:
    table = stmt.table
    masked = _masked_defaults(stmt, names)
    try:
        async with db.write() as session:
            returning = getattr(stmt, "_returning", ())
            if returning:
                run = direct.scalar if via_direct else None
                result = await (run(session, stmt, params) if run else session.scalar(stmt, params))
            elif via_direct:
                result = await direct.execute(session, stmt, params)
            else:
                result = (await session.execute(stmt, params)) and None
            # As stored, not as the ORM reads it back: a time written in another text form
            # reads back the same, but sorts and compares otherwise in SQL.
            raw = text(f'SELECT * FROM "{table.name}"')
            rows = (await session.execute(raw)).mappings().all()
            kept = sorted(repr({k: v for k, v in r.items() if k not in masked}) for r in rows)
            raise Undo(("ok", result, kept))
    except Undo as done:
        return tuple(done.args[0])
    except DBAPIError as exc:
        return ("refused", type(exc).__name__, database_error_kind(exc))
    except Exception as exc:
        return ("raised", type(exc).__name__)


async def read_outcome(db: Database, stmt: Select[Any], params: dict[str, Any], *, via: str) -> Any:
    try:
        if via == "peek":
            return sorted(map(repr, await db.peek_all(stmt, params)))
        if via == "session":
            async with db.read() as session:
                return sorted(repr(tuple(r)) for r in (await session.execute(stmt, params)).all())
        async with db.write() as session:  # direct.rows, on the unit's own connection
            raise Undo(sorted(map(repr, await direct.rows(session, stmt, params))))
    except Undo as done:
        return done.args[0]
    except DBAPIError as exc:
        return ("refused", type(exc).__name__, database_error_kind(exc))


def _check(backend: Backend, writes: list[Any], reads: list[Any]) -> dict[str, int]:
    counts = {"writes": 0, "reads": 0, "refused": 0}

    @st.composite
    def cases(draw: st.DrawFn) -> tuple[Any, ...]:
        if draw(st.integers(0, 3)) == 0:
            stmt, names = draw(st.sampled_from(reads))
            return ("read", stmt, names, draw(params_for(stmt, names, backend.ids)))
        stmt, names = draw(st.sampled_from(writes))
        many = 1 if getattr(stmt, "_returning", ()) else 3  # ``scalar`` takes one row
        rows = draw(st.lists(params_for(stmt, names, backend.ids), min_size=1, max_size=many))
        return ("write", stmt, names, rows[0] if len(rows) == 1 else rows)

    @live(EXAMPLES)
    @given(case=cases())
    def alike(case: tuple[Any, ...]) -> None:
        kind, stmt, names, params = case
        note(f"{kind} {stmt} {params!r}"[:2000])
        db = backend.db
        if kind == "read":
            outcomes = [
                backend.loop.run(read_outcome(db, stmt, params, via=v))
                for v in ("peek", "session", "rows")
            ]
            assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
        else:
            outcomes = [
                backend.loop.run(write_outcome(db, stmt, params, names, via_direct=d))
                for d in (True, False)
            ]
            assert outcomes[0] == outcomes[1], outcomes
            counts["refused"] += outcomes[0][0] == "refused"
        counts[f"{kind}s"] += 1

    alike()
    return counts


def test_direct_statements_match_the_session_on_sqlite(sqlite: Backend) -> None:
    writes, reads = planned(sqlite)
    # The turn's own statements: the post (sequence, message, mentions, deliveries), the marks.
    assert len(writes) >= 8 and len(reads) >= 2, (writes, reads)
    counts = _check(sqlite, writes, reads)
    print(f"\ndirect vs session (sqlite): {counts}")
    for stmt, names in writes + reads:
        print(f"  {str(stmt).splitlines()[0][:90]} {names}")
    assert counts["refused"] > 0 and counts["writes"] > counts["refused"], counts


def test_direct_statements_match_the_session_on_postgres(
    sqlite: Backend, postgres: Backend
) -> None:
    """On PostgreSQL ``direct`` hands every statement to the session: the same property holds,
    with PostgreSQL's own refusals (a NUL in text, a value past its column's length)."""
    writes, reads = planned(sqlite)
    counts = _check(postgres, writes, reads)
    print(f"\ndirect vs session (postgresql): {counts}")
    assert counts["refused"] > 0, counts
