"""Migrations that move data, on SQLite with data, down and up again.

0019: the mention rows go (an agent's are its deliveries); downgrading brings the table back
with the agents' mention rows rebuilt from the deliveries, and upgrading again drops it.
0020: each room's ``last_message_at`` is filled with its newest ``created_at`` (not its last
``seq``'s), a room without messages keeps none, and the index it replaces is gone; downgrading
restores the index and drops the column, upgrading again fills it again.
0021: the gap ledger's table comes, with its rows; downgrading drops it.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from band_server.store.migrate import migrate

_MENTIONS = [
    "INSERT INTO rooms (id, owner_id, owner_type, last_seq, created_at, updated_at)"
    " VALUES ('r1', 'u1', 'User', 2, 0, 0)",
    "INSERT INTO messages (id, room_id, seq, sender_id, sender_type, message_type, content,"
    " metadata, created_at, updated_at) VALUES"
    " ('m1', 'r1', 1, 'u1', 'User', 'text', 'hi @echo', '{}', 0, 0),"
    " ('m2', 'r1', 2, 'u1', 'User', 'text', 'hi @bob', '{}', 0, 0)",
    # m1 mentions the agent a1 (its mention row and its delivery), m2 the person u2.
    "INSERT INTO mentions (message_id, participant_id, room_id) VALUES"
    " ('m1', 'a1', 'r1'), ('m2', 'u2', 'r1')",
    "INSERT INTO deliveries (id, message_id, room_id, agent_id, seq, status, attempt_number,"
    " delivered_at, updated_at) VALUES ('d1', 'm1', 'r1', 'a1', 1, 'delivered', 0, 0, 0)",
]


async def at_with(engine: AsyncEngine, revision: str, rows: list[str]) -> None:
    """The database upgraded to ``revision``, then ``rows`` written."""
    await migrate(engine, "upgrade", revision)
    async with engine.begin() as conn:
        for row in rows:
            await conn.execute(text(row))


async def tables(engine: AsyncEngine) -> set[str]:
    async with engine.connect() as conn:
        return await conn.run_sync(lambda c: set(inspect(c).get_table_names()))


async def test_0019_drops_the_mention_rows_and_rebuilds_the_agents_on_the_way_down(
    tmp_path: Path,
) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    try:
        await at_with(engine, "0018", _MENTIONS)
        await migrate(engine, "upgrade", "0019")
        assert "mentions" not in await tables(engine)
        async with engine.connect() as conn:
            kept = (await conn.execute(text("SELECT id FROM deliveries"))).all()
        assert kept == [("d1",)]

        await migrate(engine, "downgrade", "0018")
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT * FROM mentions"))).all()
        assert rows == [("m1", "a1", "r1")]  # the agent's, from its delivery

        await migrate(engine, "upgrade", "head")
        assert "mentions" not in await tables(engine)
    finally:
        await engine.dispose()


_TIMES = [
    "INSERT INTO rooms (id, owner_id, owner_type, last_seq, created_at, updated_at) VALUES"
    " ('r1', 'u1', 'User', 2, 0, 0), ('r2', 'u1', 'User', 0, 0, 0)",
    # r1's second message was written at an earlier time than its first (an import, a clock).
    "INSERT INTO messages (id, room_id, seq, sender_id, sender_type, message_type, content,"
    " metadata, created_at, updated_at) VALUES"
    " ('m1', 'r1', 1, 'u1', 'User', 'text', 'a', '{}', '2026-01-02 00:00:00.000000', 0),"
    " ('m2', 'r1', 2, 'u1', 'User', 'text', 'b', '{}', '2026-01-01 00:00:00.000000', 0)",
]


async def state(engine: AsyncEngine) -> tuple[set[str | None], dict[str, object] | None]:
    """The indexes of ``messages``, and each room's ``last_message_at`` (None: no column)."""
    async with engine.connect() as conn:
        indexes = await conn.run_sync(
            lambda c: {i["name"] for i in inspect(c).get_indexes("messages")}
        )
        columns = await conn.run_sync(
            lambda c: {c["name"] for c in inspect(c).get_columns("rooms")}
        )
        if "last_message_at" not in columns:
            return indexes, None
        rows = await conn.execute(text("SELECT id, last_message_at FROM rooms"))
        return indexes, {room: at for room, at in rows}


async def test_0020_fills_each_rooms_newest_time_and_drops_the_index(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    filled = {"r1": "2026-01-02 00:00:00.000000", "r2": None}
    try:
        await at_with(engine, "0019", _TIMES)
        await migrate(engine, "upgrade", "0020")
        indexes, times = await state(engine)
        assert "ix_messages_room_created" not in indexes and times == filled

        await migrate(engine, "downgrade", "0019")
        indexes, times = await state(engine)
        assert "ix_messages_room_created" in indexes and times is None

        await migrate(engine, "upgrade", "head")
        indexes, times = await state(engine)
        assert "ix_messages_room_created" not in indexes and times == filled
    finally:
        await engine.dispose()


async def test_0021_adds_the_gap_ledger_and_takes_it_away_again(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    row = "INSERT INTO fanout_gaps (node_id, since) VALUES ('0123456789abcdef', 1796598725.946)"
    try:
        await migrate(engine, "upgrade", "0020")
        assert "fanout_gaps" not in await tables(engine)
        await at_with(engine, "0021", [row])
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT node_id, since FROM fanout_gaps"))).all()
        assert rows == [("0123456789abcdef", 1796598725.946)]

        await migrate(engine, "downgrade", "0020")
        assert "fanout_gaps" not in await tables(engine)
        await migrate(engine, "upgrade", "head")
        assert "fanout_gaps" in await tables(engine)
    finally:
        await engine.dispose()
