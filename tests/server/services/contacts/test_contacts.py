"""Contacts and contact requests on the agent surface, and their realtime events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from band_server.context import Platform
from band_server.fanout.bus import Broadcast
from conftest import Seeded, make_agent, make_user

Published = list[Broadcast]


@pytest.fixture
def published(platform: Platform, monkeypatch: pytest.MonkeyPatch) -> Published:
    """Every broadcast the platform publishes, in order."""
    seen: Published = []
    original: Callable[[Broadcast], Awaitable[None]] = platform.bus.publish

    async def record(b: Broadcast) -> None:
        seen.append(b)
        await original(b)

    monkeypatch.setattr(platform.bus, "publish", record)
    return seen


def events(published: Published, agent_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [(b.event, b.payload) for b in published if b.topic == f"agent_contacts:{agent_id}"]


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


async def other_agent(platform: Platform) -> tuple[str, str, str]:
    bob_id, _ = await make_user(platform, "bob")
    return await make_agent(platform, bob_id, "Scout")


async def test_request_then_approve_makes_mutual_contacts(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, published: Published
) -> None:
    scout_id, scout_key, scout_handle = await other_agent(platform)
    r = await client.post(
        "/api/v1/agent/contacts/add",
        json={"handle": f"@{scout_handle}", "message": "hi there"},
        headers=h(seeded.agent_key),
    )
    assert r.status_code == 200, r.text
    request_id = r.json()["data"]["id"]
    assert r.json()["data"]["status"] == "pending"
    (event, payload), *_ = events(published, scout_id)
    assert event == "contact_request_received"
    assert payload["id"] == request_id and payload["status"] == "pending"
    assert payload["from_handle"] == seeded.agent_handle and payload["message"] == "hi there"
    assert payload["inserted_at"].endswith("Z")

    r = await client.get("/api/v1/agent/contacts/requests", headers=h(scout_key))
    body = r.json()
    assert [x["id"] for x in body["data"]["received"]] == [request_id]
    assert body["data"]["sent"] == []
    assert body["metadata"]["received"] == {"total": 1, "total_pages": 1}
    assert body["metadata"]["sent"] == {"total": 0, "total_pages": 0}
    sent = (await client.get("/api/v1/agent/contacts/requests", headers=h(seeded.agent_key))).json()
    assert [x["id"] for x in sent["data"]["sent"]] == [request_id]

    r = await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "approve", "request_id": request_id},
        headers=h(scout_key),
    )
    assert r.status_code == 200 and r.json()["data"]["status"] == "approved"

    for me_key, other_id in ((seeded.agent_key, scout_id), (scout_key, seeded.agent_id)):
        listed = (await client.get("/api/v1/agent/contacts", headers=h(me_key))).json()
        assert [c["id"] for c in listed["data"]] == [other_id]
        assert listed["data"][0]["online"] is False
        assert listed["metadata"] == {
            "page": 1,
            "page_size": 50,
            "total_count": 1,
            "total_pages": 1,
        }

    added = dict(events(published, seeded.agent_id))["contact_added"]
    assert added["id"] == scout_id and added["handle"] == scout_handle
    assert {"type", "name", "inserted_at"} <= added.keys()
    assert "description" in added  # a string, never null
    updated = [p for e, p in events(published, seeded.agent_id) if e == "contact_request_updated"]
    assert updated == [{"id": request_id, "status": "approved"}]


async def test_reverse_pending_request_is_approved_by_add(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, scout_key, scout_handle = await other_agent(platform)
    first = await client.post(
        "/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    r = await client.post(
        "/api/v1/agent/contacts/add", json={"handle": seeded.agent_handle}, headers=h(scout_key)
    )
    assert r.json()["data"] == {"id": first.json()["data"]["id"], "status": "approved"}
    again = await client.post(
        "/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_contact"


async def test_same_account_is_approved_at_once(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    r = await client.post(
        "/api/v1/agent/contacts/add", json={"handle": "alice"}, headers=h(seeded.agent_key)
    )
    assert r.json()["data"]["status"] == "approved"
    r = await client.get("/api/v1/me/contacts", headers=h(seeded.user_key))
    assert [c["contact_id"] for c in r.json()["data"]] == [seeded.agent_id]


async def test_asking_twice_returns_the_pending_request(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, _, scout_handle = await other_agent(platform)
    body = {"handle": scout_handle}
    a = await client.post("/api/v1/agent/contacts/add", json=body, headers=h(seeded.agent_key))
    b = await client.post("/api/v1/agent/contacts/add", json=body, headers=h(seeded.agent_key))
    assert a.json() == b.json()


async def test_reject_and_cancel(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, published: Published
) -> None:
    scout_id, scout_key, scout_handle = await other_agent(platform)
    await client.post(
        "/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    r = await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "reject", "handle": seeded.agent_handle},
        headers=h(scout_key),
    )
    assert r.json()["data"]["status"] == "rejected"
    again = await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "reject", "request_id": r.json()["data"]["id"]},
        headers=h(scout_key),
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == "request_not_pending"
    # The sender cannot "approve" its own request, and a new one can be cancelled.
    await client.post(
        "/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    own = await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "approve", "handle": scout_handle},
        headers=h(seeded.agent_key),
    )
    assert own.status_code == 404
    r = await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "cancel", "handle": scout_handle},
        headers=h(seeded.agent_key),
    )
    assert r.json()["data"]["status"] == "cancelled"
    statuses = [
        p["status"] for e, p in events(published, scout_id) if e != "contact_request_received"
    ]
    assert statuses == ["rejected", "cancelled"]
    sent = await client.get(
        "/api/v1/agent/contacts/requests?sent_status=all", headers=h(seeded.agent_key)
    )
    assert sorted(x["status"] for x in sent.json()["data"]["sent"]) == ["cancelled", "rejected"]


async def test_remove_contact_by_id_and_handle(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, published: Published
) -> None:
    scout_id, scout_key, scout_handle = await other_agent(platform)
    await client.post(
        "/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    await client.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "approve", "handle": seeded.agent_handle},
        headers=h(scout_key),
    )
    r = await client.post(
        "/api/v1/agent/contacts/remove", json={"contact_id": scout_id}, headers=h(seeded.agent_key)
    )
    assert r.status_code == 200 and r.json()["data"]["id"] == scout_id
    assert ("contact_removed", {"id": seeded.agent_id}) in events(published, scout_id)
    assert ("contact_removed", {"id": scout_id}) in events(published, seeded.agent_id)
    listed = await client.get("/api/v1/agent/contacts", headers=h(scout_key))
    assert listed.json()["data"] == []
    gone = await client.post(
        "/api/v1/agent/contacts/remove", json={"handle": scout_handle}, headers=h(seeded.agent_key)
    )
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/contacts/add", {"handle": "nobody-here"}, 404, "not_found"),
        ("/contacts/add", {}, 422, "validation_error"),
        ("/contacts/remove", {}, 422, "validation_error"),
        ("/contacts/requests/respond", {"action": "explode"}, 422, "validation_error"),
        ("/contacts/requests/respond", {"action": "approve"}, 422, "validation_error"),
        ("/contacts/requests/respond", {"action": "approve", "request_id": "x"}, 404, "not_found"),
    ],
)
async def test_bad_requests_get_the_envelope(
    client: httpx.AsyncClient,
    seeded: Seeded,
    path: str,
    body: dict[str, Any],
    status: int,
    code: str,
) -> None:
    r = await client.post(f"/api/v1/agent{path}", json=body, headers=h(seeded.agent_key))
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code and err["message"] and err["request_id"]


async def test_adding_yourself_is_refused(client: httpx.AsyncClient, seeded: Seeded) -> None:
    r = await client.post(
        "/api/v1/agent/contacts/add",
        json={"handle": seeded.agent_handle},
        headers=h(seeded.agent_key),
    )
    assert r.status_code == 422 and "/handle" in r.json()["error"]["details"]


async def test_contacts_need_an_agent_key(client: httpx.AsyncClient, seeded: Seeded) -> None:
    assert (await client.get("/api/v1/agent/contacts")).status_code == 401
    r = await client.get("/api/v1/agent/contacts", headers=h(seeded.user_key))
    assert r.status_code == 403 and r.json()["error"]["code"] == "agent_key_required"


async def test_people_use_the_human_contacts_surface(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, bob_key = await make_user(platform, "bob")
    r = await client.post(
        "/api/v1/me/contacts/requests", json={"handle": "alice"}, headers=h(bob_key)
    )
    assert r.status_code == 201 and r.json()["data"]["status"] == "pending"
    request_id = r.json()["data"]["id"]
    sent = await client.get("/api/v1/me/contacts/requests/sent", headers=h(bob_key))
    assert [x["id"] for x in sent.json()["data"]] == [request_id]
    received = await client.get("/api/v1/me/contacts/requests", headers=h(seeded.user_key))
    assert received.json()["data"][0]["from_handle"] == "bob"
    # Only the receiver can approve; only the sender can cancel.
    wrong = await client.post(
        f"/api/v1/me/contacts/requests/{request_id}/approve", headers=h(bob_key)
    )
    assert wrong.status_code == 404
    r = await client.post(
        f"/api/v1/me/contacts/requests/{request_id}/approve", headers=h(seeded.user_key)
    )
    assert r.json()["data"]["status"] == "approved"
    resolved = await client.post(
        "/api/v1/me/contacts/resolve", json={"handle": "@bob"}, headers=h(seeded.user_key)
    )
    assert resolved.json()["data"] == {
        "id": bob_id,
        "handle": "bob",
        "name": "Bob",
        "type": "User",
        "description": None,
        "is_contact": True,
    }
    r = await client.post(
        "/api/v1/me/contacts/remove", json={"handle": "bob"}, headers=h(seeded.user_key)
    )
    assert r.status_code == 200
    assert (await client.get("/api/v1/me/contacts", headers=h(bob_key))).json()["data"] == []
    missing = await client.post(
        "/api/v1/me/contacts/resolve", json={"handle": "zed"}, headers=h(seeded.user_key)
    )
    assert missing.status_code == 404


async def test_person_can_reject_and_withdraw(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key = await make_user(platform, "bob")
    first = await client.post(
        "/api/v1/me/contacts/requests", json={"handle": "alice"}, headers=h(bob_key)
    )
    r = await client.post(
        f"/api/v1/me/contacts/requests/{first.json()['data']['id']}/reject",
        headers=h(seeded.user_key),
    )
    assert r.json()["data"]["status"] == "rejected"
    second = await client.post(
        "/api/v1/me/contacts/requests", json={"handle": "alice"}, headers=h(bob_key)
    )
    r = await client.delete(
        f"/api/v1/me/contacts/requests/{second.json()['data']['id']}", headers=h(bob_key)
    )
    assert r.json()["data"]["status"] == "cancelled"
