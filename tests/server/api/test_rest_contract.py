"""Routes added for the band-client-rest contract: rename, roles, and their bad input."""

from __future__ import annotations

import httpx

from band_server.context import Platform
from band_server.services.identity import roles
from band_server.services.identity.principals import Principal
from conftest import Seeded, make_user


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


async def _room(client: httpx.AsyncClient, key: str, title: str = "Before") -> str:
    r = await client.post("/api/v1/me/chats", json={"chat": {"title": title}}, headers=h(key))
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def _title(client: httpx.AsyncClient, key: str, room: str) -> str:
    return str(
        (await client.get(f"/api/v1/me/chats/{room}", headers=h(key))).json()["data"]["title"]
    )


async def test_owner_renames_a_room_on_both_surfaces(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room = await _room(client, seeded.user_key)
    r = await client.patch(
        f"/api/v1/me/chats/{room}", json={"chat": {"title": "  After "}}, headers=h(seeded.user_key)
    )
    assert r.status_code == 200 and r.json()["data"]["title"] == "After"
    assert await _title(client, seeded.user_key, room) == "After"
    again = await client.patch(
        f"/api/v1/me/chats/{room}", json={"chat": {"title": "After"}}, headers=h(seeded.user_key)
    )
    assert again.status_code == 200 and again.json()["data"]["title"] == "After"
    mine = await client.post(
        "/api/v1/agent/chats", json={"chat": {"title": "Agent's"}}, headers=h(seeded.agent_key)
    )
    agent_room = mine.json()["data"]["id"]
    r = await client.patch(
        f"/api/v1/agent/chats/{agent_room}",
        json={"chat": {"title": "Agent's new"}},
        headers=h(seeded.agent_key),
    )
    assert r.status_code == 200 and r.json()["data"]["title"] == "Agent's new"


async def test_rename_refuses_bad_titles_and_non_owners(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await _room(client, seeded.user_key)
    url = f"/api/v1/me/chats/{room}"
    for title in ("", "   ", "two\nlines", "nul\x00", "x" * 121):
        r = await client.patch(url, json={"chat": {"title": title}}, headers=h(seeded.user_key))
        assert r.status_code == 422, (title, r.text)
        assert r.json()["error"]["code"] == "validation_error"
    for body in ({}, {"chat": {}}, {"chat": {"title": 5}}):
        r = await client.patch(url, json=body, headers=h(seeded.user_key))
        assert r.status_code == 422, (body, r.text)
    bad = {**h(seeded.user_key), "Content-Type": "application/json"}
    r = await client.patch(url, content=b"{nope", headers=bad)
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    # The agent is a member, not the owner: 403. A stranger: 404 (existence is not revealed).
    await client.post(
        f"{url}/participants",
        json={"participant": {"participant_id": seeded.agent_id}},
        headers=h(seeded.user_key),
    )
    r = await client.patch(
        f"/api/v1/agent/chats/{room}", json={"chat": {"title": "Mine"}}, headers=h(seeded.agent_key)
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_room_owner"
    _, bob_key = await make_user(platform, "bob")
    r = await client.patch(url, json={"chat": {"title": "Mine"}}, headers=h(bob_key))
    assert r.status_code == 404 and r.json()["error"]["request_id"]
    r = await client.patch(url, json={"chat": {"title": "Mine"}}, headers=h(seeded.agent_key))
    assert r.status_code == 403 and r.json()["error"]["code"] == "user_key_required"
    assert await _title(client, seeded.user_key, room) == "Before"


async def test_the_first_person_is_the_admin(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, bob_key = await make_user(platform, "bob")
    alice = (await client.get("/api/v1/me/profile", headers=h(seeded.user_key))).json()["data"]
    bob = (await client.get("/api/v1/me/profile", headers=h(bob_key))).json()["data"]
    assert (alice["role"], bob["role"]) == ("admin", "user")
    assert bob["email"] == "bob@localhost"  # no address given: the local mailbox
    async with platform.db.read() as session:
        assert await roles.is_admin(session, seeded.user_id)
        assert not await roles.is_admin(session, bob_id)
        agent = Principal("agent", seeded.agent_id, "Echo", seeded.agent_handle, seeded.user_id)
        assert not await roles.is_admin(session, agent)


async def test_profile_names_update_the_display_name(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    r = await client.put(
        "/api/v1/me/profile",
        json={"user": {"first_name": "Alice", "last_name": "Liddell"}},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 200
    me = r.json()["data"]
    assert (me["first_name"], me["last_name"], me["name"]) == ("Alice", "Liddell", "Alice Liddell")
    r = await client.put(
        "/api/v1/me/profile", json={"user": {"first_name": 3}}, headers=h(seeded.user_key)
    )
    assert r.status_code == 422


async def test_agent_with_history_needs_force_to_be_deleted(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room = await _room(client, seeded.user_key)
    await client.post(
        f"/api/v1/me/chats/{room}/participants",
        json={"participant": {"participant_id": seeded.agent_id}},
        headers=h(seeded.user_key),
    )
    sent = await client.post(
        f"/api/v1/me/chats/{room}/messages",
        json={"message": {"content": "@alice/echo hi", "mentions": [{"id": seeded.agent_id}]}},
        headers=h(seeded.user_key),
    )
    assert sent.status_code == 201
    url = f"/api/v1/me/agents/{seeded.agent_id}"
    r = await client.delete(url, headers=h(seeded.user_key))
    assert r.status_code == 422 and r.json()["error"]["code"] == "execution_history_exists"
    assert (await client.get(url, headers=h(seeded.user_key))).status_code == 200
    r = await client.delete(url, params={"force": "maybe"}, headers=h(seeded.user_key))
    assert r.status_code == 422
    r = await client.delete(url, params={"force": "true"}, headers=h(seeded.user_key))
    assert r.status_code == 200 and r.json()["data"]["executions_deleted"] == 1
    assert (await client.get(url, headers=h(seeded.user_key))).status_code == 404
