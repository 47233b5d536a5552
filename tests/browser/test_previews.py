"""Previews in the timeline: an attached image shows as a thumbnail (really decoded) that opens
the full image, an image of the room's files linked in Markdown shows inline, and every other
file (an SVG with a script in it too) stays a download link with its name, type and size."""

from __future__ import annotations

import struct
import zlib

import httpx
import pytest
from playwright.async_api import Locator, Page, expect

from .browser_support import Platform, Shots, new_room, post_as, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'


def png(width: int, height: int) -> bytes:
    """A real PNG: a gradient, so a decoded thumbnail has the image's own size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 4 % 256, y * 6 % 256, 180)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def decoded_width(image: Locator) -> int:
    """The image's decoded width once it has loaded (0 when it never decodes)."""
    await image.scroll_into_view_if_needed()
    handle = await image.element_handle()
    assert handle is not None
    await handle.evaluate(
        "i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })"
    )
    return int(await handle.evaluate("i => i.naturalWidth"))


async def upload(http: httpx.AsyncClient, key: str, room: str, name: str, body: bytes) -> str:
    made = await http.put(
        f"/api/v1/me/chats/{room}/files",
        headers={"X-API-Key": key, "X-File-Name": name, "Content-Type": "application/octet-stream"},
        content=body,
    )
    assert made.status_code == 201, made.text
    return str(made.json()["data"]["id"])


async def test_images_show_as_thumbnails_and_other_files_as_links(
    page: Page, band: Platform, shots: Shots
) -> None:
    key = await band.add_person("Pia Preview", "pia_preview")
    room = await new_room(band.url, key, "Previews")
    async with httpx.AsyncClient(base_url=band.url, timeout=10) as http:
        chart = await upload(http, key, room, "chart.png", png(120, 80))
        notes = await upload(http, key, room, "notes.txt", b"plain notes\n")
        drawing = await upload(http, key, room, "drawing.svg", SVG)
    await post_as(band.url, key, room, "Files", attachment_ids=[chart, notes, drawing])
    await post_as(band.url, key, room, f"See ![the chart](/rooms/{room}/files/{chart}) above.")

    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    await sign_in(page, band.url, key)
    await page.goto(f"{band.url}/rooms/{room}")
    files = page.get_by_role("list", name="Files")
    await expect(files.get_by_role("listitem")).to_have_count(3)

    thumb = files.get_by_role("link", name="Open chart.png full size")
    image = thumb.get_by_role("img", name="chart.png")
    await expect(image).to_be_visible()
    assert await decoded_width(image) == 120
    assert await thumb.get_attribute("href") == f"/rooms/{room}/files/{chart}"
    chart_row = files.get_by_role("listitem").filter(has_text="chart.png")
    await expect(chart_row).to_contain_text("image/png")

    for name, kind in (("notes.txt", "text/plain"), ("drawing.svg", "")):
        row = files.get_by_role("listitem").filter(has_text=name)
        await expect(row.get_by_role("img")).to_have_count(0)
        await expect(row.get_by_role("link", name=name)).to_have_attribute("download", "")
        await expect(row).to_contain_text(kind)
        await expect(row.locator(".file-meta")).to_contain_text("B")

    inline = page.locator("#timeline .body.markdown img")
    await expect(inline).to_have_attribute("alt", "the chart")
    assert await decoded_width(inline) == 120
    assert dialogs == []
    await shots.take(page, "previews")
