"""The Content-Security-Policy in a real browser: every page of the app, its dialogs and a live
room run under it without one violation, and a violation does get reported (so the watch the
``page`` fixture keeps on every browser test can fail)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from .browser_support import Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

INLINE_SCRIPT = """() => {
  const script = document.createElement("script");
  script.textContent = "window.inlineRan = true";
  document.body.appendChild(script);
  const styled = document.createElement("p");
  styled.setAttribute("style", "color: red");
  document.body.appendChild(styled);
  return window.inlineRan === true;
}"""


async def test_every_page_runs_under_the_policy(
    page: Page, band: Platform, shots: Shots, csp_violations: list[str]
) -> None:
    room = await agent_room(band.url, band.admin_key, name="Policy Bot", title="Policy")
    await sign_in(page, band.url, band.admin_key)
    nav = page.get_by_role("navigation")
    for section, dialog_button in (
        ("Agents", "Connect remote agent"),
        ("Contacts", None),
        ("People", "Add person"),
        ("Rooms", "New room"),
    ):
        await nav.get_by_role("link", name=section).click()
        await expect(page.get_by_role("heading", name=section, exact=True)).to_be_visible()
        if dialog_button is not None:
            await page.get_by_role("button", name=dialog_button).click()
            await expect(page.get_by_role("dialog")).to_be_visible()
            await page.keyboard.press("Escape")
        await page.wait_for_load_state("load")
    await page.goto(band.url + room.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_role("textbox", name="Message")
    await composer.fill("under the policy")
    await composer.press("Enter")
    await expect(page.locator("#timeline").get_by_text("under the policy")).to_be_visible()
    await shots.take(page, "room-under-policy")
    await page.goto(band.url + "/rooms/not-a-room")  # the error page
    assert csp_violations == []


async def test_an_inline_script_or_style_is_refused_and_reported(
    page: Page, band: Platform, csp_violations: list[str]
) -> None:
    await sign_in(page, band.url, band.admin_key)
    ran = await page.evaluate(INLINE_SCRIPT)
    assert ran is False
    for _ in range(100):  # reported asynchronously
        if len(csp_violations) >= 2:
            break
        await page.wait_for_timeout(100)
    directives = " ".join(csp_violations)
    assert "script-src" in directives and "style-src" in directives, csp_violations
    csp_violations.clear()  # provoked on purpose: the fixture's check is for the other tests
