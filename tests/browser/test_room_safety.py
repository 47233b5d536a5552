"""A room in the browser is safe and private: content is text, others' rooms are closed,
and the timeline catches up by itself after the platform restarts."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, expect

from band_server.admin import send
from band_server.config import Settings

from .browser_support import Platform, ServerChild, Shots, bootstrap, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

SCRIPT = "<script>window.__band_pwned = 1</script><b>not bold</b><img src=x onerror=alert(1)>"


async def new_room(page: Page, title: str) -> str:
    """Rooms → + → Create room with a title; returns the room's id from the page's address."""
    await page.get_by_role("button", name="New room").click()
    dialog = page.get_by_role("dialog", name="Create room")
    await dialog.get_by_label("Title").fill(title)
    await dialog.get_by_role("button", name="Create room").click()
    await expect(page.get_by_role("heading", name=title)).to_be_visible()
    await expect(page.locator("#live-status")).to_have_text("Live")
    return page.url.rsplit("/", 1)[1]


async def test_a_script_message_is_shown_as_text(page: Page, band: Platform, shots: Shots) -> None:
    await sign_in(page, band.url, await band.add_person("Grace Hopper", "grace"))
    await new_room(page, "Escaping")
    composer = page.get_by_label("Message", exact=True)
    await composer.fill(SCRIPT + "\nsecond line")
    await composer.press("Enter")

    item = page.get_by_role("list", name="Messages").locator("li.msg.text")
    await expect(item.locator(".body")).to_have_text(SCRIPT + "\nsecond line")
    assert await item.locator("script, b, img").count() == 0
    assert await page.evaluate("window.__band_pwned") is None
    await shots.take(page, "script-as-text")

    # Shift+Enter is a new line, not a send.
    await composer.press_sequentially("line one")
    await composer.press("Shift+Enter")
    await composer.press_sequentially("line two")
    assert await composer.input_value() == "line one\nline two"
    await expect(item).to_have_count(1)


async def test_a_person_cannot_open_another_persons_room(
    browser: Browser, page: Page, band: Platform, shots: Shots
) -> None:
    await sign_in(page, band.url, await band.add_person("Linus", "linus"))
    room = await new_room(page, "Linus private notes")

    other = await browser.new_context(viewport={"width": 400, "height": 800})
    try:
        intruder = await other.new_page()
        await sign_in(intruder, band.url, await band.add_person("Mallory", "mallory"))
        await expect(intruder.get_by_text("Linus private notes")).to_have_count(0)
        response = await intruder.goto(f"{band.url}/rooms/{room}")
        assert response is not None and response.status == 404
        await expect(intruder.get_by_role("heading", name="404")).to_be_visible()
        assert "Linus private notes" not in await intruder.content()
        await shots.take(intruder, "other-persons-room-404")
        data = await intruder.request.get(f"{band.url}/rooms/{room}/timeline")
        assert data.status == 404
    finally:
        await other.close()


async def test_the_timeline_catches_up_after_the_server_restarts(
    page: Page, shots: Shots, tmp_path: Path
) -> None:
    server = ServerChild(tmp_path / "data", tmp_path / "logs")
    try:
        admin_key = await bootstrap(server)
        await sign_in(page, server.url, admin_key)
        room = await new_room(page, "Durable")
        timeline = page.get_by_role("list", name="Messages")
        composer = page.get_by_label("Message", exact=True)
        await composer.fill("before the restart")
        await composer.press("Enter")
        await expect(timeline.get_by_text("before the restart")).to_be_visible()

        server.kill9()
        await expect(page.locator("#live-status")).to_have_text("Reconnecting…")
        await shots.take(page, "server-down")
        # Written while the page is disconnected: no push will ever announce it, so only
        # the page's own catch-up after it rejoins can show it.
        settings = Settings(data_dir=server.data_dir, database_url=None, redis_url=None)
        await send(settings, room, "admin", "written while you were away")
        await server.start()

        await expect(page.locator("#live-status")).to_have_text("Live", timeout=30_000)
        await expect(timeline.get_by_text("written while you were away")).to_be_visible()
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            posted = await http.post(
                f"/api/v1/me/chats/{room}/messages",
                headers={"X-API-Key": admin_key},
                json={"message": {"content": "after the restart"}},
            )
            assert posted.status_code == 201, posted.text
        await expect(timeline.get_by_text("after the restart")).to_be_visible()
        texts = await timeline.locator("li.msg .body").all_inner_texts()
        assert texts == ["before the restart", "written while you were away", "after the restart"]
        await shots.take(page, "caught-up")
    finally:
        server.stop()
