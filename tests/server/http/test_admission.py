"""Admission (issue 26): past ``max_in_flight`` requests under way, a new request is answered
503 ``overloaded`` in the envelope with ``Retry-After`` and changes nothing; the health checks
and ``/metrics`` still answer; below the limit again, requests are served; the OpenAPI
document declares the answer; our SDK waits what ``Retry-After`` says and then succeeds.

The requests under way are stood in for by the node's own counter (``Front.in_flight``), the
number the admission reads: a request is only ever refused on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from band.platform._http import HttpCore
from band_server.config import Settings
from band_server.http.front import Front
from conftest import Seeded

LIMIT = 4


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=None, redis_url=None, max_in_flight=LIMIT
    )


@contextmanager
def under_way(app: FastAPI, requests: int) -> Iterator[None]:
    """As if ``requests`` more requests were under way on the node."""
    front = app.http_stack
    assert isinstance(front, Front)
    front.in_flight.count += requests
    try:
        yield
    finally:
        front.in_flight.count -= requests


async def _room(client: httpx.AsyncClient, s: Seeded) -> str:
    made = await client.post("/api/v1/me/chats", json={}, headers={"X-API-Key": s.user_key})
    assert made.status_code == 201, made.text
    return str(made.json()["data"]["id"])


async def _history(client: httpx.AsyncClient, s: Seeded, room: str) -> list[str]:
    read = await client.get(f"/api/v1/me/chats/{room}/messages", headers={"X-API-Key": s.user_key})
    assert read.status_code == 200, read.text
    return [m["content"] for m in read.json()["data"]]


async def test_past_the_limit_a_request_is_answered_503_overloaded_and_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room = await _room(client, seeded)
    post = {"message": {"content": "while overloaded"}}
    headers = {"X-API-Key": seeded.user_key}
    with under_way(app, LIMIT - 1):  # this request makes LIMIT: still taken
        taken = await client.get(f"/api/v1/me/chats/{room}/messages", headers=headers)
        assert taken.status_code == 200, taken.text
    with under_way(app, LIMIT):
        refused = await client.post(f"/api/v1/me/chats/{room}/messages", json=post, headers=headers)
        assert refused.status_code == 503, refused.text
        assert refused.headers["retry-after"] == "1"
        error = refused.json()["error"]
        assert error["code"] == "overloaded"
        assert error["request_id"] and "retry" in error["message"].lower()
        page = await client.get("/rooms")
        assert page.status_code == 503 and page.json()["error"]["code"] == "overloaded"
        for always in ("/healthz", "/health", "/metrics"):
            seen = await client.get(always)
            assert seen.status_code == 200, (always, seen.text)
    assert await _history(client, seeded, room) == []  # the refused post left nothing
    served = await client.post(f"/api/v1/me/chats/{room}/messages", json=post, headers=headers)
    assert served.status_code == 201, served.text
    assert await _history(client, seeded, room) == ["while overloaded"]
    metrics = (await client.get("/metrics")).text
    assert 'status="503"' in metrics  # refused answers are counted like any other


async def test_the_openapi_document_declares_the_overloaded_answer(
    client: httpx.AsyncClient,
) -> None:
    doc = (await client.get("/openapi.json")).json()
    answer = doc["paths"]["/api/v1/agent/chats/{chat_id}/messages"]["post"]["responses"]["503"]
    assert "overloaded" in answer["description"]
    assert "Retry-After" in answer["headers"]
    assert answer["content"]["application/json"]["schema"]["$ref"].endswith("ErrorEnvelope")


@pytest.fixture
async def sdk(app: FastAPI, seeded: Seeded) -> AsyncIterator[HttpCore]:
    core = HttpCore("http://band.test", seeded.agent_key, transport=httpx.ASGITransport(app=app))
    try:
        yield core
    finally:
        await core.aclose()


async def test_the_sdk_waits_what_retry_after_says_then_succeeds(
    app: FastAPI, client: httpx.AsyncClient, seeded: Seeded, sdk: HttpCore
) -> None:
    room = await _room(client, seeded)
    invite = {"participant": {"participant_id": seeded.agent_id}}
    added = await client.post(
        f"/api/v1/me/chats/{room}/participants", json=invite, headers={"X-API-Key": seeded.user_key}
    )
    assert added.status_code == 201, added.text
    slept: list[float] = []
    crowd = app.http_stack
    assert isinstance(crowd, Front)

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 2:  # the node has caught up after the second refusal
            crowd.in_flight.count -= LIMIT

    sdk.sleep = sleep
    crowd.in_flight.count += LIMIT
    body = {"event": {"content": "after the crowd", "message_type": "thought"}}
    data = await sdk.call("POST", f"/agent/chats/{room}/events", json=body)
    assert slept == [1.0, 1.0]  # Retry-After, not the SDK's own backoff (0.5 s, then 1 s)
    assert data["message_type"] == "thought"
    assert sdk.request_count == 3
    assert await _history(client, seeded, room) == ["after the crowd"]  # posted once
