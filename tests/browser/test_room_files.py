"""Files from the composer: Attach files (by keyboard), drag and drop, progress and errors, an
oversized file refused in words; each file message arrives live with its download link."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Page, Route, expect

from .browser_support import FILE_LIMIT, Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

REPORT = b"quarterly numbers: all green\n"
NOTES = "# Notes\n\n- ship the files feature\n"
DROP = """([name, text]) => {
  const data = new DataTransfer();
  data.items.add(new File([text], name, { type: "text/markdown" }));
  return data;
}"""


async def test_files_from_the_composer_arrive_live_with_a_download_link(
    page: Page, band: Platform, shots: Shots
) -> None:
    # Playwright turns on file chooser interception without waiting for the browser's answer;
    # a listener from the start makes sure it is on before the first chooser opens.
    page.on("filechooser", lambda _: None)
    key = await band.add_person("Marie Curie", "marie")
    room = await agent_room(band.url, key, name="Lab Helper")
    await sign_in(page, band.url, key)
    await page.goto(band.url + room.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    timeline = page.get_by_role("list", name="Messages")
    tray = page.get_by_role("list", name="Files to send")
    composer = page.get_by_label("Message", exact=True)

    # Attach files, by keyboard: Tab from the message box, Enter opens the file chooser.
    await composer.focus()
    await page.keyboard.press("Tab")
    await expect(page.get_by_role("button", name="Attach files")).to_be_focused()
    async with page.expect_file_chooser() as chosen:
        await page.keyboard.press("Enter")
    chooser = await chosen.value
    assert chooser.is_multiple()
    await chooser.set_files({"name": "report.txt", "mimeType": "text/plain", "buffer": REPORT})
    item = tray.get_by_role("listitem").filter(has_text="report.txt")
    await expect(item).to_contain_text("Ready")
    await expect(item.get_by_role("progressbar")).to_be_hidden()
    await shots.take(page, "attached")
    await composer.fill("@Lab Helper the report")
    await composer.press("Enter")

    sent = timeline.locator("li.msg.text", has_text="the report")
    link = sent.get_by_role("link", name="report.txt")
    await expect(link).to_be_visible()
    await expect(sent.locator(".file-meta")).to_have_text("text/plain · 29 B")
    await expect(tray).to_be_hidden()
    download = await page.request.get(band.url + str(await link.get_attribute("href")))
    assert download.status == 200 and await download.body() == REPORT
    # The agent gets the message with its file, as its SDK reads it.
    agent = {"X-API-Key": room.agent_key}
    async with httpx.AsyncClient(base_url=band.url, timeout=10, headers=agent) as http:
        nxt = await http.get(f"/api/v1/agent/chats/{room.id}/messages/next")
        assert [a["name"] for a in nxt.json()["data"]["attachments"]] == ["report.txt"]
    await shots.take(page, "sent-with-file")

    # Drag and drop onto the room; a message of files alone says what it shares.
    zone = page.locator("#drop-zone")
    dropped = await page.evaluate_handle(DROP, ["notes.md", NOTES])
    await zone.dispatch_event("dragenter", {"dataTransfer": dropped})
    await expect(page.get_by_text("Drop files to attach them to your message")).to_be_visible()
    await shots.take(page, "drop-overlay")
    await zone.dispatch_event("drop", {"dataTransfer": dropped})
    await expect(page.get_by_text("Drop files to attach them to your message")).to_be_hidden()
    await expect(tray.get_by_role("listitem").filter(has_text="notes.md")).to_contain_text("Ready")
    await composer.press("Enter")
    shared = timeline.locator("li.msg.text", has_text="Shared a file: notes.md")
    await expect(shared.get_by_role("link", name="notes.md")).to_be_visible()

    # Too large: refused in words before anything is sent; nothing waits in the tray.
    async with page.expect_file_chooser() as chosen:
        await page.get_by_role("button", name="Attach files").click()
    huge = {"name": "huge.bin", "mimeType": "application/octet-stream"}
    await (await chosen.value).set_files({**huge, "buffer": b"\0" * (FILE_LIMIT * 3 // 2)})
    alert = page.locator("#composer").get_by_role("alert")
    await expect(alert).to_have_text("huge.bin is too large (1.5 MB): files can be at most 1 MB.")
    await expect(tray).to_be_hidden()
    await shots.take(page, "too-large")

    # A broken upload says so and can be retried; the message waits for it.
    async def cut(route: Route) -> None:
        await route.abort()

    await page.route("**/files", cut)
    async with page.expect_file_chooser() as chosen:
        await page.get_by_role("button", name="Attach files").click()
    await (await chosen.value).set_files(
        {"name": "draft.txt", "mimeType": "text/plain", "buffer": b"draft one"}
    )
    draft = tray.get_by_role("listitem").filter(has_text="draft.txt")
    await expect(draft).to_contain_text("The upload was interrupted")
    await composer.fill("with the draft")
    await composer.press("Enter")
    await expect(alert).to_contain_text("A file could not be uploaded")
    await shots.take(page, "upload-failed")
    await page.unroute("**/files", cut)
    await draft.get_by_role("button", name="Retry draft.txt").click()
    await expect(draft).to_contain_text("Ready")
    await composer.press("Enter")
    with_draft = timeline.locator("li.msg.text", has_text="with the draft")
    await expect(with_draft.get_by_role("link", name="draft.txt")).to_be_visible()
    await expect(alert).to_be_hidden()
    assert await timeline.locator("li.msg.text").count() == 3
