"""Single sign-on in Chromium against a real OpenID provider (npm ``oidc-provider``, started
here on loopback): a first sign-in creates the person from their verified email, an existing
person is linked by email, an email of another domain or an unverified one is refused in
words, and a callback without this browser's state is refused."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from .browser_support import TIMEOUT_MS, ServerChild, Shots, bootstrap, web_client

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / ".tools" / "node" / "node_modules" / ".bin" / "node"
OIDC_PROVIDER = ROOT / ".tools" / "oidc-provider"
SCRIPT = Path(__file__).resolve().parent / "oidc" / "provider.mjs"
CLIENT_ID, CLIENT_SECRET = "band-web", "a-client-secret-for-tests-only"

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180)]

if not (NODE.exists() and (OIDC_PROVIDER / "node_modules" / "oidc-provider").exists()):
    if os.environ.get("BAND_REQUIRE_OIDC"):
        raise RuntimeError(f"oidc-provider or Node is missing ({OIDC_PROVIDER}, {NODE})")
    pytest.skip(
        "npm oidc-provider is not installed (scripts/test installs it)", allow_module_level=True
    )


@dataclass
class Sso:
    url: str  # our platform
    admin_key: str


@pytest.fixture(scope="module")
def provider_port() -> int:
    from e2e_support import free_port

    return free_port()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def sso(tmp_path_factory: pytest.TempPathFactory, provider_port: int) -> AsyncIterator[Sso]:
    """Our platform configured for the provider, and the provider with our callback
    registered (the platform's port is chosen first)."""
    base = tmp_path_factory.mktemp("sso")
    issuer = f"http://127.0.0.1:{provider_port}"
    server = ServerChild(
        base / "data",
        base / "logs",
        env={
            "BAND_OIDC_ISSUER": issuer,
            "BAND_OIDC_CLIENT_ID": CLIENT_ID,
            "BAND_OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "BAND_OIDC_ALLOWED_DOMAINS": "example.org",
            "BAND_OIDC_CREATE_USERS": "1",
        },
    )
    node, log = start_provider(base / "provider.log", provider_port, server.url)
    try:
        for _ in range(100):
            if "ready" in (base / "provider.log").read_text():
                break
            assert node.poll() is None, (base / "provider.log").read_text()
            await asyncio.sleep(0.1)
        admin_key = await bootstrap(server)
        yield Sso(server.url, admin_key)
    finally:
        server.stop()
        node.terminate()
        node.wait(timeout=10)
        log.close()


def start_provider(
    log_path: Path, port: int, platform_url: str
) -> tuple[subprocess.Popen[bytes], Any]:
    log = log_path.open("wb")
    node = subprocess.Popen(
        [str(NODE), str(SCRIPT), str(OIDC_PROVIDER), str(port), CLIENT_ID, CLIENT_SECRET,
         f"{platform_url}/login/oidc/callback"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    return node, log


async def through_provider(page: Page, url: str, login: str, shots: Shots | None = None) -> None:
    """Our sign-in page → "Sign in with single sign-on" → the provider's login and consent."""
    await page.goto(url + "/login")
    await page.get_by_role("link", name="Sign in with single sign-on").click()
    await page.get_by_placeholder("Enter any login").fill(login)
    await page.get_by_placeholder("and password").fill("anything")
    if shots:
        await shots.take(page, "provider-login")
    await page.get_by_role("button", name="Sign-in").click()
    await page.get_by_role("button", name="Continue").click()


async def test_a_first_sign_in_creates_the_person_and_an_email_links_an_existing_one(
    browser: Browser, sso: Sso, shots: Shots
) -> None:
    async with web_client(sso.url, sso.admin_key) as (web, csrf):
        made = await web.post(
            "/people",
            data={
                "name": "Linus Known",
                "handle": "linus",
                "email": "linus@example.org",
                "csrf": csrf,
            },
            headers={"Accept": "application/json"},
        )
        assert made.status_code == 201, made.text

    for login, name in (("ada", "Ada Lovelace"), ("linus", "Linus Known")):
        context = await browser.new_context()
        context.set_default_timeout(TIMEOUT_MS)
        try:
            page = await context.new_page()
            await through_provider(page, sso.url, login, shots if login == "ada" else None)
            await expect(page.get_by_role("heading", name="Rooms", exact=True)).to_be_visible()
            await expect(page.locator(".account-name")).to_have_text(name)
            await shots.take(page, f"signed-in-{login}")
        finally:
            await context.close()
    async with web_client(sso.url, sso.admin_key) as (web, _):
        people = (await web.get("/people")).text
    assert people.count("linus@example.org") == 1 and "ada@example.org" in people


async def test_other_domains_unverified_emails_and_forged_callbacks_are_refused(
    browser: Browser, sso: Sso, shots: Shots
) -> None:
    for login, words in (
        ("eve", "Accounts of that email domain can't sign in here"),
        ("una", "did not confirm a verified email address"),
    ):
        context = await browser.new_context()
        context.set_default_timeout(TIMEOUT_MS)
        try:
            page = await context.new_page()
            await through_provider(page, sso.url, login)
            await expect(page.get_by_role("alert")).to_contain_text(words)
            await shots.take(page, f"refused-{login}")
            assert "band_session" not in {c["name"] for c in await context.cookies()}
        finally:
            await context.close()
    context = await browser.new_context()
    try:
        page = await context.new_page()
        forged = await page.goto(f"{sso.url}/login/oidc/callback?state=guess&code=stolen")
        assert forged is not None and forged.status == 403
        await expect(page.get_by_role("alert")).to_contain_text("expired or came from another site")
    finally:
        await context.close()
