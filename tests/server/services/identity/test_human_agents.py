"""The human surface for a person's profile and agents."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from band_server.context import Platform
from band_server.fanout.bus import Broadcast
from conftest import Seeded, make_agent, make_user


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


@pytest.fixture
def published(platform: Platform, monkeypatch: pytest.MonkeyPatch) -> list[Broadcast]:
    seen: list[Broadcast] = []
    original: Callable[[Broadcast], Awaitable[None]] = platform.bus.publish

    async def record(b: Broadcast) -> None:
        seen.append(b)
        await original(b)

    monkeypatch.setattr(platform.bus, "publish", record)
    return seen


async def test_profile_get_and_put(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.get("/api/v1/me/profile", headers=h(seeded.user_key))
    assert r.status_code == 200
    assert r.json()["data"]["handle"] == "alice" and r.json()["data"]["id"] == seeded.user_id
    r = await client.put(
        "/api/v1/me/profile", json={"user": {"name": "Alice Liddell"}}, headers=h(seeded.user_key)
    )
    assert r.json()["data"]["name"] == "Alice Liddell"
    bad = await client.put(
        "/api/v1/me/profile", json={"user": {"name": ""}}, headers=h(seeded.user_key)
    )
    assert bad.status_code == 422 and "/user/name" in bad.json()["error"]["details"]
    blank = await client.put(
        "/api/v1/me/profile", json={"user": {"name": "   "}}, headers=h(seeded.user_key)
    )
    assert blank.status_code == 422
    r = await client.get("/api/v1/me/profile", headers=h(seeded.user_key))
    assert r.json()["data"]["name"] == "Alice Liddell"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/me/profile"),
        ("GET", "/api/v1/me/agents"),
        ("GET", "/api/v1/me/chats"),
        ("GET", "/api/v1/me/contacts"),
        ("GET", "/api/v1/me/memories"),
        ("GET", "/api/v1/me/peers"),
        ("POST", "/api/v1/me/agents/register"),
    ],
)
async def test_me_needs_a_person_key(
    client: httpx.AsyncClient, seeded: Seeded, method: str, path: str
) -> None:
    r = await client.request(method, path, headers=h(seeded.agent_key), json={})
    assert r.status_code == 403 and r.json()["error"]["code"] == "user_key_required"
    r = await client.request(method, path, json={})
    assert r.status_code == 401 and r.json()["error"]["request_id"]
    r = await client.request(method, path, headers=h("band_u_not-a-key"), json={})
    assert r.status_code == 401


async def test_register_shows_the_key_once(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.post(
        "/api/v1/me/agents/register",
        json={"agent": {"name": "Research Bot", "description": "Finds papers and summarises them"}},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 201, r.text
    body = r.json()["data"]
    key = body["credentials"]["api_key"]
    agent = body["agent"]
    assert agent["handle"] == "alice/research-bot" and agent["owner_uuid"] == seeded.user_id
    me = await client.get("/api/v1/agent/contacts", headers=h(key))
    assert me.status_code == 200
    listed = await client.get("/api/v1/me/agents", headers=h(seeded.user_key))
    assert [a["id"] for a in listed.json()["data"]] == [seeded.agent_id, agent["id"]]
    assert key not in listed.text and "api_key" not in listed.text
    one = await client.get(f"/api/v1/me/agents/{agent['id']}", headers=h(seeded.user_key))
    assert one.json()["data"] == agent
    assert listed.json()["metadata"]["total_count"] == 2


@pytest.mark.parametrize(
    ("agent", "pointer"),
    [
        ({"name": "ab", "description": "long enough text"}, "/agent/name"),
        ({"name": "Bad/Name", "description": "long enough text"}, "/agent/name"),
        ({"name": "x" * 25, "description": "long enough text"}, "/agent/name"),
        ({"name": "Fine Name", "description": "short"}, "/agent/description"),
        ({"description": "long enough text"}, "/agent/name"),
    ],
)
async def test_register_validation(
    client: httpx.AsyncClient, seeded: Seeded, agent: dict[str, Any], pointer: str
) -> None:
    r = await client.post(
        "/api/v1/me/agents/register", json={"agent": agent}, headers=h(seeded.user_key)
    )
    assert r.status_code == 422
    assert pointer in r.json()["error"]["details"]
    listed = await client.get("/api/v1/me/agents", headers=h(seeded.user_key))
    assert len(listed.json()["data"]) == 1


async def test_register_with_malformed_json_is_400(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    r = await client.post(
        "/api/v1/me/agents/register",
        content=b"{nope",
        headers={**h(seeded.user_key), "content-type": "application/json"},
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"


async def test_regenerate_voids_the_old_key(
    client: httpx.AsyncClient, seeded: Seeded, published: list[Broadcast]
) -> None:
    r = await client.post(
        f"/api/v1/me/agents/{seeded.agent_id}/regenerate-key", headers=h(seeded.user_key)
    )
    assert r.status_code == 200
    new_key = r.json()["data"]["credentials"]["api_key"]
    assert new_key != seeded.agent_key
    old = await client.get("/api/v1/agent/contacts", headers=h(seeded.agent_key))
    assert old.status_code == 401 and old.json()["error"]["code"] == "unauthorized"
    assert (await client.get("/api/v1/agent/contacts", headers=h(new_key))).status_code == 200
    control = [b for b in published if b.topic == f"agent_control:{seeded.agent_id}"]
    assert control[0].event == "supersede" and control[0].payload["retryable"] is False


async def test_delete_leaves_rooms_and_revokes_keys(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, published: list[Broadcast]
) -> None:
    room = await client.post(
        "/api/v1/me/chats", json={"chat": {"title": "T"}}, headers=h(seeded.user_key)
    )
    room_id = room.json()["data"]["id"]
    await client.post(
        f"/api/v1/me/chats/{room_id}/participants",
        json={"participant": {"participant_id": seeded.agent_id}},
        headers=h(seeded.user_key),
    )
    published.clear()
    r = await client.delete(f"/api/v1/me/agents/{seeded.agent_id}", headers=h(seeded.user_key))
    assert r.status_code == 200 and r.json()["data"]["deleted"] is True
    events = {(b.topic, b.event) for b in published}
    assert (f"room_participants:{room_id}", "participant_removed") in events
    assert (f"agent_rooms:{seeded.agent_id}", "room_removed") in events
    assert (f"agent_control:{seeded.agent_id}", "supersede") in events
    r = await client.get("/api/v1/agent/contacts", headers=h(seeded.agent_key))
    assert r.status_code == 401
    parts = await client.get(f"/api/v1/me/chats/{room_id}/participants", headers=h(seeded.user_key))
    assert [p["id"] for p in parts.json()["data"]] == [seeded.user_id]
    listed = await client.get("/api/v1/me/agents", headers=h(seeded.user_key))
    assert listed.json()["data"] == []
    again = await client.delete(f"/api/v1/me/agents/{seeded.agent_id}", headers=h(seeded.user_key))
    assert again.status_code == 404


async def test_another_owners_agent_is_404(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key = await make_user(platform, "bob")
    for method, path in (
        ("GET", f"/api/v1/me/agents/{seeded.agent_id}"),
        ("DELETE", f"/api/v1/me/agents/{seeded.agent_id}"),
        ("POST", f"/api/v1/me/agents/{seeded.agent_id}/regenerate-key"),
        ("DELETE", "/api/v1/me/agents/does-not-exist"),
    ):
        r = await client.request(method, path, headers=h(bob_key))
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    # Nothing changed: alice's agent still works with its original key.
    assert (
        await client.get("/api/v1/agent/contacts", headers=h(seeded.agent_key))
    ).status_code == 200


async def test_deleting_an_agent_drops_its_contacts(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, published: list[Broadcast]
) -> None:
    bob_id, _ = await make_user(platform, "bob")
    scout_id, scout_key, scout_handle = await make_agent(platform, bob_id, "Scout")
    r = await client.post(
        "/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "approve", "request_id": r.json()["data"]["id"]},
        headers=h(scout_key),
    )
    await client.delete(f"/api/v1/me/agents/{seeded.agent_id}", headers=h(seeded.user_key))
    assert (await client.get("/api/v1/agent/contacts", headers=h(scout_key))).json()["data"] == []
    removed = [
        b.payload
        for b in published
        if b.topic == f"agent_contacts:{scout_id}" and b.event == "contact_removed"
    ]
    assert removed == [{"id": seeded.agent_id}]
