"""Database refusals become envelopes: a lost unique race is 409, a refused value 422."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, OperationalError


class FakeDriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"driver error {sqlstate}")
        self.sqlstate = sqlstate


RAISERS: dict[str, DBAPIError] = {
    "unique": IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed")),
    "data": DataError("INSERT", {}, Exception("value too long")),
    # asyncpg reports a NUL character as a plain driver error with SQLSTATE 22021.
    "nul": DBAPIError("INSERT", {}, FakeDriverError("22021")),
    "unique_by_state": DBAPIError("INSERT", {}, FakeDriverError("23505")),
    "down": OperationalError("SELECT", {}, Exception("connection refused")),
}


@pytest.fixture
def raising_app(app: FastAPI) -> FastAPI:
    for name, exc in RAISERS.items():
        app.add_api_route(f"/test-raise/{name}", raiser(exc), methods=["POST"])
    return app


def raiser(exc: DBAPIError) -> Callable[[], Awaitable[None]]:
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
        ("down", 500, "internal_error"),
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
