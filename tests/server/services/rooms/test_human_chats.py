"""The human surface for rooms, participants and messages."""

from __future__ import annotations

import httpx

from band_server.context import Platform
from conftest import Seeded, make_agent, make_user


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


async def new_room(client: httpx.AsyncClient, key: str, title: str | None = "Plans") -> str:
    r = await client.post("/api/v1/me/chats", json={"chat": {"title": title}}, headers=h(key))
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def add(client: httpx.AsyncClient, key: str, room_id: str, who: str) -> httpx.Response:
    return await client.post(
        f"/api/v1/me/chats/{room_id}/participants",
        json={"participant": {"participant_id": who}},
        headers=h(key),
    )


async def test_create_list_and_get_chats(client: httpx.AsyncClient, seeded: Seeded) -> None:
    room_id = await new_room(client, seeded.user_key)
    untitled = await client.post("/api/v1/me/chats", headers=h(seeded.user_key))
    assert untitled.status_code == 201 and untitled.json()["data"]["title"] is None
    r = await client.get("/api/v1/me/chats?page_size=1&order=asc", headers=h(seeded.user_key))
    assert [c["id"] for c in r.json()["data"]] == [room_id]
    offset = {"page": 1, "page_size": 1, "total_count": 2, "total_pages": 2, "has_more": True}
    assert offset.items() <= r.json()["metadata"].items()
    newest = await client.get("/api/v1/me/chats?page_size=1", headers=h(seeded.user_key))
    assert [c["id"] for c in newest.json()["data"]] == [untitled.json()["data"]["id"]]
    one = await client.get(f"/api/v1/me/chats/{room_id}", headers=h(seeded.user_key))
    assert one.json()["data"]["title"] == "Plans" and one.json()["data"]["inserted_at"]


async def test_another_persons_room_is_404(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id = await new_room(client, seeded.user_key)
    _, bob_key = await make_user(platform, "bob")
    for method, path in (
        ("GET", f"/api/v1/me/chats/{room_id}"),
        ("GET", f"/api/v1/me/chats/{room_id}/participants"),
        ("GET", f"/api/v1/me/chats/{room_id}/messages"),
        ("DELETE", f"/api/v1/me/chats/{room_id}/participants/{seeded.user_id}"),
    ):
        r = await client.request(method, path, headers=h(bob_key))
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", path
    r = await client.post(
        f"/api/v1/me/chats/{room_id}/messages",
        json={"message": {"content": "let me in"}},
        headers=h(bob_key),
    )
    assert r.status_code == 404
    assert (await add(client, bob_key, room_id, seeded.agent_id)).status_code == 404
    listed = await client.get("/api/v1/me/chats", headers=h(bob_key))
    assert listed.json()["data"] == []


async def test_participants_add_list_remove(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id = await new_room(client, seeded.user_key)
    r = await add(client, seeded.user_key, room_id, seeded.agent_handle)
    assert r.status_code == 201
    assert r.json()["data"] == {
        "id": seeded.agent_id,
        "role": "member",
        "status": "active",
        "type": "Agent",
        "name": "Echo",
        "handle": seeded.agent_handle,
        "description": "A helpful test agent",
        "online": False,
    }
    dup = await add(client, seeded.user_key, room_id, seeded.agent_id)
    assert dup.status_code == 409 and dup.json()["error"]["code"] == "already_participant"
    parts = await client.get(f"/api/v1/me/chats/{room_id}/participants", headers=h(seeded.user_key))
    assert [(p["id"], p["role"]) for p in parts.json()["data"]] == [
        (seeded.user_id, "owner"),
        (seeded.agent_id, "member"),
    ]
    r = await client.delete(
        f"/api/v1/me/chats/{room_id}/participants/{seeded.agent_id}", headers=h(seeded.user_key)
    )
    assert r.status_code == 200 and r.json()["data"]["id"] == seeded.agent_id
    again = await client.delete(
        f"/api/v1/me/chats/{room_id}/participants/{seeded.agent_id}", headers=h(seeded.user_key)
    )
    assert again.status_code == 404


async def test_only_peers_can_be_added(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id = await new_room(client, seeded.user_key)
    bob_id, _ = await make_user(platform, "bob")
    stranger_id, _, _ = await make_agent(platform, bob_id, "Stranger")
    for who in (bob_id, stranger_id, "nobody"):
        r = await add(client, seeded.user_key, room_id, who)
        assert r.status_code == 404 and r.json()["error"]["message"] == "Participant not found"
    bad = await client.post(
        f"/api/v1/me/chats/{room_id}/participants",
        json={"participant": {"participant_id": seeded.agent_id, "role": "king"}},
        headers=h(seeded.user_key),
    )
    assert bad.status_code == 422 and "/participant/role" in bad.json()["error"]["details"]
    owner = await client.post(
        f"/api/v1/me/chats/{room_id}/participants",
        json={"participant": {"participant_id": seeded.agent_id, "role": "owner"}},
        headers=h(seeded.user_key),
    )
    assert owner.status_code == 422
    parts = await client.get(f"/api/v1/me/chats/{room_id}/participants", headers=h(seeded.user_key))
    assert len(parts.json()["data"]) == 1


async def test_post_with_inline_handle_mentions_the_agent(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room_id = await new_room(client, seeded.user_key)
    await add(client, seeded.user_key, room_id, seeded.agent_id)
    r = await client.post(
        f"/api/v1/me/chats/{room_id}/messages",
        json={"message": {"content": f"@{seeded.agent_handle} hello there"}},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 201, r.text
    sent = r.json()["data"]
    assert [x["id"] for x in sent["recipients"]] == [seeded.agent_id]
    # The agent has it pending: the delivery row exists.
    nxt = await client.get(
        f"/api/v1/agent/chats/{room_id}/messages/next", headers=h(seeded.agent_key)
    )
    assert nxt.status_code == 200 and nxt.json()["data"]["id"] == sent["id"]
    assert nxt.json()["data"]["content"] == f"@[[{seeded.agent_id}]] hello there"


async def test_post_without_mentions_is_fine_for_people(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room_id = await new_room(client, seeded.user_key)
    await add(client, seeded.user_key, room_id, seeded.agent_id)
    r = await client.post(
        f"/api/v1/me/chats/{room_id}/messages",
        json={"message": {"content": "a note to self, email@alice/echo.dev"}},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 201 and r.json()["data"]["recipients"] == []
    nxt = await client.get(
        f"/api/v1/agent/chats/{room_id}/messages/next", headers=h(seeded.agent_key)
    )
    assert nxt.status_code == 204


async def test_explicit_mentions_and_errors(client: httpx.AsyncClient, seeded: Seeded) -> None:
    room_id = await new_room(client, seeded.user_key)
    await add(client, seeded.user_key, room_id, seeded.agent_id)
    url = f"/api/v1/me/chats/{room_id}/messages"
    r = await client.post(
        url,
        json={"message": {"content": "hi", "mentions": [{"id": seeded.agent_id}]}},
        headers=h(seeded.user_key),
    )
    assert [x["handle"] for x in r.json()["data"]["recipients"]] == [seeded.agent_handle]
    blank = await client.post(url, json={"message": {"content": "  "}}, headers=h(seeded.user_key))
    assert blank.status_code == 422 and blank.json()["error"]["code"] == "validation_error"
    outsider = await client.post(
        url,
        json={"message": {"content": "hi", "mentions": [{"handle": "ghost"}]}},
        headers=h(seeded.user_key),
    )
    assert outsider.status_code == 422
    assert outsider.json()["error"]["message"] == "mentioned_participant_not_in_room"
    missing = await client.post(url, json={}, headers=h(seeded.user_key))
    assert missing.status_code == 422
    listed = await client.get(url, headers=h(seeded.user_key))
    assert len(listed.json()["data"]) == 1


async def test_list_shows_messages_and_events_in_order_with_paging(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room_id = await new_room(client, seeded.user_key)
    await add(client, seeded.user_key, room_id, seeded.agent_id)
    url = f"/api/v1/me/chats/{room_id}/messages"
    await client.post(
        url, json={"message": {"content": f"@{seeded.agent_handle} go"}}, headers=h(seeded.user_key)
    )
    ev = await client.post(
        f"/api/v1/agent/chats/{room_id}/events",
        json={"event": {"content": "thinking", "message_type": "thought", "metadata": None}},
        headers=h(seeded.agent_key),
    )
    assert ev.status_code == 201, ev.text
    await client.post(
        f"/api/v1/agent/chats/{room_id}/messages",
        json={"message": {"content": "done", "mentions": [{"id": seeded.user_id}]}},
        headers=h(seeded.agent_key),
    )
    r = await client.get(url, headers=h(seeded.user_key))
    items = r.json()["data"]  # newest first, as band-client-rest documents the list
    assert [m["message_type"] for m in items] == ["text", "thought", "text"]
    assert [m["sender_type"] for m in items] == ["Agent", "Agent", "User"]
    asc = await client.get(url, params={"sort_order": "asc"}, headers=h(seeded.user_key))
    assert [m["id"] for m in asc.json()["data"]] == [m["id"] for m in reversed(items)]
    first = await client.get(url, params={"limit": 2}, headers=h(seeded.user_key))
    meta = first.json()["metadata"]
    assert meta["has_more"] is True and meta["limit"] == 2
    rest = await client.get(
        url, params={"limit": 2, "cursor": meta["next_cursor"]}, headers=h(seeded.user_key)
    )
    assert [m["id"] for m in first.json()["data"] + rest.json()["data"]] == [m["id"] for m in items]
    assert rest.json()["metadata"]["has_more"] is False
    bad = await client.get(url, params={"cursor": "???"}, headers=h(seeded.user_key))
    assert bad.status_code == 422
