"""Peers: who an agent (or a person) can bring into a room."""

from __future__ import annotations

import httpx
import pytest

from band_server.context import Platform
from conftest import Seeded, make_agent, make_user


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


async def befriend(client: httpx.AsyncClient, a_key: str, b_key: str, b_handle: str) -> None:
    """Make two parties contacts (a asks, b approves)."""
    r = await client.post("/api/v1/agent/contacts/add", json={"handle": b_handle}, headers=h(a_key))
    request_id = r.json()["data"]["id"]
    path = "/api/v1/agent/contacts/requests/respond"
    r = await client.post(
        path, json={"action": "approve", "request_id": request_id}, headers=h(b_key)
    )
    assert r.status_code == 200, r.text


async def test_agent_peers_are_owner_siblings_then_contacts(
    client: httpx.AsyncClient,
    platform: Platform,
    seeded: Seeded,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    helper_id, _, _ = await make_agent(platform, seeded.user_id, "Helper")
    bob_id, _ = await make_user(platform, "bob")
    scout_id, scout_key, scout_handle = await make_agent(platform, bob_id, "Scout")
    await befriend(client, seeded.agent_key, scout_key, scout_handle)
    monkeypatch.setattr(platform.presence, "is_online", lambda pid: pid == helper_id)

    r = await client.get("/api/v1/agent/peers", headers=h(seeded.agent_key))
    assert r.status_code == 200
    body = r.json()
    assert [(p["id"], p["source"], p["type"]) for p in body["data"]] == [
        (seeded.user_id, "registry", "User"),
        (helper_id, "registry", "Agent"),
        (scout_id, "contact", "Agent"),
    ]
    assert [p["online"] for p in body["data"]] == [False, True, False]
    assert [p["is_contact"] for p in body["data"]] == [False, False, True]
    assert body["metadata"] == {"page": 1, "page_size": 50, "total_count": 3, "total_pages": 1}
    assert all(p["id"] != seeded.agent_id for p in body["data"])

    paged = await client.get("/api/v1/agent/peers?page=2&page_size=2", headers=h(seeded.agent_key))
    assert [p["id"] for p in paged.json()["data"]] == [scout_id]
    assert paged.json()["metadata"]["total_pages"] == 2


async def test_not_in_chat_leaves_out_participants(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    helper_id, _, _ = await make_agent(platform, seeded.user_id, "Helper")
    room = await client.post("/api/v1/me/chats", json={"chat": {}}, headers=h(seeded.user_key))
    room_id = room.json()["data"]["id"]
    await client.post(
        f"/api/v1/me/chats/{room_id}/participants",
        json={"participant": {"participant_id": seeded.agent_id}},
        headers=h(seeded.user_key),
    )
    r = await client.get(f"/api/v1/agent/peers?not_in_chat={room_id}", headers=h(seeded.agent_key))
    assert [p["id"] for p in r.json()["data"]] == [helper_id]


async def test_not_in_chat_of_a_foreign_room_is_404(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key = await make_user(platform, "bob")
    room = await client.post("/api/v1/me/chats", json={"chat": {}}, headers=h(bob_key))
    room_id = room.json()["data"]["id"]
    r = await client.get(f"/api/v1/agent/peers?not_in_chat={room_id}", headers=h(seeded.agent_key))
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


async def test_bad_paging_is_422(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.get("/api/v1/agent/peers?page_size=500", headers=h(seeded.agent_key))
    assert r.status_code == 422
    assert "/page_size" in r.json()["error"]["details"]


async def test_person_peers_are_their_agents_and_contacts(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, bob_key = await make_user(platform, "bob")
    r = await client.post(
        "/api/v1/me/contacts/requests", json={"handle": "alice"}, headers=h(bob_key)
    )
    await client.post(
        f"/api/v1/me/contacts/requests/{r.json()['data']['id']}/approve",
        headers=h(seeded.user_key),
    )
    r = await client.get("/api/v1/me/peers", headers=h(seeded.user_key))
    assert [(p["id"], p["source"]) for p in r.json()["data"]] == [
        (seeded.agent_id, "registry"),
        (bob_id, "contact"),
    ]
    r = await client.get("/api/v1/me/peers", headers=h(seeded.agent_key))
    assert r.status_code == 403
