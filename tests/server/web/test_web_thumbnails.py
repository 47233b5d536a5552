"""Thumbnails of uploaded images (``files.thumbnails`` with Pillow, served by the web app):
bounded in size and pixels, upright by EXIF orientation, stripped of every piece of
metadata, a WebP with long private caching and a 304 on its ETag; a file of the room only,
none for other types, and a decompression bomb or damaged image refused in words."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import httpx
import pytest
from PIL import Image
from web_testkit import JSON, act, sign_in, token

from band_server.config import Settings
from band_server.context import Platform
from band_server.files import thumbnails
from conftest import Seeded, make_user

LIMIT = 4 * 1024 * 1024
GPS = "51.5007N 0.1246W"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=None, redis_url=None, max_file_bytes=LIMIT
    )


def photo(width: int, height: int, *, orientation: int = 1) -> bytes:
    """A JPEG with EXIF (a GPS note, an orientation), an ICC profile and a comment."""
    image = Image.new("RGB", (width, height), (200, 40, 40))
    image.paste((20, 20, 220), (0, 0, width // 2, height))  # left half blue
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010E] = f"taken at {GPS}"  # ImageDescription
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif, icc_profile=b"ICCPROFILE" * 20, comment=b"secret note")
    return out.getvalue()


def bomb(side: int) -> bytes:
    """A PNG whose header claims ``side`` x ``side`` pixels of one grey (compresses to little)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    compressor = zlib.compressobj(9)
    row = b"\x00" + b"\x80" * side
    data = b"".join(compressor.compress(row) for _ in range(64)) + compressor.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def test_a_thumbnail_fits_is_upright_and_carries_no_metadata() -> None:
    source = photo(1600, 1200, orientation=6)  # stored sideways: shown rotated 90 degrees
    made = thumbnails.thumbnail(source)
    image = Image.open(io.BytesIO(made))
    assert image.format == "WEBP"
    assert image.size == (360, 480)  # upright: portrait, the longer side 480
    assert not image.getexif() and "icc_profile" not in image.info and "exif" not in image.info
    for marker in (b"Exif", b"ICCPROFILE", b"secret note", GPS.encode()):
        assert marker not in made
    small = thumbnails.thumbnail(photo(120, 80))
    assert Image.open(io.BytesIO(small)).size == (120, 80)  # never enlarged


def test_bombs_damaged_and_foreign_bytes_are_refused_in_words() -> None:
    for side in (30_000, 7_000):  # past Pillow's own limit; past ours only (49 MP)
        with pytest.raises(thumbnails.NotAThumbnail, match="more than 40000000 pixels"):
            thumbnails.thumbnail(bomb(side))
    with pytest.raises(thumbnails.NotAThumbnail, match="not an image"):
        thumbnails.thumbnail(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    with pytest.raises(thumbnails.NotAThumbnail):
        thumbnails.thumbnail(photo(400, 300)[:600])  # cut short
    with pytest.raises(thumbnails.NotAThumbnail, match="larger than"):
        thumbnails.thumbnail(b"\xff" * (thumbnails.MAX_SOURCE_BYTES + 1))


async def upload(client: httpx.AsyncClient, room_id: str, body: bytes, name: str, csrf: str) -> str:
    headers = {**JSON, "x-file-name": name, "content-type": "image/jpeg", "x-csrf-token": csrf}
    up = await client.post(f"/rooms/{room_id}/files", content=body, headers=headers)
    assert up.status_code == 201, up.text
    return str(up.json()["data"]["id"])


async def test_the_web_app_serves_thumbnails_of_its_rooms_images(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    await sign_in(client, seeded.user_key)
    csrf = await token(client)
    room_id = (await act(client, "/rooms", {"title": "Photos"}, csrf=csrf)).json()["id"]
    picture = await upload(client, room_id, photo(1600, 1200), "holiday.jpg", csrf)
    big = await upload(client, room_id, bomb(30_000), "bomb.png", csrf)
    text = await upload(client, room_id, b"just words\n", "notes.txt", csrf)
    url = f"/rooms/{room_id}/files/{picture}/thumbnail"

    got = await client.get(url)
    assert got.status_code == 200
    assert got.headers["content-type"] == "image/webp"
    assert got.headers["cache-control"] == "private, max-age=31536000, immutable"
    assert got.headers["x-content-type-options"] == "nosniff"
    assert got.headers["content-disposition"].startswith("inline;")
    assert Image.open(io.BytesIO(got.content)).size == (480, 360)
    assert GPS.encode() not in got.content
    again = await client.get(url, headers={"If-None-Match": got.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    kept = list((platform.settings.data_dir / "thumbnails").iterdir())
    assert len(kept) == 1  # made once, read after

    refused = await client.get(f"/rooms/{room_id}/files/{big}/thumbnail", headers=JSON)
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "thumbnail_unavailable"
    assert "pixels" in refused.json()["error"]["message"]
    none = await client.get(f"/rooms/{room_id}/files/{text}/thumbnail", headers=JSON)
    assert none.status_code == 404 and none.json()["error"]["code"] == "no_thumbnail"

    # Someone not in the room gets nothing, as for the file itself.
    _, bob_key = await make_user(platform, "bob", "Bob")
    async with httpx.AsyncClient(transport=client._transport, base_url=str(client.base_url)) as bob:
        await sign_in(bob, bob_key)
        assert (await bob.get(url, headers=JSON)).status_code == 404
    async with httpx.AsyncClient(
        transport=client._transport, base_url=str(client.base_url)
    ) as anon:
        assert (await anon.get(url, headers=JSON)).status_code == 401
