"""``GET /health``: whether this node can serve, judged by its dependencies, right now.

Each check runs with a short timeout on every call (nothing is cached): the database answers
``SELECT 1``, and when Redis is configured, Redis answers a ``PING`` and the node's fan-out
subscription is live. All good: 200 with the checks. Any dependency down: 503 with the error
envelope, the checks in ``details`` and ``Retry-After``, so a balancer takes the node out of
rotation and a client knows to wait. ``/healthz`` stays a bare liveness probe. While a node
still waits for a dependency at start, both answer 503 naming it (``startup.NodeStart``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from band_server.context import Platform
from band_server.http.errors import RETRY_AFTER_SECONDS, error_response

router = APIRouter(tags=["health"])

CHECK_TIMEOUT = 2.0


async def _timed(probe: Any) -> dict[str, Any]:
    """Run one probe; ``{"ok", "latency_ms", "error"?}``."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            problem = await probe()
    except TimeoutError:
        problem = f"no answer within {CHECK_TIMEOUT:g}s"
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"[:300]
    result: dict[str, Any] = {
        "ok": problem is None,
        "latency_ms": round((time.monotonic() - started) * 1000, 1),
    }
    if problem is not None:
        result["error"] = problem
    return result


async def check_dependencies(platform: Platform) -> dict[str, dict[str, Any]]:
    """Every dependency of this node, checked concurrently."""

    async def database() -> str | None:
        async with platform.db.read() as session:
            await session.execute(text("SELECT 1"))
        return None

    probes: dict[str, Any] = {"database": database}
    if platform.settings.redis_url:
        probes["redis"] = platform.bus.health
    results = await asyncio.gather(*(_timed(p) for p in probes.values()))
    return dict(zip(probes, results, strict=True))


HEALTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "Every dependency answers: `{status: ok, checks: {...}}`"},
    503: {"description": "A dependency is down: the error envelope, checks in `details`"},
}


@router.get("/health", responses=HEALTH_RESPONSES, response_model=None)
async def health(request: Request) -> JSONResponse:
    """Readiness of this node: database reachable, and Redis too when it is configured."""
    platform: Platform = request.app.state.platform
    checks = await check_dependencies(platform)
    down = sorted(name for name, result in checks.items() if not result["ok"])
    headers = {"cache-control": "no-store"}
    if not down:
        return JSONResponse({"status": "ok", "checks": checks}, headers=headers)
    return error_response(
        request,
        503,
        "unavailable",
        f"unreachable: {', '.join(down)}",
        {"checks": checks},
        headers={**headers, "retry-after": str(RETRY_AFTER_SECONDS)},
    )
