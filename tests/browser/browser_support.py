"""Pieces the browser tests share: Chromium's launch, screenshots, people, the platform.

The browser is Debian's ``chromium`` driven by Playwright (nothing downloaded), launched once
per session; each test gets its own context (its own cookies). The platform is our server in
a child process (``tests/e2e/e2e_support.ServerChild``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from e2e_support import ServerChild

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(
    os.environ.get("BAND_SCREENSHOTS", Path(__file__).resolve().parent / "screenshots")
)
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TIMEOUT_MS = 20_000
FILE_LIMIT = 1024 * 1024
"""The shared platform's upload limit (``BAND_MAX_FILE_BYTES``): small, so that refusing an
oversized file needs no big file."""

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "FILE_LIMIT",
    "SCREENSHOTS",
    "AgentRoom",
    "Platform",
    "ServerChild",
    "Shots",
    "agent_room",
    "new_room",
    "post_as",
    "sign_in",
    "web_client",
]


@dataclass
class Shots:
    """Numbered screenshots of one test's pages, in a folder of its own."""

    folder: Path
    count: int = 0

    async def take(self, page: Any, name: str, *, full_page: bool = False) -> Path:
        self.count += 1
        path = self.folder / f"{self.count:02d}-{name}.png"
        await page.screenshot(path=str(path), full_page=full_page)
        return path


@dataclass
class Platform:
    """A running server and its admin (the first person), who adds people through the web
    app's People page, as an operator would."""

    server: ServerChild
    admin_key: str
    made: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    async def add_person(self, name: str, handle: str) -> str:
        """A new person, created on the People page; returns their API key."""
        async with web_client(self.url, self.admin_key) as (web, csrf):
            made = await web.post(
                "/people",
                data={"name": name, "handle": handle, "csrf": csrf},
                headers={"Accept": "application/json"},
            )
            assert made.status_code == 201, made.text
            self.made.append(handle)
            return str(made.json()["api_key"])


@asynccontextmanager
async def second_browser(browser: Any) -> AsyncIterator[Any]:
    """Another person's browser beside the test's page: a context of its own (its own
    cookies), the same size and timeouts, closed after."""
    context = await browser.new_context(viewport={"width": 1280, "height": 820})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        await context.close()


@asynccontextmanager
async def web_client(url: str, key: str) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """The web app without a browser, signed in with ``key``: the client and its CSRF token."""
    async with httpx.AsyncClient(base_url=url, timeout=10) as web:
        form = await web.get("/login")
        token = CSRF.search(form.text)
        assert token, form.text
        await web.post("/login", data={"api_key": key, "csrf": token[1]})
        page = await web.get("/rooms")
        token = CSRF.search(page.text)
        assert token, page.text
        yield web, token[1]


async def new_room(url: str, key: str, title: str, *participants: str) -> str:
    """A room the person makes through the web app, with these agents or contacts (ids)."""
    async with web_client(url, key) as (web, csrf):
        made = await web.post(
            "/rooms",
            data={"title": title, "participant": list(participants), "csrf": csrf},
            headers={"Accept": "application/json"},
        )
        assert made.status_code == 201, made.text
        return str(made.json()["id"])


async def post_as(url: str, key: str, room: str, content: str, **fields: Any) -> dict[str, Any]:
    """A person's message through the REST API (``fields``: attachment_ids, ...)."""
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        sent = await http.post(
            f"/api/v1/me/chats/{room}/messages",
            headers={"X-API-Key": key},
            json={"message": {"content": content, **fields}},
        )
        assert sent.status_code == 201, sent.text
        data: dict[str, Any] = sent.json()["data"]
        return data


async def sign_in(page: Any, url: str, key: str) -> None:
    """The API-key sign-in form (behind its link on the sign-in page), as a person fills it;
    ends on the Rooms page."""
    from playwright.async_api import expect

    await page.goto(url + "/")
    await page.get_by_role("link", name="Sign in with an API key").click()
    await page.get_by_label("API key").fill(key)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("heading", name="Rooms", exact=True)).to_be_visible()
    # The heading shows before the deferred scripts have run: a key pressed on a loaded
    # machine before then would reach a button with no handler yet.
    await page.wait_for_load_state("load")


@dataclass(frozen=True)
class AgentRoom:
    """A room made through the web app with one new agent of the person's in it."""

    url: str  # the room page's path
    id: str
    agent_id: str
    agent_key: str


async def agent_room(
    url: str,
    key: str,
    name: str = "Helper Bot",
    description: str = "Summarises long threads.",
    title: str = "",
) -> AgentRoom:
    """Connect an agent and create a room with it (no browser: the steps are tested elsewhere)."""
    async with web_client(url, key) as (web, csrf):
        made = await web.post(
            "/agents",
            data={"name": name, "description": description, "csrf": csrf},
            headers={"Accept": "application/json"},
        )
        assert made.status_code == 201, made.text
        agent_id, agent_key = made.json()["agent_id"], made.json()["api_key"]
        room = await web.post(
            "/rooms",
            data={"participant": agent_id, "title": title, "csrf": csrf},
            headers={"Accept": "application/json"},
        )
        assert room.status_code == 201, room.text
        return AgentRoom(room.json()["url"], room.json()["id"], agent_id, agent_key)


async def bootstrap(server: ServerChild) -> str:
    """Start a fresh platform; its first person is the admin. Returns the admin's key."""
    from band_server.admin import bootstrap_admin
    from band_server.config import Settings

    created = await bootstrap_admin(
        Settings(data_dir=server.data_dir, database_url=None, redis_url=None)
    )
    assert created is not None
    await server.start()
    return created.api_key
