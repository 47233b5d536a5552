"""Migration 0019 on SQLite with data: the mention rows go (an agent's are its deliveries);
downgrading brings the table back with the agents' mention rows rebuilt from the deliveries,
and upgrading again drops it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from band_server.store.migrate import migrate

_ROWS = [
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


async def tables(engine: AsyncEngine) -> set[str]:
    async with engine.connect() as conn:
        return await conn.run_sync(lambda c: set(inspect(c).get_table_names()))


async def test_0019_drops_the_mention_rows_and_rebuilds_the_agents_on_the_way_down(
    tmp_path: Path,
) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    try:
        await migrate(engine, "upgrade", "0018")
        async with engine.begin() as conn:
            for row in _ROWS:
                await conn.execute(text(row))
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
