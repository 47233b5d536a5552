"""PostgreSQL stopped under two nodes: ``/health`` on each says the database is down (503),
requests that need it answer 503 in the envelope with ``Retry-After`` (never a 500, never a
hang), nothing changes, and everything comes back with the database."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from band_server.config import Settings

from .nodes import Node, serve
from .real_services import PostgresServer, RedisServer
from .test_two_nodes import World, make_world

WITHIN = 30.0
# A request must be answered well inside this (the connect timeout is 5 s): a hang fails.
ANSWER_WITHIN = 20.0


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster of this test alone: it is stopped and started under the nodes."""
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
async def nodes(
    tmp_path: Path, own_postgres: PostgresServer, redis_server: RedisServer
) -> AsyncIterator[tuple[Node, Node]]:
    url = await own_postgres.create_database()
    settings = Settings(data_dir=tmp_path / "data", database_url=url, redis_url=redis_server.url)
    async with serve(settings) as a, serve(settings) as b:
        yield a, b


async def _health(node: Node) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url, timeout=ANSWER_WITHIN) as c:
        return await c.get("/health")


async def _health_until(node: Node, status: int) -> dict[str, Any]:
    deadline = time.monotonic() + WITHIN
    while True:
        r = await _health(node)
        if r.status_code == status:
            body: dict[str, Any] = r.json()
            return body
        assert time.monotonic() < deadline, f"/health stayed {r.status_code}: {r.text}"
        await asyncio.sleep(0.2)


def _requests(w: World) -> list[tuple[str, str, str, dict[str, Any] | None, dict[str, str]]]:
    """(method, path, key, body, extra headers): both surfaces, reads and writes, the fast
    lane and FastAPI's own routes, a keyed POST, a key no node has cached."""
    post = {"message": {"content": f"@{w.agent_handle} while the database is down"}}
    return [
        ("GET", "/api/v1/me/chats", w.user_key, None, {}),
        ("GET", f"/api/v1/me/chats/{w.room_id}/messages", w.user_key, None, {}),
        ("POST", f"/api/v1/me/chats/{w.room_id}/messages", w.user_key, post, {}),
        (
            "POST",
            f"/api/v1/me/chats/{w.room_id}/messages",
            w.user_key,
            post,
            {"idempotency-key": "k1"},
        ),
        ("GET", "/api/v1/agent/me", w.agent_key, None, {}),
        ("GET", f"/api/v1/agent/chats/{w.room_id}/participants", w.agent_key, None, {}),
        ("GET", f"/api/v1/agent/chats/{w.room_id}/messages/next", w.agent_key, None, {}),
        ("GET", "/api/v1/me/chats", "band_u_never-seen-by-any-node", None, {}),
    ]


async def _assert_unavailable(node: Node, w: World) -> None:
    async with httpx.AsyncClient(base_url=node.url, timeout=ANSWER_WITHIN) as c:
        for method, path, key, body, extra in _requests(w):
            r = await c.request(method, path, json=body, headers={"x-api-key": key, **extra})
            assert r.status_code == 503, (method, path, r.status_code, r.text)
            error = r.json()["error"]
            assert error["code"] == "unavailable" and error["request_id"], (path, error)
            assert int(r.headers["retry-after"]) > 0, path
    query = f"vsn=2.0.0&agent_id={w.agent_id}"
    with pytest.raises(InvalidStatus) as refused:
        async with connect(f"{node.ws_url}?{query}", additional_headers={"x-api-key": w.agent_key}):
            pass
    assert refused.value.response.status_code == 503


async def test_database_stopped_and_started_under_two_nodes(
    nodes: tuple[Node, Node], own_postgres: PostgresServer
) -> None:
    a, b = nodes
    w = await make_world(a)
    for node in nodes:
        assert (await _health(node)).status_code == 200
    own_postgres.pause()
    try:
        for node in nodes:
            down = await _health_until(node, 503)
            assert down["error"]["message"] == "unreachable: database"
            checks = down["error"]["details"]["checks"]
            assert checks["database"]["ok"] is False and checks["redis"]["ok"] is True
            await _assert_unavailable(node, w)
    finally:
        own_postgres.resume()
    for node in nodes:
        await _health_until(node, 200)
    headers = {"x-api-key": w.user_key}
    async with httpx.AsyncClient(base_url=b.url, headers=headers, timeout=ANSWER_WITHIN) as c:
        history = (await c.get(f"/api/v1/me/chats/{w.room_id}/messages")).json()["data"]
        assert not [m for m in history if "database is down" in m["content"]], history
        r = await c.post(
            f"/api/v1/me/chats/{w.room_id}/messages",
            json={"message": {"content": "back"}},
            headers={"idempotency-key": "k1"},
        )
        assert r.status_code == 201, r.text
