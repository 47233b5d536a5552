"""Memories: stored by an agent, seen only by it and its owner."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from band_server.context import Platform
from conftest import Seeded, make_agent, make_user

SUBJECT = "6f1c2a8e-0000-4000-8000-000000000001"


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


def memory(content: str, **extra: Any) -> dict[str, Any]:
    fields = {
        "content": content,
        "system": "long_term",
        "type": "semantic",
        "segment": "user",
        "thought": "worth keeping",
        "scope": "subject",
        "subject_id": SUBJECT,
    }
    fields.update(extra)
    return {"memory": fields}


async def store(client: httpx.AsyncClient, key: str, content: str, **extra: Any) -> str:
    r = await client.post("/api/v1/agent/memories", json=memory(content, **extra), headers=h(key))
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def test_store_get_and_list(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.post(
        "/api/v1/agent/memories",
        json=memory("Alice prefers tea", metadata={"source": "chat"}),
        headers=h(seeded.agent_key),
    )
    assert r.status_code == 201
    stored = r.json()["data"]
    assert stored["status"] == "active" and stored["metadata"] == {"source": "chat"}
    for field in ("id", "content", "scope", "segment", "system", "type", "inserted_at"):
        assert stored[field]
    got = await client.get(f"/api/v1/agent/memories/{stored['id']}", headers=h(seeded.agent_key))
    assert got.json()["data"] == stored
    listed = await client.get("/api/v1/agent/memories", headers=h(seeded.agent_key))
    assert [m["id"] for m in listed.json()["data"]] == [stored["id"]]
    assert listed.json()["metadata"] == {"has_more": False, "limit": 50, "next_cursor": None}


async def test_cursor_paging_newest_first(client: httpx.AsyncClient, seeded: Seeded) -> None:
    ids = [await store(client, seeded.agent_key, f"fact {i}") for i in range(5)]
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        r = await client.get("/api/v1/agent/memories", params=params, headers=h(seeded.agent_key))
        meta = r.json()["metadata"]
        seen += [m["id"] for m in r.json()["data"]]
        if not meta["has_more"]:
            assert meta["next_cursor"] is None
            break
        cursor = meta["next_cursor"]
    assert seen == list(reversed(ids))


async def test_legacy_page_size_is_deprecated(client: httpx.AsyncClient, seeded: Seeded) -> None:
    for i in range(3):
        await store(client, seeded.agent_key, f"fact {i}")
    r = await client.get("/api/v1/agent/memories?page=2&page_size=2", headers=h(seeded.agent_key))
    assert [m["content"] for m in r.json()["data"]] == ["fact 0"]
    assert r.headers["Deprecation"] == "true" and "Sunset" in r.headers
    assert r.json()["metadata"]["page"] == 2


async def test_filters(client: httpx.AsyncClient, seeded: Seeded) -> None:
    tea = await store(client, seeded.agent_key, "Alice likes 100% green tea")
    how = await store(
        client,
        seeded.agent_key,
        "How to deploy",
        type="procedural",
        segment="tool",
        scope="agent",
        subject_id=None,
    )
    other = await store(client, seeded.agent_key, "About Bob", subject_id="someone-else")

    async def ids(query: str) -> list[str]:
        r = await client.get(f"/api/v1/agent/memories?{query}", headers=h(seeded.agent_key))
        assert r.status_code == 200, r.text
        return [m["id"] for m in r.json()["data"]]

    assert await ids("type=procedural") == [how]
    assert await ids("segment=tool") == [how]
    assert await ids("scope=subject") == [other, tea]
    assert await ids("scope=all&system=long_term") == [other, how, tea]
    assert await ids(f"subject_id={SUBJECT}") == [tea]
    assert await ids("content_query=GREEN") == [tea]
    assert await ids("content_query=100%25") == [tea]
    assert await ids("content_query=_") == []


async def test_supersede_and_archive(client: httpx.AsyncClient, seeded: Seeded) -> None:
    old = await store(client, seeded.agent_key, "old fact")
    hidden = await store(client, seeded.agent_key, "hidden fact")
    r = await client.post(f"/api/v1/agent/memories/{old}/supersede", headers=h(seeded.agent_key))
    assert r.json()["data"]["status"] == "superseded"
    r = await client.post(f"/api/v1/agent/memories/{hidden}/archive", headers=h(seeded.agent_key))
    assert r.json()["data"]["status"] == "archived"
    listed = await client.get("/api/v1/agent/memories", headers=h(seeded.agent_key))
    assert listed.json()["data"] == []
    everything = await client.get("/api/v1/agent/memories?status=all", headers=h(seeded.agent_key))
    assert len(everything.json()["data"]) == 2
    archived = await client.get(
        "/api/v1/agent/memories?status=archived", headers=h(seeded.agent_key)
    )
    assert [m["id"] for m in archived.json()["data"]] == [hidden]


@pytest.mark.parametrize(
    ("override", "pointer"),
    [
        ({"system": "forever"}, "/memory/system"),
        ({"type": "iconic"}, "/memory/type"),
        ({"segment": "planet"}, "/memory/segment"),
        ({"scope": "galaxy"}, "/memory/scope"),
        ({"subject_id": None}, "/memory/subject_id"),
        ({"content": "   "}, "/memory/content"),
        ({"content": ""}, "/memory/content"),
    ],
)
async def test_invalid_memory_is_422_and_stores_nothing(
    client: httpx.AsyncClient, seeded: Seeded, override: dict[str, Any], pointer: str
) -> None:
    r = await client.post(
        "/api/v1/agent/memories",
        json=memory(**{"content": "x", **override}),
        headers=h(seeded.agent_key),
    )
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "validation_error"
    assert pointer in r.json()["error"]["details"]
    listed = await client.get("/api/v1/agent/memories?status=all", headers=h(seeded.agent_key))
    assert listed.json()["data"] == []


async def test_bad_cursor_is_422(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.get("/api/v1/agent/memories?cursor=!!!", headers=h(seeded.agent_key))
    assert r.status_code == 422 and "/cursor" in r.json()["error"]["details"]


async def test_other_agents_get_404(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    mine = await store(client, seeded.agent_key, "secret")
    _, sibling_key, _ = await make_agent(platform, seeded.user_id, "Sibling")
    bob_id, bob_key = await make_user(platform, "bob")
    _, stranger_key, _ = await make_agent(platform, bob_id, "Stranger")
    for key in (sibling_key, stranger_key):
        for method, path in (
            ("GET", f"/api/v1/agent/memories/{mine}"),
            ("POST", f"/api/v1/agent/memories/{mine}/supersede"),
            ("POST", f"/api/v1/agent/memories/{mine}/archive"),
        ):
            r = await client.request(method, path, headers=h(key))
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        listed = await client.get("/api/v1/agent/memories", headers=h(key))
        assert listed.json()["data"] == []
    r = await client.get(f"/api/v1/me/memories/{mine}", headers=h(bob_key))
    assert r.status_code == 404
    r = await client.delete(f"/api/v1/me/memories/{mine}", headers=h(bob_key))
    assert r.status_code == 404
    got = await client.get(f"/api/v1/agent/memories/{mine}", headers=h(seeded.agent_key))
    assert got.json()["data"]["status"] == "active"


async def test_owner_sees_restores_and_deletes(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    first = await store(client, seeded.agent_key, "first")
    _, sibling_key, _ = await make_agent(platform, seeded.user_id, "Sibling")
    second = await store(client, sibling_key, "second")
    listed = await client.get("/api/v1/me/memories", headers=h(seeded.user_key))
    assert [m["id"] for m in listed.json()["data"]] == [second, first]
    one = await client.get(f"/api/v1/me/memories/{first}", headers=h(seeded.user_key))
    assert one.json()["data"]["agent_id"] == seeded.agent_id
    for action, status in (("archive", "archived"), ("supersede", "superseded")):
        r = await client.post(f"/api/v1/me/memories/{first}/{action}", headers=h(seeded.user_key))
        assert r.json()["data"]["status"] == status
    r = await client.post(f"/api/v1/me/memories/{first}/restore", headers=h(seeded.user_key))
    assert r.json()["data"]["status"] == "active"
    r = await client.delete(f"/api/v1/me/memories/{first}", headers=h(seeded.user_key))
    assert r.status_code == 200 and r.json()["data"]["id"] == first
    gone = await client.get(f"/api/v1/agent/memories/{first}", headers=h(seeded.agent_key))
    assert gone.status_code == 404
