"""Database refusals become envelopes: a lost unique race is 409, a refused value 422, a
database out of reach 503 with ``Retry-After``, anything else 500."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from band_server.context import Platform


class FakeDriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"driver error {sqlstate}")
        self.sqlstate = sqlstate


RAISERS: dict[str, BaseException] = {
    "unique": IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed")),
    "data": DataError("INSERT", {}, Exception("value too long")),
    # asyncpg reports a NUL character as a plain driver error with SQLSTATE 22021.
    "nul": DBAPIError("INSERT", {}, FakeDriverError("22021")),
    "unique_by_state": DBAPIError("INSERT", {}, FakeDriverError("23505")),
    "down": OperationalError("SELECT", {}, ConnectionRefusedError(111, "Connect call failed")),
    "cut": InterfaceError("SELECT", {}, FakeDriverError("08003"), connection_invalidated=True),
    "shutdown": OperationalError("SELECT", {}, FakeDriverError("57P01")),
    "pool": PoolTimeout("QueuePool limit reached, connection timed out"),
    "refused_raw": ConnectionRefusedError(111, "Connect call failed"),
    "locked": OperationalError("INSERT", {}, sqlite3.OperationalError("database is locked")),
    "our_bug": OperationalError("SELECT", {}, sqlite3.OperationalError("no such table: x")),
    "other": RuntimeError("a bug"),
}


@pytest.fixture
def raising_app(app: FastAPI) -> FastAPI:
    for name, exc in RAISERS.items():
        app.add_api_route(f"/test-raise/{name}", raiser(exc), methods=["POST"])
    return app


def raiser(exc: BaseException) -> Callable[[], Awaitable[None]]:
    async def boom() -> None:
        raise exc

    return boom


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("unique", 409, "conflict"),
        ("unique_by_state", 409, "conflict"),
        ("data", 422, "validation_error"),
        ("nul", 422, "validation_error"),
        ("down", 503, "unavailable"),
        ("cut", 503, "unavailable"),
        ("shutdown", 503, "unavailable"),
        ("pool", 503, "unavailable"),
        ("refused_raw", 503, "unavailable"),
        ("locked", 503, "unavailable"),
        ("our_bug", 500, "internal_error"),
        ("other", 500, "internal_error"),
    ],
)
async def test_database_errors_map_to_envelopes(
    raising_app: FastAPI, name: str, status: int, code: str
) -> None:
    transport = httpx.ASGITransport(app=raising_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
        r = await c.post(f"/test-raise/{name}")
    assert r.status_code == status
    assert r.json()["error"]["code"] == code
    assert r.json()["error"]["request_id"]
    assert ("retry-after" in r.headers) == (status == 503)


async def test_a_key_check_that_cannot_reach_the_database_is_503(
    app: FastAPI, platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before any route runs (the fast lane, the idempotency middleware, FastAPI's own
    dependency): 503 in the envelope, not a 500 and not a 401."""

    async def unreachable(key: str | None) -> None:
        raise OperationalError("SELECT", {}, ConnectionRefusedError(111, "Connect call failed"))

    monkeypatch.setattr(platform, "authenticate", unreachable)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    key = {"x-api-key": "band_a_whatever"}
    async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
        answers = [
            await c.get("/api/v1/agent/me", headers=key),  # the fast lane
            await c.get("/api/v1/me/chats?limit=5", headers=key),  # FastAPI's dependency
            await c.post(  # the idempotency middleware checks the key first
                "/api/v1/me/chats",
                json={"chat": {"title": "x"}},
                headers={**key, "idempotency-key": "k"},
            ),
        ]
    for r in answers:
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "unavailable"
        assert r.headers["retry-after"] == "5"
