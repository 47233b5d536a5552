"""``GET /health`` tells the truth about this node's dependencies (database, Redis)."""

from __future__ import annotations

import httpx
import pytest

from band_server.context import Platform
from band_server.store.db import Database
from conftest import free_port


async def test_healthy_node_answers_200_with_its_checks(client: httpx.AsyncClient) -> None:
    r = await client.get("/health")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert "redis" not in body["checks"]  # not configured on this node
    assert r.headers["cache-control"] == "no-store"


async def test_unreachable_database_answers_503_with_the_envelope(
    client: httpx.AsyncClient, platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A database nobody listens on: what a node sees while PostgreSQL is down.
    gone = Database(f"postgresql+asyncpg://band@127.0.0.1:{free_port()}/band")
    monkeypatch.setattr(platform, "db", gone)
    try:
        r = await client.get("/health")
    finally:
        await gone.dispose()
    assert r.status_code == 503, r.text
    error = r.json()["error"]
    assert error["code"] == "unavailable"
    assert error["message"] == "unreachable: database"
    assert error["details"]["checks"]["database"]["ok"] is False
    assert error["details"]["checks"]["database"]["error"]
    assert error["request_id"]
    assert r.headers["retry-after"] == "5"


async def test_health_is_documented(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    responses = spec["paths"]["/health"]["get"]["responses"]
    assert {"200", "503"} <= responses.keys()
