"""Hot Core statements run straight on SQLite (store.direct) write exactly what the session
would: same rows, same defaults and types, same errors, and inside the unit's savepoint."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import iso
from band_server.store import direct, direct_plans
from band_server.store.db import Database
from band_server.store.migrate import upgrade
from band_server.store.models import Base, Delivery, Message, Room, User

MESSAGES = Base.metadata.tables["messages"]
DELIVERIES = Base.metadata.tables["deliveries"]
ROOMS = Base.metadata.tables["rooms"]
INSERT_MESSAGE = MESSAGES.insert()
INSERT_DELIVERY = DELIVERIES.insert()
NEXT_SEQ = (
    update(ROOMS)
    .where(ROOMS.c.id == bindparam("room_id"))
    .values(last_seq=ROOMS.c.last_seq + 1)
    .returning(ROOMS.c.last_seq)
)


@pytest.fixture
async def db(tmp_path: Path) -> Database:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'direct.db'}")
    await upgrade(database.engine)
    async with database.write() as session:
        session.add(User(id="u1", name="Ann", handle="ann", email="ann@example.org"))
        session.add(Room(id="r1", owner_id="u1", owner_type="User"))
    yield database  # type: ignore[misc]
    await database.dispose()


async def raw_rows(db: Database, sql: str) -> list[Any]:
    """``sql``'s rows as SQLite holds them (no type processing)."""
    async with db.read() as session:
        conn = await session.connection()
        return list((await conn.exec_driver_sql(sql)).all())


def message_row(msg_id: str, seq: int) -> dict[str, Any]:
    at = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    return {
        "id": msg_id,
        "room_id": "r1",
        "seq": seq,
        "sender_id": "u1",
        "sender_type": "User",
        "sender_name": "Ann",
        "message_type": "text",
        "content": "hé @Bot",
        "metadata": {"mentions": [{"id": "a1"}], "status": "sent"},
        "created_at": at,
        "updated_at": at,
    }


async def read_message(db: Database, msg_id: str) -> dict[str, Any]:
    async with db.read() as session:
        msg = await session.get(Message, msg_id)
        assert msg is not None
        return {c.key: getattr(msg, c.key) for c in Message.__mapper__.column_attrs}


async def test_an_insert_writes_what_the_session_writes(db: Database) -> None:
    async with db.write() as session:
        await session.execute(INSERT_MESSAGE, message_row("via-session", 1))
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("direct", 2))
    by_session = await read_message(db, "via-session")
    by_direct = await read_message(db, "direct")
    assert {**by_direct, "id": "via-session", "seq": 1} == by_session
    assert by_direct["meta"] == {"mentions": [{"id": "a1"}], "status": "sent"}


async def test_left_out_columns_get_their_defaults(db: Database) -> None:
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("m1", 1))
        await direct.execute(
            session,
            INSERT_DELIVERY,
            [
                {"message_id": "m1", "room_id": "r1", "agent_id": agent, "seq": 1}
                for agent in ("a1", "a2")
            ],
        )
    async with db.read() as session:
        rows = (await session.scalars(select(Delivery).order_by(Delivery.agent_id))).all()
    assert [(r.agent_id, r.status, r.attempt_number) for r in rows] == [
        ("a1", "delivered", 0),
        ("a2", "delivered", 0),
    ]
    assert all(len(r.id) == 36 and r.delivered_at is not None for r in rows)
    assert rows[0].id != rows[1].id


async def test_returning_gives_the_new_value_and_applies_onupdate(db: Database) -> None:
    async with db.read() as session:
        room = await session.get(Room, "r1")
        assert room is not None
        before = room.updated_at
    await asyncio.sleep(0.01)
    async with db.write() as session:
        assert await direct.scalar(session, NEXT_SEQ, {"room_id": "r1"}) == 1
        assert await direct.scalar(session, NEXT_SEQ, {"room_id": "r1"}) == 2
        assert await direct.scalar(session, NEXT_SEQ, {"room_id": "nowhere"}) is None
    async with db.read() as session:
        room = await session.get(Room, "r1")
        assert room is not None
        assert room.last_seq == 2
        assert room.updated_at > before


async def test_errors_are_sqlalchemy_errors_and_the_unit_rolls_back_alone(db: Database) -> None:
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("m1", 1))

    async def duplicate() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_MESSAGE, message_row("m2", 2))
            await direct.execute(session, INSERT_MESSAGE, message_row("m1", 3))

    async def fine() -> None:
        async with db.write() as session:
            await direct.execute(session, INSERT_MESSAGE, message_row("m3", 4))

    results = await asyncio.gather(duplicate(), fine(), return_exceptions=True)
    assert isinstance(results[0], IntegrityError)
    assert results[1] is None
    async with db.read() as session:
        ids = (await session.scalars(select(Message.id).order_by(Message.seq))).all()
    assert ids == ["m1", "m3"]  # m2 went with its unit; m3's unit was untouched


async def test_pending_orm_changes_are_flushed_first(db: Database) -> None:
    async with db.write() as session:
        session.add(Room(id="r2", owner_id="u1", owner_type="User"))
        # The message's room only exists once the pending room is flushed (foreign key).
        await direct.execute(session, INSERT_MESSAGE, {**message_row("m1", 1), "room_id": "r2"})
    async with db.read() as session:
        assert (await session.get(Message, "m1")) is not None


async def test_pending_orm_changes_and_deletes_are_flushed_first(db: Database) -> None:
    """A changed row and a deleted one are flushed before a direct statement, as a new one
    is (``execute`` reads what ``Session._is_clean`` reads)."""
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("m1", 1))
        await direct.execute(session, INSERT_MESSAGE, message_row("m2", 2))
    async with db.write() as session:
        moved = await session.get(Message, "m1")
        assert moved is not None
        moved.seq = 9  # (room, seq) is unique: seq 1 is free only once this is flushed
        await direct.execute(session, INSERT_MESSAGE, message_row("m3", 1))
    async with db.write() as session:
        gone = await session.get(Message, "m2")
        await session.delete(gone)  # its id is free only once this is flushed
        await direct.execute(session, INSERT_MESSAGE, message_row("m2", 5))
    async with db.read() as session:
        seqs = {i: n for i, n in (await session.execute(select(Message.id, Message.seq))).all()}
    assert seqs == {"m1": 9, "m2": 5, "m3": 1}


async def test_never_used_is_what_the_session_says(db: Database) -> None:
    """``direct.never_used`` and ``direct.clean`` against the session's own methods, in every
    state a unit can leave it in."""

    def expected(session: AsyncSession) -> bool:
        sync = session.sync_session
        return not sync.in_transaction() and sync._is_clean() and not len(sync.identity_map)

    def same(session: AsyncSession) -> bool:
        sync = session.sync_session
        assert direct.clean(sync) == sync._is_clean()  # (execute's check of the unit's session)
        assert direct.never_used(sync) == expected(session)
        return expected(session)

    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("m1", 1))
    async with db.write() as session:
        assert same(session)
        room = Room(id="r2", owner_id="u1", owner_type="User")
        session.add(room)  # new
        assert not same(session)
        session.expunge(room)
        assert not same(session)  # nothing held, but adding began the session
    async with db.write() as session:
        await session.connection()  # begun only
        assert not same(session)
    async with db.write() as session:
        msg = await session.get(Message, "m1")  # loaded
        assert msg is not None and not same(session)
        msg.content = "changed"  # modified
        assert not same(session)
        await session.delete(msg)  # deleted
        assert not same(session)
        session.expunge_all()
        await session.rollback()
        assert same(session)


LOOKUP = select(MESSAGES.c.seq, MESSAGES.c.metadata, MESSAGES.c.created_at).where(
    MESSAGES.c.id == bindparam("msg_id")
)


async def test_peek_reads_committed_rows_as_the_session_does(db: Database) -> None:
    assert await db.peek(LOOKUP, {"msg_id": "m1"}) is None
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("m1", 1))
    async with db.read() as session:
        expected = tuple((await session.execute(LOOKUP, {"msg_id": "m1"})).one())
    found = await db.peek(LOOKUP, {"msg_id": "m1"})
    assert found == expected
    assert found is not None and isinstance(found[2], datetime)
    assert found[1] == {"mentions": [{"id": "a1"}], "status": "sent"}


def _sqlalchemy_datetime_text(value: Any) -> Any:
    from sqlalchemy.dialects import sqlite
    from sqlalchemy.dialects.sqlite.base import DATETIME

    process = DATETIME().bind_processor(sqlite.dialect())  # type: ignore[no-untyped-call]
    assert process is not None
    return process(value)


def test_timestamps_are_bound_as_the_text_sqlalchemy_writes() -> None:
    """The direct path's ``DATETIME`` processor (``isoformat``, the last text reused) gives
    SQLAlchemy's text for every value: naive, UTC, another offset, no microseconds, an early
    year, a date, ``None``; the same object twice, and values alternating."""
    from datetime import date, timedelta, timezone

    from sqlalchemy.dialects import sqlite

    from band_server.store.models import Message as M

    process = direct_plans.bind_of(M.__table__.c.created_at.type, sqlite.dialect())
    assert process is not None
    at = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    values: list[Any] = [
        at,
        at,
        at.replace(tzinfo=None),
        at.replace(microsecond=0),
        at.astimezone(timezone(timedelta(hours=2))),
        datetime(5, 6, 7, 8, 9, 10, 11),
        datetime(9999, 12, 31, 23, 59, 59, 999999),
        date(2026, 3, 4),
        None,
        at,
    ]
    for value in values + values[::-1]:
        assert process(value) == _sqlalchemy_datetime_text(value), value


_ZONES = st.sampled_from([None, UTC, timezone(timedelta(hours=2)), timezone(-timedelta(hours=8))])


@settings(max_examples=300, deadline=None, database=None)
@given(
    value=st.builds(
        lambda dt, tz: dt.replace(tzinfo=tz), st.datetimes(min_value=datetime(1, 1, 2)), _ZONES
    ),
    primed=st.booleans(),
)
def test_timestamp_text_cut_from_the_wire_text(value: datetime, primed: bool) -> None:
    """A UTC or naive value's text is cut from ``iso``'s (kept from the payload, or made
    here): SQLAlchemy's text all the same, whichever of the two formatted it first."""
    from sqlalchemy.dialects import sqlite

    from band_server.store.models import Message as M

    process = direct_plans.bind_of(M.__table__.c.created_at.type, sqlite.dialect())
    assert process is not None
    if primed:
        iso(value)
    assert process(value) == _sqlalchemy_datetime_text(value), value
    assert process(value) == _sqlalchemy_datetime_text(value), value


async def test_rows_hold_the_same_timestamp_text_either_way(db: Database) -> None:
    """What ``created_at < ?`` compares in SQL (the sweeps, expiry) is text: the same."""
    async with db.write() as session:
        await session.execute(INSERT_MESSAGE, message_row("via-session", 1))
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, message_row("direct", 2))
        await direct.execute(
            session,
            INSERT_DELIVERY,
            {"message_id": "direct", "room_id": "r1", "agent_id": "a1", "seq": 2},
        )
    async with db.read() as session:
        conn = await session.connection()
        found = (
            await conn.exec_driver_sql(
                "SELECT id, created_at, updated_at, typeof(created_at) FROM messages ORDER BY seq"
            )
        ).all()
        delivered = (await conn.exec_driver_sql("SELECT delivered_at FROM deliveries")).scalar()
    assert [tuple(r[1:]) for r in found] == [
        ("2026-01-02 03:04:05.678000", "2026-01-02 03:04:05.678000", "text")
    ] * 2
    assert isinstance(delivered, str) and len(delivered) == 26 and delivered[10] == " "


async def test_a_posts_seq_and_last_activity_are_what_the_session_writes(db: Database) -> None:
    """The post's own increment where no writer counts seqs (``posts._NEXT_SEQ``: ``last_seq``
    and ``last_message_at`` moved to a newer ``at``, RETURNING the seq) through
    ``direct.scalar`` and through the session, with the same ``at`` in turn: newer, older,
    none, and another zone's same instant."""
    from band_server.services.messages.posts import _NEXT_SEQ

    async with db.write() as session:
        session.add(Room(id="r2", owner_id="u1", owner_type="User"))
    at = datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    east = timezone(timedelta(hours=5))
    moves = [at, at - timedelta(seconds=1), None, (at + timedelta(seconds=2)).astimezone(east)]
    for n, moved in enumerate(moves, start=1):
        async with db.write() as session:
            seq = await direct.scalar(session, _NEXT_SEQ, {"room_id": "r1", "at": moved})
        async with db.write() as session:
            row = await session.execute(_NEXT_SEQ, {"room_id": "r2", "at": moved})
            assert (seq, row.scalar_one()) == (n, n)
    rows = await raw_rows(
        db,
        "SELECT last_seq, last_message_at, typeof(last_message_at), length(updated_at)"
        " FROM rooms WHERE id IN ('r1', 'r2') ORDER BY id",
    )
    assert rows[0] == rows[1]
    # (SQLite's DateTime keeps an aware value's own wall time, whichever path writes it.)
    assert tuple(rows[0]) == (4, "2026-05-06 12:08:11.123456", "text", 26)


async def test_run_on_writes_what_the_session_writes(db: Database) -> None:
    """The group committer's batch-end write (``room_seqs``' statement, several rows at once,
    on the bare connection) against the session's executemany of the same statement: the same
    ``last_seq``, ``updated_at`` moved by its ``onupdate`` in the same text form, and
    ``last_message_at`` moved to a newer ``at`` (never back, nor to none) in that form."""
    from band_server.store.room_seqs import _WRITE

    at = datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    async with db.write() as session:
        session.add(Room(id="r2", owner_id="u1", owner_type="User"))
        session.add(Room(id="r3", owner_id="u1", owner_type="User"))
    before = datetime.now(UTC).replace(tzinfo=None)
    for write in range(3):  # at, then an older one, then none: the row keeps at
        moved = [at, at - timedelta(seconds=1), None][write]
        params = [{"room_id": r, "last_seq": 7, "at": moved} for r in ("r1", "r2", "r3")]
        async with db.write() as session:
            await session.execute(_WRITE, params[:1])
        async with db.write() as session:
            found = await direct._driver(session)
            assert found is not None
            direct.run_on(*found, _WRITE, params[1:])
    rows = await raw_rows(
        db,
        "SELECT last_seq, updated_at, typeof(updated_at), last_message_at FROM rooms ORDER BY id",
    )
    assert [(r[0], r[2], len(r[1]), r[1][10]) for r in rows] == [(7, "text", 26, " ")] * 3
    assert all(datetime.fromisoformat(r[1]) >= before for r in rows)
    assert [r[3] for r in rows] == ["2026-05-06 07:08:09.123456"] * 3


async def test_run_on_moves_last_activity_as_the_session_does_in_any_zone(db: Database) -> None:
    """``room_seqs``' batch-end write with an aware ``at`` of another zone, then the same
    instant in UTC (equal as instants, not as the stored text), through the bare connection
    and through the session: the same stored ``last_message_at`` after each."""
    from band_server.store.room_seqs import _WRITE

    east = timezone(timedelta(hours=5))
    at = datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    async with db.write() as session:
        session.add(Room(id="r2", owner_id="u1", owner_type="User"))
    for moved in (at.astimezone(east), at, (at + timedelta(seconds=1)).astimezone(east)):
        async with db.write() as session:
            await session.execute(_WRITE, [{"room_id": "r1", "last_seq": 3, "at": moved}])
        async with db.write() as session:
            found = await direct._driver(session)
            assert found is not None
            direct.run_on(*found, _WRITE, [{"room_id": "r2", "last_seq": 3, "at": moved}])
        rows = await raw_rows(db, "SELECT last_message_at FROM rooms ORDER BY id")
        assert rows[0] == rows[1]


async def test_rows_with_their_keys_in_any_order_and_shared_instants_match_the_session(
    db: Database,
) -> None:
    """A post binds one ``datetime`` object in the message's and its deliveries' columns (the
    direct path's timestamp text is shared across columns and statements), and a call site
    may build the same keys in another order (plans are looked up by the keys in order)."""
    at = datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    other = datetime(2026, 5, 6, 7, 8, 9, 654321, tzinfo=UTC)

    def deliveries(msg_id: str) -> list[dict[str, Any]]:
        first = {"message_id": msg_id, "room_id": "r1", "agent_id": "a1", "seq": 0}
        first |= {"delivered_at": at, "updated_at": other}
        second = {"updated_at": at, "delivered_at": other, "seq": 0, "agent_id": "a2"}
        second |= {"room_id": "r1", "message_id": msg_id}
        return [first, second]

    async with db.write() as session:
        await session.execute(INSERT_MESSAGE, {**message_row("s", 1), "created_at": at})
        await session.execute(INSERT_DELIVERY, deliveries("s"))
    async with db.write() as session:
        await direct.execute(session, INSERT_MESSAGE, {**message_row("d", 2), "created_at": at})
        await direct.execute(session, INSERT_DELIVERY, deliveries("d"))
        # One row alone, its keys in the second row's order: a plan of its own.
        await direct.execute(session, INSERT_DELIVERY, {**deliveries("d")[1], "agent_id": "a3"})
    async with db.read() as session:
        conn = await session.connection()
        rows = (
            await conn.exec_driver_sql(
                "SELECT message_id, agent_id, delivered_at, updated_at, status, attempt_number"
                " FROM deliveries ORDER BY message_id, agent_id"
            )
        ).all()
        made = dict((await conn.exec_driver_sql("SELECT id, created_at FROM messages")).all())
    by = {(r[0], r[1]): tuple(r[2:]) for r in rows}
    for agent in ("a1", "a2"):
        assert by[("d", agent)] == by[("s", agent)]
    assert by[("d", "a3")] == by[("s", "a2")]
    assert made["d"] == made["s"] == "2026-05-06 07:08:09.123456"


async def test_statements_of_one_bind_and_of_none_match_the_session(db: Database) -> None:
    """A plan's values are taken by name in one call, whatever their number: a delete of one
    bound id and a delete with no bind at all change what the session's would."""
    one = delete(DELIVERIES).where(DELIVERIES.c.agent_id == bindparam("agent"))
    every_row = delete(DELIVERIES)

    async def counts() -> list[tuple[str, int]]:
        async with db.read() as session:
            conn = await session.connection()
            found = await conn.exec_driver_sql(
                "SELECT message_id, count(*) FROM deliveries GROUP BY message_id ORDER BY 1"
            )
            return [(r[0], r[1]) for r in found]

    async with db.write() as session:
        for n, msg in enumerate(("s", "d"), start=1):
            await session.execute(INSERT_MESSAGE, message_row(msg, n))
            await session.execute(
                INSERT_DELIVERY,
                [
                    {"message_id": msg, "room_id": "r1", "agent_id": f"{msg}{a}", "seq": n}
                    for a in ("1", "2")
                ],
            )
    async with db.write() as session:
        await session.execute(one, {"agent": "s1"})
    async with db.write() as session:
        await direct.execute(session, one, {"agent": "d1"})
    assert await counts() == [("d", 1), ("s", 1)]
    async with db.write() as session:
        await direct.execute(session, every_row, {})
    assert await counts() == []


async def test_written_json_text_binds_as_the_session_binds_it(db: Database) -> None:
    """A post's metadata comes with its column's text already written (``json_text.Encoded``):
    the direct path binds that text, SQLAlchemy's processor serializes the value through the
    engine's ``dumps``; the same text for it and for every other value, and the same rows."""
    from sqlalchemy import JSON, null

    from band_server.services.views import encoded_meta

    dialect = db.engine.dialect
    column = MESSAGES.c.metadata
    fast = direct_plans.bind_of(column.type, dialect)
    assert fast is not None
    slow = column.type.dialect_impl(dialect).bind_processor(dialect)
    assert slow is not None and fast is not slow
    meta = encoded_meta(
        {"mentions": [{"id": "a1", "handle": "bot", "name": "Bé", "username": "b"}], "n": 1.5}
    )
    for value in (meta, dict(meta), {"a": [1, None]}, [], "text", None, JSON.NULL, null()):
        assert fast(value) == slow(value), value
    async with db.write() as session:
        await session.execute(INSERT_MESSAGE, {**message_row("via-session", 1), "metadata": meta})
    async with db.write() as session:
        await direct.execute(
            session, INSERT_MESSAGE, {**message_row("direct", 2), "metadata": meta}
        )
    async with db.read() as session:
        conn = await session.connection()
        texts = (
            (await conn.exec_driver_sql("SELECT metadata FROM messages ORDER BY seq"))
            .scalars()
            .all()
        )
    assert texts == [meta.text, meta.text]
