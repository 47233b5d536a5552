"""Driving the web app as a browser would, without one: forms, cookies, CSRF tokens."""

from __future__ import annotations

import re
from typing import Any

import httpx

from band_server.context import Platform
from band_server.services.identity import accounts

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
JSON = {"Accept": "application/json"}


def csrf_of(page: httpx.Response) -> str:
    found = CSRF.search(page.text)
    assert found, page.text
    return found[1]


async def sign_in(client: httpx.AsyncClient, key: str) -> httpx.Response:
    """Open the sign-in form, then send it with the key."""
    form = await client.get("/login")
    return await client.post("/login", data={"api_key": key, "csrf": csrf_of(form)})


async def token(client: httpx.AsyncClient, path: str = "/rooms") -> str:
    """The session's CSRF token, read from a page."""
    return csrf_of(await client.get(path))


async def act(
    client: httpx.AsyncClient, path: str, data: dict[str, Any] | None = None, *, csrf: str
) -> httpx.Response:
    """A state-changing request as the page's script sends it (form body, JSON answer)."""
    return await client.post(path, data={**(data or {}), "csrf": csrf}, headers=JSON)


async def make_admin(platform: Platform, handle: str = "root") -> tuple[str, str]:
    async with platform.db.write() as session:
        user, key = await accounts.create_user(
            session, name=handle.title(), handle=handle, is_admin=True
        )
        return user.id, key
