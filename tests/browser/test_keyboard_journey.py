"""Seed 004's journey by keyboard alone: Connect remote agent (its key shown once), Create room
with it, mention it and see its reply arrive live, then Regenerate API key. No click: every
step is Tab, Shift+Tab, Space, Enter, arrows or typing (the agent's side runs over REST)."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Locator, Page, expect

from .browser_support import Platform, Shots

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180)]

NAME = "Keys Agent"


async def tab_to(page: Page, target: Locator, most: int = 60) -> None:
    """Press Tab until ``target`` has the focus (fails after ``most`` presses)."""
    for _ in range(most):
        if await target.evaluate("node => node === document.activeElement"):
            return
        await page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target}")


async def go(page: Page, section: str) -> None:
    """A sidebar link, reached by Tab, followed with Enter."""
    await tab_to(page, page.get_by_role("navigation").get_by_role("link", name=section))
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name=section, exact=True)).to_be_visible()


async def test_seed_004_by_keyboard_alone(page: Page, band: Platform, shots: Shots) -> None:
    key = await band.add_person("Kay Board", "kay_board")
    await page.goto(band.url + "/login")
    await tab_to(page, page.get_by_role("link", name="Sign in with an API key"))
    await page.keyboard.press("Enter")
    await expect(page.get_by_label("API key")).to_be_focused()
    await page.keyboard.type(key)
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name="Rooms", exact=True)).to_be_visible()
    await page.wait_for_load_state("load")

    # Agents → Connect remote agent → the dialog → Agent Created Successfully! (key once)
    await go(page, "Agents")
    await tab_to(page, page.get_by_role("button", name="Connect remote agent"))
    await page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Connect Remote Agent")
    await expect(dialog.get_by_label("Agent name")).to_be_focused()
    await page.keyboard.type(NAME)
    await tab_to(page, dialog.get_by_label("Description"))
    await page.keyboard.type("Answers every question asked by keyboard.")
    await tab_to(page, dialog.get_by_role("button", name="Connect Agent"))
    await page.keyboard.press("Enter")
    created = page.get_by_role("dialog", name="Agent Created Successfully!")
    await expect(created).to_be_visible()
    agent_key = await created.get_by_label("API Key", exact=True).input_value()
    assert agent_key.startswith("band_a_")
    await shots.take(page, "agent-created-by-keyboard")
    await tab_to(page, created.get_by_role("button", name="Done"))
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name=NAME)).to_be_visible()  # the list, reloaded
    await page.wait_for_load_state("load")

    # Rooms → New room → tick the agent with Space → Create room
    await go(page, "Rooms")
    await tab_to(page, page.get_by_role("button", name="New room"))
    await page.keyboard.press("Enter")
    create = page.get_by_role("dialog", name="Create room")
    agent_box = create.get_by_role("group", name="Agents").get_by_label(NAME)
    await tab_to(page, agent_box)
    await page.keyboard.press("Space")
    await expect(agent_box).to_be_checked()
    await tab_to(page, create.get_by_role("button", name="Create room"))
    await page.keyboard.press("Enter")
    await expect(page.locator("#live-status")).to_have_text("Live")
    room_id = page.url.rsplit("/", 1)[1]

    # Mention it with the autocomplete (arrows and Enter), send, and see the reply live.
    composer = page.get_by_label("Message", exact=True)
    await tab_to(page, composer)
    await page.keyboard.type("@Keys")
    await expect(page.get_by_role("option", name=NAME)).to_be_visible()
    await page.keyboard.press("Enter")  # takes the suggestion
    await page.keyboard.type(" what is the plan?")
    await page.keyboard.press("Enter")
    timeline = page.get_by_role("list", name="Messages")
    await expect(timeline.locator("li.msg.text .mention")).to_have_text(f"@{NAME}")
    base = f"/api/v1/agent/chats/{room_id}"
    async with httpx.AsyncClient(
        base_url=band.url, timeout=10, headers={"X-API-Key": agent_key}
    ) as http:
        next_up = (await http.get(f"{base}/messages/next")).json()["data"]
        assert "what is the plan?" in next_up["content"]
        people = (await http.get(f"{base}/participants")).json()["data"]
        me = next(p["id"] for p in people if p["type"] == "User")
        reply = {"content": "The plan: ship it.", "mentions": [{"id": me}]}
        assert (await http.post(f"{base}/messages", json={"message": reply})).status_code == 201
        await http.post(f"{base}/messages/{next_up['id']}/processed")
    await expect(timeline.locator("li.msg.text.mentions-me")).to_contain_text("The plan: ship it.")
    await shots.take(page, "reply-live-by-keyboard")

    # Agents → the agent's menu → Regenerate API key → confirm → the new key, once.
    await page.keyboard.press("Escape")
    await go(page, "Agents")
    await tab_to(page, page.get_by_role("button", name=f"Menu for {NAME}"))
    await page.keyboard.press("Enter")
    item = page.get_by_role("menuitem", name="Regenerate API key")
    for _ in range(6):  # a menu moves its focus with the arrow keys
        if await item.evaluate("n => n === document.activeElement"):
            break
        await page.keyboard.press("ArrowDown")
    await expect(item).to_be_focused()
    await page.keyboard.press("Enter")
    confirm = page.get_by_role("dialog", name="Regenerate API key?")
    await tab_to(page, confirm.get_by_role("button", name="Regenerate"))
    await page.keyboard.press("Enter")
    fresh = page.get_by_role("dialog", name="New API key")
    new_key = await fresh.get_by_label("API Key", exact=True).input_value()
    assert new_key.startswith("band_a_") and new_key != agent_key
    await shots.take(page, "regenerated-by-keyboard")
    async with page.expect_navigation():  # a key dialog closed reloads the list
        await page.keyboard.press("Escape")
    await expect(page.get_by_role("heading", name=NAME)).to_be_visible()
    await page.wait_for_load_state("load")
