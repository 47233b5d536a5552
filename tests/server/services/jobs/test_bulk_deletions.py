"""Bulk deletions run as durable background jobs: polled to the end, resumed after a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.services.identity.principals import Principal
from band_server.services.jobs import bulk_deletions
from conftest import Seeded, make_user


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


async def _finished(client: httpx.AsyncClient, key: str, job_id: str) -> dict[str, Any]:
    for _ in range(300):
        r = await client.get(f"/api/v1/me/bulk-deletions/{job_id}", headers=h(key))
        assert r.status_code == 200, r.text
        job: dict[str, Any] = r.json()["data"]
        if job["status"] in ("completed", "failed"):
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} never finished")


async def test_bulk_chat_deletion_reports_each_target_in_order(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key = await make_user(platform, "bob")
    mine = [
        (await client.post("/api/v1/me/chats", json={}, headers=h(seeded.user_key))).json()["data"][
            "id"
        ]
        for _ in range(2)
    ]
    bobs = (await client.post("/api/v1/me/chats", json={}, headers=h(bob_key))).json()["data"]
    r = await client.post(
        "/api/v1/me/chats/bulk-delete",
        json={"ids": [mine[0], bobs["id"], "not-an-id", mine[1]]},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 202, r.text
    assert r.headers["location"] == f"/api/v1/me/bulk-deletions/{r.json()['data']['id']}"
    job = await _finished(client, seeded.user_key, r.json()["data"]["id"])
    assert job["status"] == "completed" and (job["succeeded"], job["failed"]) == (2, 2)
    assert [i["status"] for i in job["results"]] == ["succeeded", "failed", "failed", "succeeded"]
    assert [i["error"]["code"] for i in job["results"] if i.get("error")] == ["not_found"] * 2
    for room in mine:
        assert (
            await client.get(f"/api/v1/me/chats/{room}", headers=h(seeded.user_key))
        ).status_code == 404
    assert (
        await client.get(f"/api/v1/me/chats/{bobs['id']}", headers=h(bob_key))
    ).status_code == 200
    # Someone else's job is 404, like an unknown one.
    r = await client.get(f"/api/v1/me/bulk-deletions/{job['id']}", headers=h(bob_key))
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


async def test_bulk_deletion_refuses_bad_bodies(client: httpx.AsyncClient, seeded: Seeded) -> None:
    cases = [
        ("/api/v1/me/chats/bulk-delete", {"ids": []}),
        ("/api/v1/me/chats/bulk-delete", {"ids": ["x"] * 101}),
        ("/api/v1/me/chats/bulk-delete", {"ids": "x"}),
        ("/api/v1/me/agents/bulk-delete", {"ids": [seeded.agent_id], "force": "true"}),
        ("/api/v1/me/agents/bulk-delete", {}),
    ]
    for url, body in cases:
        r = await client.post(url, json=body, headers=h(seeded.user_key))
        assert r.status_code == 422, (body, r.text)
        assert r.json()["error"]["code"] == "validation_error"
    r = await client.post(
        "/api/v1/me/agents/bulk-delete",
        json={"ids": [seeded.agent_id]},
        headers=h(seeded.agent_key),
    )
    assert r.status_code == 403
    agent = await client.get(f"/api/v1/me/agents/{seeded.agent_id}", headers=h(seeded.user_key))
    assert agent.status_code == 200  # nothing was deleted


async def test_an_accepted_job_is_resumed_when_the_platform_starts(
    app: FastAPI, settings: Settings, seeded: Seeded
) -> None:
    platform: Platform = app.state.platform
    me = Principal("user", seeded.user_id, "Alice", "alice")
    # Accepted but never started (the node died right after the commit).
    async with platform.db.write() as session:
        job = await bulk_deletions.accept(session, me, "agent", [seeded.agent_id], force=False)
    restarted = create_app(settings)
    async with restarted.router.lifespan_context(restarted):
        transport = httpx.ASGITransport(app=restarted)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as client:
            done = await _finished(client, seeded.user_key, job.id)
            assert done["status"] == "completed" and done["succeeded"] == 1, done
            gone = await client.get(
                f"/api/v1/me/agents/{seeded.agent_id}", headers=h(seeded.user_key)
            )
            assert gone.status_code == 404
