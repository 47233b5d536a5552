"""The platform on a real PostgreSQL: migrations, the main REST flows, concurrent writers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.store.models import Message


@dataclass
class Pg:
    client: httpx.AsyncClient
    platform: Platform
    alice: dict[str, str]  # headers
    agent: dict[str, str]
    agent_id: str
    agent_handle: str
    room_id: str

    def room(self, suffix: str = "") -> str:
        return f"/api/v1/agent/chats/{self.room_id}{suffix}"


async def register(c: httpx.AsyncClient, owner: dict[str, str], name: str) -> tuple[str, str, str]:
    r = await c.post(
        "/api/v1/me/agents/register",
        json={"agent": {"name": name, "description": "A test agent on PostgreSQL"}},
        headers=owner,
    )
    assert r.status_code == 201, r.text
    data = r.json()["data"]
    return data["agent"]["id"], data["credentials"]["api_key"], data["agent"]["handle"]


@pytest.fixture
async def pg(tmp_path: Path, pg_url: str) -> AsyncIterator[Pg]:
    app = create_app(Settings(data_dir=tmp_path / "data", database_url=pg_url, redis_url=None))
    async with app.router.lifespan_context(app):
        platform: Platform = app.state.platform
        assert platform.db.engine.dialect.name == "postgresql"
        async with platform.db.write() as session:
            _, user_key = await accounts.create_user(session, name="Alice", handle="alice")
        alice = {"X-API-Key": user_key}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
            agent_id, agent_key, handle = await register(c, alice, "Echo")
            title = {"chat": {"title": "Ünïcode ✓"}}
            room = await c.post("/api/v1/me/chats", json=title, headers=alice)
            room_id = room.json()["data"]["id"]
            r = await c.post(
                f"/api/v1/me/chats/{room_id}/participants",
                json={"participant": {"participant_id": agent_id}},
                headers=alice,
            )
            assert r.status_code == 201, r.text
            yield Pg(c, platform, alice, {"X-API-Key": agent_key}, agent_id, handle, room_id)


async def person_says(pg: Pg, text: str) -> str:
    r = await pg.client.post(
        f"/api/v1/me/chats/{pg.room_id}/messages",
        json={"message": {"content": f"@{pg.agent_handle} {text}"}},
        headers=pg.alice,
    )
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def test_mention_next_processing_processed_and_failed(pg: Pg) -> None:
    c = pg.client
    first = await person_says(pg, "hello")
    r = await c.get(pg.room("/messages/next"), headers=pg.agent)
    assert r.status_code == 200 and r.json()["data"]["id"] == first
    status = r.json()["data"]["metadata"]["delivery_status"][pg.agent_id]
    assert status["status"] == "delivered" and status["delivered_at"].endswith("Z")

    assert (await c.post(pg.room(f"/messages/{first}/processing"), headers=pg.agent)).is_success
    reply = await c.post(
        pg.room("/messages"),
        json={"message": {"content": "hi Alice", "mentions": [{"handle": "alice"}]}},
        headers=pg.agent,
    )
    assert reply.status_code == 201, reply.text
    event = await c.post(
        pg.room("/events"),
        json={
            "event": {
                "content": "called a tool",
                "message_type": "tool_call",
                "metadata": {"name": "search", "args": {"q": "ünï", "n": [1, 2.5, None]}},
            }
        },
        headers=pg.agent,
    )
    assert event.status_code == 201, event.text
    assert (await c.post(pg.room(f"/messages/{first}/processed"), headers=pg.agent)).is_success

    second = await person_says(pg, "again")
    assert (await c.get(pg.room("/messages/next"), headers=pg.agent)).json()["data"]["id"] == second
    await c.post(pg.room(f"/messages/{second}/processing"), headers=pg.agent)
    failed = await c.post(
        pg.room(f"/messages/{second}/failed"), json={"error": "model timed out"}, headers=pg.agent
    )
    assert failed.is_success, failed.text
    retry = (await c.get(pg.room("/messages/next"), headers=pg.agent)).json()["data"]
    assert retry["metadata"]["delivery_status"][pg.agent_id]["status"] == "failed"

    log = await c.get(
        f"/api/v1/me/chats/{pg.room_id}/messages", params={"sort_order": "asc"}, headers=pg.alice
    )
    items = log.json()["data"]
    assert [m["id"] for m in items][:2] == [first, reply.json()["data"]["id"]]
    stored = next(m for m in items if m["message_type"] == "tool_call")
    assert stored["metadata"]["args"] == {"q": "ünï", "n": [1, 2.5, None]}
    assert all(m["inserted_at"].endswith("Z") for m in items)


async def test_the_agents_roster_read_on_postgres(pg: Pg) -> None:
    c = pg.client
    r = await c.get(pg.room("/participants"), headers=pg.agent)
    assert r.status_code == 200, r.text
    roster = r.json()["data"]
    assert [(p["type"], p["role"]) for p in roster] == [("User", "owner"), ("Agent", "member")]
    assert roster[1]["id"] == pg.agent_id and roster[1]["handle"] == pg.agent_handle
    r = await c.get(
        "/api/v1/agent/chats/00000000-0000-0000-0000-000000000000/participants", headers=pg.agent
    )
    assert r.status_code == 404


async def test_contacts_and_memories(pg: Pg) -> None:
    c = pg.client
    async with pg.platform.db.write() as session:
        _, bob_key = await accounts.create_user(session, name="Bob", handle="bob")
    # Another person's agent: a request that the other side approves.
    _, scout_key, scout_handle = await register(c, {"X-API-Key": bob_key}, "Scout")
    scout = {"X-API-Key": scout_key}
    r = await c.post("/api/v1/agent/contacts/add", json={"handle": scout_handle}, headers=pg.agent)
    assert r.status_code == 200, r.text
    r = await c.post(
        "/api/v1/agent/contacts/requests/respond",
        json={"action": "approve", "request_id": r.json()["data"]["id"]},
        headers=scout,
    )
    assert r.json()["data"]["status"] == "approved", r.text
    listed = (await c.get("/api/v1/agent/contacts", headers=pg.agent)).json()["data"]
    assert [x["handle"] for x in listed] == [scout_handle]

    ids = []
    for content in ("Alice prefers TEA", "Bob likes coffee", "tea at 5"):
        r = await c.post(
            "/api/v1/agent/memories",
            json={"memory": {"content": content, "scope": "agent", "metadata": {"k": "ü"}}},
            headers=pg.agent,
        )
        assert r.status_code == 201, r.text
        ids.append(r.json()["data"]["id"])
    found = await c.get("/api/v1/agent/memories", params={"content_query": "tea"}, headers=pg.agent)
    assert sorted(m["id"] for m in found.json()["data"]) == sorted([ids[0], ids[2]])
    page = await c.get("/api/v1/agent/memories", params={"limit": 2}, headers=pg.agent)
    cursor = page.json()["metadata"]["next_cursor"]
    rest = await c.get("/api/v1/agent/memories", params={"cursor": cursor}, headers=pg.agent)
    seen = [m["id"] for m in page.json()["data"] + rest.json()["data"]]
    assert sorted(seen) == sorted(ids)
    r = await c.post(f"/api/v1/agent/memories/{ids[1]}/archive", headers=pg.agent)
    assert r.json()["data"]["status"] == "archived"


async def test_concurrent_posts_in_one_room_all_land_in_order(pg: Pg) -> None:
    async def say(n: int) -> httpx.Response:
        return await pg.client.post(
            f"/api/v1/me/chats/{pg.room_id}/messages",
            json={"message": {"content": f"@{pg.agent_handle} n{n}"}},
            headers=pg.alice,
        )

    answers = await asyncio.gather(*(say(n) for n in range(12)))
    assert [a.status_code for a in answers] == [201] * 12
    async with pg.platform.db.read() as session:
        seqs = list(await session.scalars(select(Message.seq).where(Message.room_id == pg.room_id)))
    assert sorted(seqs) == list(range(1, 13))


async def test_racing_duplicates_answer_409_never_500(pg: Pg) -> None:
    other_id, _, _ = await register(pg.client, pg.alice, "Other")

    async def add() -> httpx.Response:
        return await pg.client.post(
            f"/api/v1/me/chats/{pg.room_id}/participants",
            json={"participant": {"participant_id": other_id}},
            headers=pg.alice,
        )

    answers = await asyncio.gather(*(add() for _ in range(6)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] + [409] * 5, [a.text for a in answers]
    refused = [a.json()["error"]["code"] for a in answers if a.status_code == 409]
    assert set(refused) <= {"conflict", "already_participant"}


async def test_a_nul_character_is_refused_not_a_500(pg: Pg) -> None:
    r = await pg.client.post(
        f"/api/v1/me/chats/{pg.room_id}/messages",
        json={"message": {"content": "bad \u0000 byte"}},
        headers=pg.alice,
    )
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "validation_error"
    async with pg.platform.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Message)) == 0


async def test_idempotent_replay_on_postgres(pg: Pg) -> None:
    headers = {**pg.alice, "Idempotency-Key": "pg-1"}
    body: dict[str, Any] = {"message": {"content": f"@{pg.agent_handle} once"}}
    url = f"/api/v1/me/chats/{pg.room_id}/messages"
    one = await pg.client.post(url, json=body, headers=headers)
    two = await pg.client.post(url, json=body, headers=headers)
    assert one.status_code == two.status_code == 201
    assert one.json() == two.json()
    assert two.headers["idempotent-replayed"] == "true"
    async with pg.platform.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Message)) == 1


async def test_a_keyed_post_on_postgres_claims_on_its_message(pg: Pg) -> None:
    """Eight same-key posts at once make one message (its unique key index decides), the rest
    replay it or hear 409; another body is 422; no record row; a day later the key is free."""
    headers = {**pg.alice, "Idempotency-Key": "pg-row"}
    url = f"/api/v1/me/chats/{pg.room_id}/messages"
    body: dict[str, Any] = {"message": {"content": f"@{pg.agent_handle} racing"}}
    answers = await asyncio.gather(
        *(pg.client.post(url, json=body, headers=headers) for _ in range(8))
    )
    assert {r.status_code for r in answers} <= {201, 409}
    made = {r.text for r in answers if r.status_code == 201}
    assert len(made) == 1
    again = await pg.client.post(url, json=body, headers=headers)
    assert again.status_code == 201 and again.text in made
    other = await pg.client.post(url, json={"message": {"content": "other"}}, headers=headers)
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    async with pg.platform.db.write() as session:
        assert await session.scalar(text("SELECT COUNT(*) FROM idempotency_keys")) == 0
        await session.execute(
            text("UPDATE messages SET created_at = created_at - interval '25 hours'")
        )
    later = await pg.client.post(url, json=body, headers=headers)
    assert later.status_code == 201 and "idempotent-replayed" not in later.headers
    async with pg.platform.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Message)) == 2


async def test_nodes_starting_together_migrate_once(tmp_path: Path, pg_url: str) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=pg_url, redis_url=None)
    apps = [create_app(settings) for _ in range(3)]
    async with contextlib.AsyncExitStack() as stack:
        await asyncio.gather(
            *(stack.enter_async_context(app.router.lifespan_context(app)) for app in apps)
        )
        platform: Platform = apps[0].state.platform
        async with platform.db.read() as session:
            version = await session.scalar(text("SELECT version_num FROM alembic_version"))
        assert version is not None


async def test_a_claim_carried_by_the_push(pg: Pg) -> None:
    """On PostgreSQL a post opens attempt 1 for an agent whose socket asked (the ask
    simulated: no socket here), never while the agent has a live attempt in the room; the
    marks then go on from it as from a REST claim."""
    pushes: list[dict[str, Any]] = []
    publish = pg.platform.bus.publish

    async def recording(b: Any) -> None:
        if b.event == "message_created":
            pushes.append(b.payload)
        await publish(b)

    pg.platform.bus.publish = recording  # type: ignore[method-assign]
    pg.platform.claim_on_push = lambda agent_id, room_id: "working"  # type: ignore[method-assign]
    c = pg.client
    first = await person_says(pg, "claimed")
    second = await person_says(pg, "queued")
    mine = [p["metadata"].get("delivery_status", {}).get(pg.agent_id) for p in pushes]
    assert mine[0]["status"] == "processing" and mine[0]["current_attempt"] == 1
    assert mine[1] is None  # the first's attempt is live: a plain delivery
    assert pg.platform.activity.is_working(pg.room_id, pg.agent_id)

    listing = (await c.get(f"/api/v1/me/chats/{pg.room_id}/messages", headers=pg.alice)).json()
    statuses = {m["id"]: m["metadata"].get("delivery_status", {}) for m in listing["data"]}
    assert statuses[first][pg.agent_id] == mine[0]
    assert statuses[second][pg.agent_id]["status"] == "delivered"

    assert (await c.get(pg.room("/messages/next"), headers=pg.agent)).json()["data"]["id"] == first
    assert (await c.post(pg.room(f"/messages/{first}/processed"), headers=pg.agent)).is_success
    assert not pg.platform.activity.is_working(pg.room_id, pg.agent_id)
    assert (await c.post(pg.room(f"/messages/{second}/processing"), headers=pg.agent)).is_success
    done = await c.post(pg.room(f"/messages/{second}/processed"), headers=pg.agent)
    assert done.json()["data"]["status"] == "processed"
    listing = (await c.get(f"/api/v1/me/chats/{pg.room_id}/messages", headers=pg.alice)).json()
    for m in listing["data"]:
        if m["id"] in (first, second):
            status = m["metadata"]["delivery_status"][pg.agent_id]
            assert (status["status"], status["current_attempt"]) == ("processed", 1)
