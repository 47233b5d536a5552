"""Accounts in Chromium: the admin invites someone by email (the link shown once), the invitee
joins with a name, handle and password, sees where they are signed in, signs out, and signs
in again with email and password; a wrong password gets the one generic answer."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from .browser_support import TIMEOUT_MS, Platform, Shots, second_browser, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180)]

PASSWORD = "a long enough secret"


async def test_an_invited_person_joins_and_signs_in_with_a_password(
    browser: Browser, page: Page, band: Platform, shots: Shots
) -> None:
    await sign_in(page, band.url, band.admin_key)
    await page.get_by_role("navigation").get_by_role("link", name="People").click()
    await page.get_by_role("link", name="Invite by email").click()
    await page.get_by_label("Their email").fill("joan@example.org")
    await page.get_by_role("button", name="Create invitation").click()
    link = await page.get_by_label("Link").input_value()
    assert f"{band.url}/invite/" in link
    await expect(page.get_by_role("status")).to_contain_text("Mail is not set up here")
    await shots.take(page, "invitation-link-shown-once")

    context = await browser.new_context(viewport={"width": 1280, "height": 820})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        joan = await context.new_page()
        await joan.goto(link)
        await expect(joan.get_by_role("heading", name="Join Band")).to_be_visible()
        await expect(joan.get_by_text("joan@example.org")).to_be_visible()
        await joan.get_by_label("Name").fill("Joan Clarke")
        await joan.get_by_label("Handle").fill("joan")
        await joan.get_by_label("Password").fill(PASSWORD)
        await shots.take(joan, "invitation-form")
        await joan.get_by_role("button", name="Join").click()
        await expect(joan.get_by_role("heading", name="Rooms", exact=True)).to_be_visible()

        await joan.get_by_role("link", name="Joan Clarke").click()
        await expect(joan.get_by_role("heading", name="Where you are signed in")).to_be_visible()
        await expect(joan.locator(".session")).to_have_count(1)
        await expect(joan.locator(".session")).to_contain_text("This browser")
        await shots.take(joan, "account-sessions")
        await joan.get_by_role("button", name="Sign out everywhere").click()

        await expect(joan.get_by_label("Email")).to_be_visible()
        await joan.get_by_label("Email").fill("joan@example.org")
        await joan.get_by_label("Password").fill("not my password")
        await joan.get_by_role("button", name="Sign in").click()
        await expect(joan.get_by_role("alert")).to_have_text("Wrong email or password.")
        await shots.take(joan, "wrong-password")
        await joan.get_by_label("Password").fill(PASSWORD)
        await joan.get_by_role("button", name="Sign in").click()
        await expect(joan.get_by_role("heading", name="Rooms", exact=True)).to_be_visible()
        await shots.take(joan, "signed-in-with-password")

        used = await joan.goto(link)  # the link worked once
        assert used is not None and used.status == 404
    finally:
        await context.close()


async def test_an_admin_allows_one_person_to_invite_and_withdraws_it(
    browser: Browser, page: Page, band: Platform, shots: Shots
) -> None:
    """The People page's per-person switch: once allowed, the person finds "Invite people" in
    the sidebar and gets an invitation link; once withdrawn, the server refuses the same form
    (403, in words) and the link is gone from the sidebar."""
    key = await band.add_person("Ivy Inviter", "ivy_invites")
    await sign_in(page, band.url, band.admin_key)
    await page.goto(band.url + "/people")
    row = page.get_by_role("row").filter(has_text="@ivy_invites")
    await expect(row.locator(".invite-state")).to_have_text("No")
    await row.get_by_role("button", name="Allow inviting for Ivy Inviter").click()
    await expect(row.locator(".invite-state")).to_have_text("Yes")
    await shots.take(page, "people-may-invite-allowed")

    async with second_browser(browser) as context:
        ivy = await context.new_page()
        await sign_in(ivy, band.url, key)
        await ivy.get_by_role("navigation").get_by_role("link", name="Invite people").click()
        await ivy.get_by_label("Their email").fill("friend.of.ivy@example.org")
        await ivy.get_by_role("button", name="Create invitation").click()
        assert f"{band.url}/invite/" in await ivy.get_by_label("Link").input_value()
        await shots.take(ivy, "invited-by-a-member")

        await ivy.get_by_role("navigation").get_by_role("link", name="Invite people").click()
        await ivy.get_by_label("Their email").fill("another.friend@example.org")
        await row.get_by_role("button", name="Withdraw inviting from Ivy Inviter").click()
        await expect(row.locator(".invite-state")).to_have_text("No")
        await ivy.get_by_role("button", name="Create invitation").click()
        await expect(ivy.get_by_text("You may not invite people here.")).to_be_visible()
        await shots.take(ivy, "inviting-withdrawn-403")
        await ivy.goto(band.url + "/rooms")
        await expect(ivy.get_by_role("link", name="Invite people")).to_have_count(0)
