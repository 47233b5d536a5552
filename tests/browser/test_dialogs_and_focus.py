"""Keyboard and focus across the app: every dialog keeps the focus inside while open and gives
it back to what opened it (a menu's button for a menu item), a removed participant's row hands
the focus to the panel, quick messages are all sent in order, a rename shows live."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Dialog, Locator, Page, expect

from .browser_support import Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

INSIDE = "(d) => d.contains(document.activeElement)"


async def tab_stays_inside(page: Page, dialog: Locator, presses: int = 12) -> None:
    for _ in range(presses):
        await page.keyboard.press("Tab")
        assert await dialog.evaluate(INSIDE), "the focus left the open dialog"


async def test_dialogs_give_the_focus_back(page: Page, band: Platform, shots: Shots) -> None:
    key = await band.add_person("Alan Turing", "alan")
    room = await agent_room(band.url, key, name="Bombe Helper", title="Hut 8")
    await sign_in(page, band.url, key)

    # Rooms: + opens Create room; Escape closes it, back on +.
    new_room = page.get_by_role("button", name="New room")
    await new_room.focus()
    await page.keyboard.press("Enter")
    create = page.get_by_role("dialog", name="Create room")
    await expect(create.get_by_label("Title")).to_be_focused()
    await tab_stays_inside(page, create)
    await page.keyboard.press("Escape")
    await expect(create).to_be_hidden()
    await expect(new_room).to_be_focused()

    # Agents: the menu by keyboard, Delete's confirmation, Escape: back on the menu's button.
    await page.get_by_role("navigation").get_by_role("link", name="Agents").click()
    await page.wait_for_load_state("load")  # the page's scripts ran: a key now has a handler
    menu_button = page.get_by_role("button", name="Menu for Bombe Helper")
    await menu_button.focus()
    await page.keyboard.press("ArrowDown")
    await expect(page.get_by_role("menuitem", name="Regenerate API key")).to_be_focused()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    confirm = page.get_by_role("dialog", name="Delete Bombe Helper?")
    await expect(confirm).to_be_visible()
    await tab_stays_inside(page, confirm, 5)
    await shots.take(page, "delete-confirm")
    await page.keyboard.press("Escape")
    await expect(confirm).to_be_hidden()
    await expect(menu_button).to_be_focused()
    # Cancel gives the focus back the same way as Escape.
    connect = page.get_by_role("button", name="Connect remote agent")
    await connect.click()
    await page.get_by_role("dialog", name="Connect Remote Agent").get_by_text("Cancel").click()
    await expect(connect).to_be_focused()

    # The room: messages typed quickly one after another all arrive, in order.
    await page.goto(band.url + room.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_label("Message", exact=True)
    for text in ("one", "two", "three"):
        await composer.fill(text)
        await composer.press("Enter")
    bodies = page.get_by_role("list", name="Messages").locator("li.msg.text .body")
    await expect(bodies).to_have_text(["one", "two", "three"])
    await expect(composer).to_have_value("")

    # A rename shows at once in the heading.
    owner = {"X-API-Key": key}
    async with httpx.AsyncClient(base_url=band.url, timeout=10, headers=owner) as http:
        renamed = await http.patch(f"/api/v1/me/chats/{room.id}", json={"chat": {"title": "Hut 6"}})
        assert renamed.status_code == 200, renamed.text
    await expect(page.get_by_role("heading", name="Hut 6", level=1)).to_be_visible()

    # Removing a participant (the browser's own confirm) leaves the focus in the panel.
    async def accept(dialog: Dialog) -> None:
        await dialog.accept()

    page.on("dialog", accept)
    remove = page.get_by_role("button", name="Remove Bombe Helper")
    await remove.focus()
    await page.keyboard.press("Enter")
    await expect(remove).to_have_count(0)
    await expect(page.get_by_role("heading", name="Participants")).to_be_focused()
    await shots.take(page, "after-remove")
