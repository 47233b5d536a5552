"""Agent surface: identity, authentication, and the rooms an agent is in."""

from __future__ import annotations

from datetime import datetime

import httpx
from agent_testkit import key, make_room, recording

from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.store.models import Agent
from conftest import Seeded, make_user


async def test_me_returns_the_agent_behind_the_key(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    r = await client.get("/api/v1/agent/me", headers=key(seeded.agent_key))
    assert r.status_code == 200
    me = r.json()["data"]
    assert me["id"] == seeded.agent_id
    assert me["name"] == "Echo"
    assert me["handle"] == seeded.agent_handle == "alice/echo"
    assert me["description"] == "A helpful test agent"
    assert me["owner_uuid"] == seeded.user_id
    assert me["feature_flags"] == {"ff_file_transfer": True, "ff_room_tasks": True}
    for stamp in ("inserted_at", "updated_at"):
        assert me[stamp].endswith("Z")
        datetime.fromisoformat(me[stamp])


async def test_missing_or_unknown_key_is_401_with_envelope(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    for headers in ({}, key("band_a_nope")):
        r = await client.get("/api/v1/agent/me", headers=headers)
        assert r.status_code == 401
        err = r.json()["error"]
        assert err["code"] == "unauthorized"
        assert err["request_id"]


async def test_revoked_key_is_401(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    async with platform.db.write() as session:
        agent = await session.get(Agent, seeded.agent_id)
        assert agent is not None
        await accounts.regenerate_agent_key(session, agent)
    r = await client.get("/api/v1/agent/me", headers=key(seeded.agent_key))
    assert r.status_code == 401


async def test_person_key_on_agent_surface_is_403(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    for path in ("/me", "/chats"):
        r = await client.get(f"/api/v1/agent{path}", headers=key(seeded.user_key))
        assert r.status_code == 403
        assert r.json()["error"]["code"] == "agent_key_required"


async def test_chats_lists_only_rooms_the_agent_is_in(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    mine = [
        await make_room(platform, seeded.user_id, seeded.agent_id, title=f"R{i}") for i in range(3)
    ]
    await make_room(platform, seeded.user_id, title="not mine")
    r = await client.get(
        "/api/v1/agent/chats", params={"page": 1, "page_size": 2}, headers=key(seeded.agent_key)
    )
    assert r.status_code == 200
    body = r.json()
    assert [c["id"] for c in body["data"]] == mine[:2]
    assert body["metadata"] == {"page": 1, "page_size": 2, "total_count": 3, "total_pages": 2}
    room = body["data"][0]
    assert room["title"] == "R0"
    assert {"id", "inserted_at", "updated_at", "title", "task_id"} <= room.keys()

    r = await client.get(
        "/api/v1/agent/chats", params={"page": 2, "page_size": 2}, headers=key(seeded.agent_key)
    )
    assert [c["id"] for c in r.json()["data"]] == mine[2:]


async def test_chats_with_no_rooms_is_an_empty_page(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    r = await client.get("/api/v1/agent/chats", headers=key(seeded.agent_key))
    assert r.status_code == 200
    assert r.json()["data"] == []
    assert r.json()["metadata"]["total_count"] == 0


async def test_chats_bad_paging_is_422_with_pointer(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    r = await client.get("/api/v1/agent/chats", params={"page": 0}, headers=key(seeded.agent_key))
    assert r.status_code == 422
    assert "/page" in r.json()["error"]["details"]
    r = await client.get(
        "/api/v1/agent/chats", params={"page_size": "many"}, headers=key(seeded.agent_key)
    )
    assert r.status_code == 422
    assert "/page_size" in r.json()["error"]["details"]


async def test_create_chat_makes_the_agent_owner_and_pushes_room_added(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    with recording(platform) as rec:
        r = await client.post(
            "/api/v1/agent/chats",
            json={"chat": {"title": "Hub", "task_id": None}},
            headers=key(seeded.agent_key),
        )
    assert r.status_code == 201
    room = r.json()["data"]
    assert room["title"] == "Hub"
    assert room["task_id"] is None
    added = rec.events("room_added")
    assert [b.topic for b in added] == [f"agent_rooms:{seeded.agent_id}"]
    assert added[0].payload["id"] == room["id"]

    parts = await client.get(
        f"/api/v1/agent/chats/{room['id']}/participants", headers=key(seeded.agent_key)
    )
    assert [(p["id"], p["role"], p["type"]) for p in parts.json()["data"]] == [
        (seeded.agent_id, "owner", "Agent")
    ]


async def test_create_chat_accepts_an_empty_chat_object(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    r = await client.post("/api/v1/agent/chats", json={"chat": {}}, headers=key(seeded.agent_key))
    assert r.status_code == 201
    assert r.json()["data"]["title"] is None


async def test_create_chat_with_bad_title_is_422(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.post(
        "/api/v1/agent/chats", json={"chat": {"title": "x" * 500}}, headers=key(seeded.agent_key)
    )
    assert r.status_code == 422
    assert "/chat/title" in r.json()["error"]["details"]
    listed = await client.get("/api/v1/agent/chats", headers=key(seeded.agent_key))
    assert listed.json()["data"] == []


async def test_get_chat_is_404_for_non_members_and_unknown_rooms(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, _ = await make_user(platform, "bob")
    mine = await make_room(platform, seeded.user_id, seeded.agent_id)
    other = await make_room(platform, bob_id)
    r = await client.get(f"/api/v1/agent/chats/{mine}", headers=key(seeded.agent_key))
    assert r.status_code == 200
    assert r.json()["data"]["id"] == mine
    for room_id in (other, "00000000-0000-0000-0000-000000000000", "not-a-uuid"):
        r = await client.get(f"/api/v1/agent/chats/{room_id}", headers=key(seeded.agent_key))
        assert r.status_code == 404
        assert r.json()["error"]["code"] == "not_found"
        assert "data" not in r.json()


async def test_malformed_json_is_400_envelope(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.post(
        "/api/v1/agent/chats",
        content=b"{not json",
        headers={**key(seeded.agent_key), "Content-Type": "application/json"},
    )
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "malformed_json"
