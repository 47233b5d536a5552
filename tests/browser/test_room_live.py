"""A room updates live: each mentioned agent's delivery status (failed with its error), the
working indicator, files, and a page that fits and is usable by keyboard at 400 px."""

from __future__ import annotations

import asyncio
import hashlib
import re

import httpx
import pytest
from playwright.async_api import Page, Route, expect

from .browser_support import Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

REPORT = b"quarterly numbers: all green\n"


async def test_delivery_status_working_and_files_update_live(
    page: Page, band: Platform, shots: Shots
) -> None:
    key = await band.add_person("Katherine Johnson", "katherine")
    made = await agent_room(band.url, key)
    room_id, agent_key = made.id, made.agent_key
    await sign_in(page, band.url, key)
    await page.goto(band.url + made.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_label("Message", exact=True)
    await composer.fill("@Helper Bot please summarise the thread")
    await composer.press("Enter")
    timeline = page.get_by_role("list", name="Messages")
    chip = timeline.locator(".delivery")
    await expect(chip).to_have_text("Helper Botdelivered")

    agent = {"X-API-Key": agent_key}
    base = f"/api/v1/agent/chats/{room_id}"
    async with httpx.AsyncClient(base_url=band.url, timeout=10, headers=agent) as http:
        message_id = (await http.get(f"{base}/messages/next")).json()["data"]["id"]
        await http.post(f"{base}/messages/{message_id}/processing")
        await http.post(f"{base}/activity", json={"working": True})
        await expect(chip).to_have_text("Helper Botprocessing")
        await expect(page.get_by_text("Helper Bot is working…")).to_be_visible()
        await shots.take(page, "processing-and-working")

        up = await http.put(f"{base}/files", content=REPORT, headers={"x-file-name": "report.txt"})
        assert up.status_code == 201, up.text
        file_id = up.json()["data"]["id"]
        people = (await http.get(f"{base}/participants")).json()["data"]
        me = next(p["id"] for p in people if p["type"] == "User")
        body = {"content": "Here it is", "mentions": [{"id": me}], "attachment_ids": [file_id]}
        sent = await http.post(f"{base}/messages", json={"message": body})
        assert sent.status_code == 201, sent.text
        link = timeline.get_by_role("link", name="report.txt")
        await expect(link).to_be_visible()
        download = await page.request.get(band.url + str(await link.get_attribute("href")))
        assert download.status == 200
        assert hashlib.sha256(await download.body()).digest() == hashlib.sha256(REPORT).digest()

        await http.post(
            f"{base}/messages/{message_id}/failed", json={"error": "Model quota exceeded"}
        )
        await http.post(f"{base}/activity", json={"working": False})
        await expect(chip).to_contain_text("failed")
        await expect(chip).to_contain_text("Model quota exceeded")
        await expect(page.get_by_text("Helper Bot is working…")).to_be_hidden()
        await shots.take(page, "failed-with-error")


async def nav(page: Page, name: str) -> None:
    """On a narrow screen the sidebar folds behind its Menu button (whose click the page's
    deferred script handles: a click before it ran would be lost, so wait for it)."""
    await page.wait_for_load_state("domcontentloaded")
    await page.get_by_role("button", name="Menu").click()
    await page.get_by_role("navigation").get_by_role("link", name=name).click()


async def test_the_pages_fit_400px_and_work_by_keyboard(
    page: Page, band: Platform, shots: Shots
) -> None:
    await page.set_viewport_size({"width": 400, "height": 800})
    await page.goto(band.url + "/login?with=key")
    await page.get_by_label("API key").fill(await band.add_person("Tim Berners", "tim"))
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name="Rooms", exact=True)).to_be_visible()

    for name in ("Agents", "Rooms", "Contacts"):
        await nav(page, name)
        await expect(page.get_by_role("heading", name=name, exact=True)).to_be_visible()
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 400, f"{name} is {width}px wide at 400px"
        await shots.take(page, f"{name.lower()}-400px")

    # Keyboard only: reach Connect remote agent, fill the dialog, Escape closes it.
    await nav(page, "Agents")
    button = page.get_by_role("button", name="Connect remote agent")
    for _ in range(12):
        if await button.evaluate("b => b === document.activeElement"):
            break
        await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Connect Remote Agent")
    await expect(dialog).to_be_visible()
    await expect(dialog.get_by_label("Agent name")).to_be_focused()
    await page.keyboard.type("Keyboard Agent")
    await page.keyboard.press("Tab")
    await page.keyboard.type("Made without a mouse, end to end.")
    await shots.take(page, "connect-dialog-400px")
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()

    # The room at 400 px: timeline, composer and the participants panel behind a toggle.
    await nav(page, "Rooms")
    await page.get_by_role("button", name="New room").click()
    create = page.get_by_role("dialog", name="Create room")
    await create.get_by_label("Title").fill("A long room title that must not push the layout wider")
    await page.keyboard.press("Enter")
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_label("Message", exact=True)
    await composer.fill("x" * 300)
    await composer.press("Enter")
    await expect(page.get_by_role("list", name="Messages").locator("li.msg")).to_have_count(1)
    assert await page.evaluate("document.documentElement.scrollWidth") <= 400
    await shots.take(page, "room-400px")
    await page.get_by_role("button", name="Room details").click()
    await expect(page.get_by_role("heading", name="Participants")).to_be_visible()
    await shots.take(page, "participants-400px")


async def test_a_mention_typed_before_the_participants_arrive_is_offered(
    page: Page, band: Platform
) -> None:
    """The first catch-up (which brings the participants) lands after the person typed "@Hel"
    (a slow page): the suggestion shows when it lands, without another key."""
    key = await band.add_person("Christine Darden", "christine")
    made = await agent_room(band.url, key)
    await sign_in(page, band.url, key)
    held: list[str] = []
    release = asyncio.Event()

    async def hold(route: Route) -> None:
        held.append(route.request.url)
        await release.wait()
        await route.continue_()

    await page.route("**/timeline*", hold)
    await page.goto(band.url + made.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_label("Message", exact=True)
    await composer.click()
    await composer.press_sequentially("@Hel")
    suggestion = page.get_by_role("option", name=re.compile("Helper Bot"))
    await expect(suggestion).to_have_count(0)  # no participants yet: nothing to offer
    assert held, "the page asked for no catch-up"
    release.set()
    await expect(suggestion).to_be_visible()
    await composer.press("Enter")  # takes the suggestion
    await expect(composer).to_have_value("@Helper Bot ")
