"""``/health`` on nodes sharing PostgreSQL and Redis: it says so while Redis is down."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from .nodes import Node
from .real_services import RedisServer


async def _health_until(node: Node, status: int, within: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    async with httpx.AsyncClient(base_url=node.url, timeout=10) as c:
        while True:
            r = await c.get("/health")
            if r.status_code == status:
                body: dict[str, Any] = r.json()
                return body
            assert time.monotonic() < deadline, f"/health stayed {r.status_code}: {r.text}"
            await asyncio.sleep(0.2)


async def test_health_follows_redis_down_and_back(
    two_nodes: tuple[Node, Node], redis_server: RedisServer
) -> None:
    for node in two_nodes:
        body = await _health_until(node, 200)
        assert {name: c["ok"] for name, c in body["checks"].items()} == {
            "database": True,
            "redis": True,
        }
    redis_server.stop()
    try:
        for node in two_nodes:
            down = await _health_until(node, 503)
            error = down["error"]
            assert error["message"] == "unreachable: redis"
            assert error["details"]["checks"]["database"]["ok"] is True
    finally:
        redis_server.start()  # same port
    for node in two_nodes:
        await _health_until(node, 200)
