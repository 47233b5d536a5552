"""``GET …/participants`` answers what the members' model dumps give, and 404s as before."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from agent_testkit import World, make_room, make_world
from sqlalchemy import update

from band.protocol import utcnow
from band_server.context import Platform
from band_server.services.rooms import membership as rooms
from band_server.store.models import Room
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def as_the_models_show_it(platform: Platform, room_id: str) -> list[dict[str, Any]]:
    online = platform.presence.is_online
    async with platform.db.read() as session:
        roster = await rooms.members(session, room_id)
    return [m.view(online=online(m.id)).model_dump(mode="json") for m in roster]


async def test_the_roster_is_the_members_views_and_404s_as_room_for_does(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await client.get(w.url("/participants"), headers=w.echo_key)
    assert r.status_code == 200
    assert r.json()["data"] == await as_the_models_show_it(platform, w.room_id)
    assert [p["type"] for p in r.json()["data"]] == ["User", "Agent", "Agent", "User"]
    # Helper leaves: it is no longer listed, and may no longer read the roster
    r = await client.delete(
        w.url(f"/participants/{w.helper_id}"), headers={"X-API-Key": w.helper_key}
    )
    assert r.status_code == 200
    r = await client.get(w.url("/participants"), headers=w.echo_key)
    assert r.json()["data"] == await as_the_models_show_it(platform, w.room_id)
    assert w.helper_id not in [p["id"] for p in r.json()["data"]]
    r = await client.get(w.url("/participants"), headers={"X-API-Key": w.helper_key})
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    # a room Echo is not in, an unknown room, a deleted room: 404
    other = await make_room(platform, w.alice, w.helper_id)
    for room_id in (other, "00000000-0000-0000-0000-000000000000"):
        r = await client.get(w.url("/participants", room_id=room_id), headers=w.echo_key)
        assert r.status_code == 404, room_id
    async with platform.db.write() as session:
        await session.execute(update(Room).where(Room.id == w.room_id).values(deleted_at=utcnow()))
    r = await client.get(w.url("/participants"), headers=w.echo_key)
    assert r.status_code == 404
