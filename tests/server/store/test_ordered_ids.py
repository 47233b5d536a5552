"""The rows every message writes are keyed by time-ordered ids (UUIDv7): its message, its
deliveries and their attempts. Each later post's ids sort after the earlier ones', so the
inserts land at the right edge of the primary-key indexes (docs/decisions.md, "Time-ordered
ids for the rows of every message"); other tables keep random UUIDv4 ids."""

from __future__ import annotations

import uuid

import httpx
import pytest
from agent_testkit import World, make_world, mark, person_posts
from sqlalchemy import text

from band_server.context import Platform
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def _ids(platform: Platform, sql: str) -> list[str]:
    async with platform.db.read() as session:
        return [str(row[0]) for row in await session.execute(text(sql))]


async def test_messages_deliveries_and_attempts_get_increasing_uuid7_ids(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    posted = [await person_posts(platform, w, f"hi {i}", w.echo) for i in range(5)]
    for msg in posted:
        r = await mark(client, w, msg, "processing")
        assert r.status_code == 200, r.text
    assert [uuid.UUID(m).version for m in posted] == [7] * 5
    assert posted == sorted(posted)  # each later post's id sorts after the earlier ones'
    where = ", ".join(f"'{m}'" for m in posted)
    deliveries = await _ids(
        platform, f"SELECT id FROM deliveries WHERE message_id IN ({where}) ORDER BY seq"
    )
    attempts = await _ids(
        platform,
        "SELECT a.id FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id"
        f" WHERE d.message_id IN ({where}) ORDER BY d.seq",
    )
    for ids in (deliveries, attempts):
        assert len(ids) == 5
        assert [uuid.UUID(i).version for i in ids] == [7] * 5
        assert ids == sorted(ids)


async def test_other_rows_keep_random_uuid4_ids(platform: Platform, w: World) -> None:
    rooms = await _ids(platform, "SELECT id FROM rooms")
    assert rooms and {uuid.UUID(r).version for r in rooms} == {4}
