"""Search in the browser: the sidebar's box finds a message across the person's rooms (never
one of a room they are not in), marks the words, and the result opens the room scrolled to
that message even when it is older than what the room shows at first."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from .browser_support import Platform, Shots, new_room, post_as, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180)]

FILLER = 130  # more than the 100 messages a room shows when it opens


async def room_with(url: str, key: str, title: str, contents: list[str]) -> str:
    room = await new_room(url, key, title)
    for content in contents:
        await post_as(url, key, room, content)
    return room


async def test_a_search_result_opens_the_room_at_the_message(
    page: Page, band: Platform, shots: Shots
) -> None:
    key = await band.add_person("Sam Searcher", "sam_search")
    other = await band.add_person("Olga Other", "olga_search")
    await room_with(band.url, other, "Olga's plans", ["The zeppelin budget is secret."])
    history = [f"Status update number {n}." for n in range(FILLER)]
    history[4] = "We agreed the **zeppelin** budget: 40 k, <b>no more</b>."
    room = await room_with(band.url, key, "Deep history", history)

    await sign_in(page, band.url, key)
    box = page.get_by_role("searchbox", name="Search messages")
    await box.fill("zeppel budg")
    await box.press("Enter")
    await expect(page.get_by_role("heading", name="Search", exact=True)).to_be_visible()
    await expect(page.get_by_role("status")).to_have_text("1 message found")
    results = page.locator(".search-hit")
    await expect(results).to_have_count(1)
    await expect(results).to_contain_text("Deep history")
    await expect(results).not_to_contain_text("Olga")
    await expect(results.locator("mark")).to_have_text(["zeppelin", "budget"])
    await expect(results).to_contain_text("<b>no more</b>")  # text, never markup
    await shots.take(page, "search-results")

    await results.get_by_role("link").click()
    await expect(page.get_by_role("heading", name="Deep history")).to_be_visible()
    target = page.locator("#timeline li.msg.found-target")
    await expect(target).to_have_count(1)
    await expect(target.locator(".body strong")).to_have_text("zeppelin")
    await expect(target).to_be_in_viewport()
    await expect(target).to_be_focused()
    assert page.url.endswith(
        f"/rooms/{room}?at=5#message-" + str(await target.get_attribute("data-id"))
    )
    # Everything after it is there too, down to the newest message.
    await expect(page.locator("#timeline li.msg.text .body").last).to_have_text(
        f"Status update number {FILLER - 1}."
    )
    await shots.take(page, "room-at-the-message")


async def test_search_pages_through_more_hits_than_a_page_holds(
    page: Page, band: Platform, shots: Shots
) -> None:
    """45 hits, 20 a page: Next page twice shows 20, 20, then 5 (no Next), newest first, each
    hit once; First page goes back."""
    key = await band.add_person("Paula Pager", "paula_pages")
    await room_with(
        band.url, key, "Many mangos", [f"Mango crate {n:02d} arrived." for n in range(45)]
    )
    await sign_in(page, band.url, key)
    await page.goto(band.url + "/search?q=mango")
    results = page.locator(".search-hit .hit-snippet")
    status = page.get_by_role("status")
    seen: list[str] = []
    for size in (20, 20, 5):
        await expect(status).to_have_text(f"{size} messages on this page")
        await expect(results).to_have_count(size)
        seen += await results.all_inner_texts()
        next_page = page.get_by_role("link", name="Next page")
        if size == 20:
            if len(seen) == 20:
                await shots.take(page, "search-first-page")
            await next_page.click()
        else:
            await expect(next_page).to_have_count(0)
    assert seen == [f"Mango crate {n:02d} arrived." for n in range(44, -1, -1)]
    await shots.take(page, "search-last-page")
    await page.get_by_role("link", name="First page").click()
    await expect(results.first).to_have_text("Mango crate 44 arrived.")
