"""Notifications in Chromium: with permission granted, a person on the Rooms page gets a
browser notification for a message in a direct room and for a mention in a group room, not for
other group chatter, and none at all from a room they set to "never"; unread counts show in
the tab title; the sidebar asks for permission once."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, expect

from .browser_support import (
    TIMEOUT_MS,
    Platform,
    Shots,
    agent_room,
    new_room,
    post_as,
    second_browser,
    sign_in,
    web_client,
)

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180)]

# Records every notification the page makes, then makes it for real.
SPY = """
window.__notes = [];
const Real = window.Notification;
window.Notification = new Proxy(Real, {
  construct(target, args) {
    window.__notes.push({ title: args[0], body: (args[1] || {}).body || "" });
    return new target(...args);
  },
});
"""


async def befriend(url: str, asker_key: str, other_key: str, other_handle: str) -> None:
    async with web_client(url, asker_key) as (web, csrf):
        sent = await web.post(
            "/contacts/requests",
            data={"handle": other_handle, "csrf": csrf},
            headers={"Accept": "application/json"},
        )
        assert sent.status_code in (200, 201), sent.text
        request_id = sent.json()["id"]
    async with web_client(url, other_key) as (web, csrf):
        ok = await web.post(
            f"/contacts/requests/{request_id}/approve",
            data={"csrf": csrf},
            headers={"Accept": "application/json"},
        )
        assert ok.status_code == 200, ok.text


async def person_id(url: str, key: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        me = await http.get("/api/v1/me/profile", headers={"X-API-Key": key})
        return str(me.json()["data"]["id"])


async def notes(page: Any, count: int) -> list[dict[str, str]]:
    await expect(page.locator("body")).to_be_visible()
    for _ in range(100):
        found: list[dict[str, str]] = await page.evaluate("window.__notes")
        if len(found) >= count:
            return found
        await page.wait_for_timeout(100)
    return list(await page.evaluate("window.__notes"))


async def test_mentions_and_direct_messages_notify_and_never_means_never(
    browser: Browser, band: Platform, shots: Shots
) -> None:
    nora = await band.add_person("Nora", "nora_n")
    omar = await band.add_person("Omar", "omar_n")
    pat = await band.add_person("Pat", "pat_n")
    await befriend(band.url, omar, nora, "nora_n")
    await befriend(band.url, omar, pat, "pat_n")
    nora_id, pat_id = await person_id(band.url, nora), await person_id(band.url, pat)
    direct = await new_room(band.url, omar, "Omar and Nora", nora_id)
    group = await new_room(band.url, omar, "Launch team", nora_id, pat_id)

    context = await browser.new_context(viewport={"width": 1280, "height": 820})
    context.set_default_timeout(TIMEOUT_MS)
    await context.grant_permissions(["notifications"], origin=band.url)
    await context.add_init_script(SPY)
    try:
        page = await context.new_page()
        await sign_in(page, band.url, nora)
        await expect(page.get_by_role("button", name="Turn on notifications")).to_be_hidden()
        await page.wait_for_function("window.Band && window.Band.Notify")
        await page.wait_for_timeout(500)  # the page joined its rooms' channels

        await post_as(band.url, omar, direct, "Lunch at noon?")
        await post_as(band.url, omar, group, "General status: all green.")
        await post_as(band.url, omar, group, "@Nora can you review the checklist?")
        await notes(page, 2)
        await page.wait_for_timeout(700)  # nothing more arrives for the chatter
        found = await page.evaluate("window.__notes")
        assert found == [
            {"title": "Omar in Omar and Nora", "body": "Lunch at noon?"},
            {
                "title": "Omar mentioned you in Launch team",
                "body": "@Nora can you review the checklist?",
            },
        ]
        await expect(page).to_have_title("(3) Rooms · Band")
        await shots.take(page, "rooms-with-unread-in-title")

        await page.goto(f"{band.url}/rooms/{group}")
        choice = page.get_by_label("Notify me")
        await expect(choice).to_have_value("mentions")
        async with page.expect_response(f"**/rooms/{group}/notify") as chosen:
            await choice.select_option("none")
        assert (await chosen.value).ok
        await shots.take(page, "room-notify-never")
        await page.goto(f"{band.url}/rooms")
        await page.wait_for_timeout(500)
        await post_as(band.url, omar, group, "@Nora one more thing")
        await post_as(band.url, omar, direct, "Still on for lunch?")
        await notes(page, 1)
        await page.wait_for_timeout(700)
        found = await page.evaluate("window.__notes")
        assert [n["title"] for n in found] == ["Omar in Omar and Nora"]
    finally:
        await context.close()

    # Without an answer yet, the sidebar offers to ask; asked once, the offer goes.
    fresh = await browser.new_context()
    try:
        page = await fresh.new_page()
        await sign_in(page, band.url, pat)
        ask = page.get_by_role("button", name="Turn on notifications")
        await expect(ask).to_be_visible()
        await ask.click()
        await expect(ask).to_be_hidden()
    finally:
        await fresh.close()


async def socket_up(page: Any) -> None:
    """Wait until the page's shared socket is connected (polled from here: the page's
    Content-Security-Policy forbids the eval ``wait_for_function`` polls with)."""
    up = "() => !!(window.Band && window.Band.socket && window.Band.socket().isConnected())"
    for _ in range(200):
        if await page.evaluate(up):
            return
        await page.wait_for_timeout(100)
    raise AssertionError("the page's socket never connected")


async def test_a_mention_reaches_the_person_on_any_page(
    browser: Browser, band: Platform, shots: Shots
) -> None:
    """On the search page and then the account page (neither follows a room), a mention in a
    group room, a text in a direct room and an agent's reply arrive on the person's own topic:
    each notifies once and counts in the tab title; group chatter without a mention does not."""
    nina = await band.add_person("Nina", "nina_any")
    otto = await band.add_person("Otto", "otto_any")
    await befriend(band.url, otto, nina, "nina_any")
    nina_id = await person_id(band.url, nina)
    uma = await band.add_person("Uma", "uma_any")
    await befriend(band.url, otto, uma, "uma_any")
    group = await new_room(band.url, otto, "Release crew", nina_id, await person_id(band.url, uma))
    direct = await new_room(band.url, otto, "Otto and Nina", nina_id)
    tides = await agent_room(band.url, nina, name="Tide Bot", title="Tides")

    async with second_browser(browser) as context:
        await context.grant_permissions(["notifications"], origin=band.url)
        await context.add_init_script(SPY)
        page = await context.new_page()
        await sign_in(page, band.url, nina)
        await page.goto(band.url + "/search?q=release")
        await socket_up(page)
        await page.wait_for_timeout(500)  # the join of user_notifications:<me> is answered

        await post_as(band.url, otto, group, "General chatter, nobody in particular.")
        await post_as(band.url, otto, group, "@Nina the release notes need your eyes")
        found = await notes(page, 1)
        await page.wait_for_timeout(700)  # the chatter never notifies
        assert (
            await page.evaluate("window.__notes")
            == [
                {
                    "title": "Otto mentioned you in Release crew",
                    "body": "@Nina the release notes need your eyes",
                }
            ]
            == found
        )
        await expect(page).to_have_title("(1) Search: release · Band")
        await shots.take(page, "mention-on-the-search-page")

        await page.goto(band.url + "/account")
        await socket_up(page)
        await page.wait_for_timeout(500)
        await post_as(band.url, otto, direct, "Coffee later?")
        async with httpx.AsyncClient(base_url=band.url, timeout=10) as http:
            answered = await http.post(
                f"/api/v1/agent/chats/{tides.id}/messages",
                headers={"X-API-Key": tides.agent_key},
                json={"message": {"content": "High tide at 14:10.", "mentions": [{"id": nina_id}]}},
            )
            assert answered.status_code == 201, answered.text
        found = await notes(page, 2)
        assert found == [
            {"title": "Otto in Otto and Nina", "body": "Coffee later?"},
            {"title": "Tide Bot replied to you in Tides", "body": "@Nina High tide at 14:10."},
        ]
        await expect(page).to_have_title(re.compile(r"^\(2\) "))
        await shots.take(page, "direct-text-and-reply-on-the-account-page")
