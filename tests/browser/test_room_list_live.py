"""The Rooms page updates live over the socket: a room I am added to appears, a message moves
its room up with its unread count, a rename shows, a room I am removed from goes; the
keyboard focus stays on its room while the list reorders. No reload anywhere."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Page, expect

from .browser_support import Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]


async def test_the_room_list_follows_the_socket(page: Page, band: Platform, shots: Shots) -> None:
    key = await band.add_person("Dorothy Vaughan", "dorothy")
    quiet = await agent_room(band.url, key, name="Scout Bot", title="Quiet corner")
    await sign_in(page, band.url, key)
    listed = page.get_by_role("list", name="Your rooms").get_by_role("listitem")
    await expect(listed).to_have_count(1)
    loaded = await page.evaluate("performance.timeOrigin")

    agent = {"X-API-Key": quiet.agent_key}
    async with httpx.AsyncClient(base_url=band.url, timeout=10, headers=agent) as http:
        people = (await http.get(f"/api/v1/agent/chats/{quiet.id}/participants")).json()["data"]
        me = next(p["id"] for p in people if p["type"] == "User")

        # The agent opens a room and adds me: it appears on top, with nothing unread.
        made = await http.post("/api/v1/agent/chats", json={"chat": {"title": "Standup"}})
        standup = made.json()["data"]["id"]
        joined = await http.post(
            f"/api/v1/agent/chats/{standup}/participants",
            json={"participant": {"participant_id": me}},
        )
        assert joined.status_code == 201, joined.text
        await expect(listed.first).to_contain_text("Standup")
        await expect(listed).to_have_count(2)
        await expect(listed.first.locator(".badge")).to_have_count(0)
        await expect(listed.first.locator("time")).to_have_text("just now")
        await shots.take(page, "room-added")

        # A keyboard user on Standup's link stays on it while the list reorders.
        standup_link = listed.filter(has_text="Standup").get_by_role("link")
        await standup_link.focus()

        # Two messages in the quiet room: it moves up and counts them.
        for text in ("first news", "second news"):
            sent = await http.post(
                f"/api/v1/agent/chats/{quiet.id}/messages",
                json={"message": {"content": text, "mentions": [{"id": me}]}},
            )
            assert sent.status_code == 201, sent.text
        await expect(listed.first).to_contain_text("Quiet corner")
        await expect(listed.first.get_by_label("2 unread")).to_have_text("2")
        # Beside it, the last message, as text; a room without messages shows none.
        await expect(listed.first.locator(".room-preview")).to_contain_text("second news")
        await expect(listed.filter(has_text="Standup").locator(".room-preview")).to_have_count(0)
        await expect(standup_link).to_be_focused()
        await shots.take(page, "unread-on-top")

        renamed = await http.patch(
            f"/api/v1/agent/chats/{standup}", json={"chat": {"title": "Daily standup"}}
        )
        assert renamed.status_code == 200, renamed.text
        await expect(listed.filter(has_text="Daily standup")).to_have_count(1)

        # Removed from a room: it leaves the list.
        gone = await http.delete(f"/api/v1/agent/chats/{standup}/participants/{me}")
        assert gone.status_code == 200, gone.text
        await expect(listed).to_have_count(1)
        await expect(listed.first).to_contain_text("Quiet corner")

    # Reading the room clears its count; the list page was never reloaded until now.
    assert await page.evaluate("performance.timeOrigin") == loaded
    await listed.first.get_by_role("link").click()
    timeline = page.get_by_role("list", name="Messages")
    await expect(timeline.get_by_text("second news")).to_be_visible()
    await page.get_by_role("navigation").get_by_role("link", name="Rooms").click()
    await expect(listed.first.locator(".badge")).to_have_count(0)

    await page.set_viewport_size({"width": 400, "height": 800})
    assert await page.evaluate("document.documentElement.scrollWidth") <= 400
    await shots.take(page, "rooms-400px")
