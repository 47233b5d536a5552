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


def chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, kind, data, CRC."""
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_of(header: bytes, pixels: bytes) -> bytes:
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def png(width: int, height: int) -> bytes:
    """A real PNG: a gradient, so a decoded thumbnail has the image's own size."""
    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 4 % 256, y * 6 % 256, 180)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return png_of(header, zlib.compress(rows))


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
    assert await image.get_attribute("src") == f"/rooms/{room}/files/{chart}/thumbnail"
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
    await expect(inline).to_have_attribute("src", f"/rooms/{room}/files/{chart}/thumbnail")
    assert await decoded_width(inline) == 120
    assert dialogs == []
    await shots.take(page, "previews")


def bomb_png(side: int) -> bytes:
    """A PNG whose header claims side x side grey pixels (a few kilobytes on disk)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    rows = zlib.compress((b"\x00" + b"\x80" * side) * 16, 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


async def test_a_large_photo_shows_as_the_servers_small_thumbnail(
    page: Page, band: Platform, shots: Shots
) -> None:
    """A 1,600 px wide photo arrives in the browser as a 480 px WebP thumbnail (its full size
    one click away); a decompression bomb gets no thumbnail and keeps its download link."""
    key = await band.add_person("Theo Thumb", "theo_thumb")
    room = await new_room(band.url, key, "Photos")
    async with httpx.AsyncClient(base_url=band.url, timeout=10) as http:
        big = await upload(http, key, room, "harbour.png", png(1600, 400))
        boom = await upload(http, key, room, "boom.png", bomb_png(20_000))
    await post_as(band.url, key, room, "From the trip", attachment_ids=[big, boom])

    await sign_in(page, band.url, key)
    async with page.expect_response(f"**/files/{big}/thumbnail") as answered:
        await page.goto(f"{band.url}/rooms/{room}")
    response = await answered.value
    assert response.headers["content-type"] == "image/webp"
    assert "immutable" in response.headers["cache-control"]
    files = page.get_by_role("list", name="Files")
    thumb = files.get_by_role("link", name="Open harbour.png full size")
    assert await decoded_width(thumb.get_by_role("img")) == 480
    assert await thumb.get_attribute("href") == f"/rooms/{room}/files/{big}"
    boom_row = files.get_by_role("listitem").filter(has_text="boom.png")
    await expect(boom_row.get_by_role("link", name="Open boom.png full size")).to_be_hidden()
    await expect(boom_row.get_by_role("link", name="boom.png")).to_have_attribute("download", "")
    await shots.take(page, "server-thumbnails")
