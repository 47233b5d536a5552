"""With tracing on, a mention's delivery status on the room page links to its trace (issue
36): the link goes to the trace viewer the platform names, with the message's trace id."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from compat.otlp_receiver import OtlpReceiver

from .browser_support import Platform, ServerChild, Shots, agent_room, bootstrap, sign_in

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

VIEWER = "http://traces.example.test/trace/{trace_id}"


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as r:
        yield r


@pytest_asyncio.fixture(loop_scope="session")
async def traced_band(tmp_path: Path, receiver: OtlpReceiver) -> AsyncIterator[Platform]:
    env = {**receiver.env("band-server"), "BAND_TRACE_URL": VIEWER}
    server = ServerChild(tmp_path / "data", tmp_path / "logs", env=env)
    try:
        yield Platform(server, await bootstrap(server))
    finally:
        server.stop()


async def test_a_mentions_delivery_links_to_its_trace(
    page: Page, traced_band: Platform, shots: Shots
) -> None:
    key = await traced_band.add_person("Grace Hopper", "grace")
    made = await agent_room(traced_band.url, key)
    await sign_in(page, traced_band.url, key)
    await page.goto(traced_band.url + made.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_label("Message", exact=True)
    await composer.fill("@Helper Bot where did the time go?")
    await composer.press("Enter")
    timeline = page.get_by_role("list", name="Messages")
    await expect(timeline.locator(".delivery")).to_have_text("Helper Botdelivered")
    async with httpx.AsyncClient(base_url=traced_band.url, headers={"X-API-Key": key}) as c:
        listed = (await c.get(f"/api/v1/me/chats/{made.id}/messages")).json()["data"]
    stored = next(m for m in listed if "where did the time go" in m["content"])
    trace_id = stored["metadata"].get("trace_id")
    assert re.fullmatch(r"[0-9a-f]{32}", trace_id)
    link = timeline.get_by_role("link", name=f"trace {trace_id[:8]}")
    await expect(link).to_have_attribute("href", VIEWER.replace("{trace_id}", trace_id))
    await expect(link).to_have_attribute("rel", "noopener noreferrer")
    await shots.take(page, "delivery-with-trace-link")
    await page.reload()  # drawn again from the timeline's JSON, not only from the push
    await expect(timeline.get_by_role("link", name=f"trace {trace_id[:8]}")).to_be_visible()
