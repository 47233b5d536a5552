"""Accessibility: axe-core (npm) on every page and dialog of the app finds no serious or
critical violation; and at a phone's 390 px the sidebar folds into a menu and a room stays
usable (read, write, see the participants), with screenshots."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from .browser_support import Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(240)]

AXE = Path(__file__).resolve().parents[2] / ".tools/axe-core/node_modules/axe-core/axe.min.js"
if not AXE.exists():
    if os.environ.get("BAND_REQUIRE_AXE"):
        raise RuntimeError(f"axe-core is missing ({AXE})")
    pytest.skip("npm axe-core is not installed (scripts/test installs it)", allow_module_level=True)

# Run through the DevTools protocol, axe itself is not subject to the page's CSP.
RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
}"""


async def violations(page: Page) -> list[dict[str, Any]]:
    await page.wait_for_load_state("load")
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.evaluate(AXE.read_text())
    found: list[dict[str, Any]] = await page.evaluate(RUN)
    return found


async def test_every_page_has_no_serious_or_critical_violation(
    page: Page, band: Platform, shots: Shots
) -> None:
    room = await agent_room(band.url, band.admin_key, name="Axe Bot", title="Audited room")
    async with httpx.AsyncClient(base_url=band.url, timeout=10) as http:
        sent = await http.post(
            f"/api/v1/me/chats/{room.id}/messages",
            headers={"X-API-Key": band.admin_key},
            json={
                "message": {
                    "content": "@Axe Bot **check** this:\n\n| a | b |\n|---|---|\n| 1 | 2 |"
                }
            },
        )
        assert sent.status_code == 201, sent.text
    found: dict[str, list[dict[str, Any]]] = {}
    for path in ("/login", "/login?with=key", "/forgot"):
        await page.goto(band.url + path)
        found[path] = await violations(page)
    await sign_in(page, band.url, band.admin_key)
    for path, dialog in (
        ("/rooms", "New room"),
        ("/agents", "Connect remote agent"),
        ("/contacts", None),
        ("/people", "Add person"),
        ("/account", None),
        ("/invite", None),
        ("/search?q=check", None),
        (room.url, None),
        ("/rooms/not-a-room", None),
    ):
        await page.goto(band.url + path)
        found[path] = await violations(page)
        if dialog:
            await page.get_by_role("button", name=dialog).click()
            await expect(page.get_by_role("dialog")).to_be_visible()
            found[f"{path} dialog"] = await violations(page)
            await page.keyboard.press("Escape")
    await page.goto(band.url + room.url)
    await page.get_by_role("button", name="Axe Bot delivered").click()
    await expect(page.get_by_role("dialog")).to_be_visible()
    found["turn dialog"] = await violations(page)
    await shots.take(page, "audited-turn-dialog")
    bad = {where: v for where, v in found.items() if v}
    assert bad == {}, json.dumps(bad, indent=1)


async def test_a_room_is_usable_at_390px(page: Page, band: Platform, shots: Shots) -> None:
    key = await band.add_person("Phoebe Phone", "phoebe")
    room = await agent_room(band.url, key, name="Pocket Bot", title="On the go")
    await page.set_viewport_size({"width": 390, "height": 844})
    await sign_in(page, band.url, key)
    await shots.take(page, "rooms-390px")
    menu = page.get_by_role("button", name="Menu")
    await expect(menu).to_be_visible()
    await expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    await menu.click()
    await expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    await shots.take(page, "menu-open-390px")
    await menu.click()

    await page.goto(band.url + room.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    await expect(page.get_by_role("heading", name="On the go")).to_be_visible()
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the room is {width}px wide at 390px"
    composer = page.get_by_label("Message", exact=True)
    await composer.fill("Sent from a phone")
    await composer.press("Enter")
    await expect(page.locator("#timeline").get_by_text("Sent from a phone")).to_be_in_viewport()
    await shots.take(page, "room-390px")
    details = page.get_by_role("button", name="Room details")
    await details.click()
    await expect(page.get_by_role("heading", name="Participants")).to_be_in_viewport()
    await shots.take(page, "room-details-390px")
    assert await violations(page) == []
