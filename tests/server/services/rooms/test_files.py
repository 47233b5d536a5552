"""Room files on both surfaces: upload, download, attach to messages, and refused input."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_testkit import World, counts, key, make_room, make_world, recording
from fastapi import FastAPI
from sqlalchemy import func, select

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.store.models import RoomFile
from conftest import Seeded, make_user

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(64))
LIMIT = 4096


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=None, redis_url=None, max_file_bytes=LIMIT
    )


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def agent_files(w: World, room_id: str | None = None) -> str:
    return f"/api/v1/agent/chats/{room_id or w.room_id}/files"


def human_files(w: World, room_id: str | None = None) -> str:
    return f"/api/v1/me/chats/{room_id or w.room_id}/files"


async def upload(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    url: str,
    body: bytes,
    name: str | None = "notes.txt",
    content_type: str = "text/plain",
    sha256: str | None = None,
) -> httpx.Response:
    extra = {"content-type": content_type}
    if name is not None:
        extra["x-file-name"] = name
    if sha256 is not None:
        extra["x-file-sha256"] = sha256
    return await client.put(url, headers={**headers, **extra}, content=body)


async def stored_files(platform: Platform) -> int:
    async with platform.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(RoomFile)) or 0)


def blobs(platform: Platform) -> list[Path]:
    root = platform.settings.data_dir / "files"
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def assert_error(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code
    assert error["message"] and error["request_id"]


# -- success ---------------------------------------------------------------------------------


async def test_agent_upload_is_stored_durably_and_a_person_downloads_the_same_bytes(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    body = b"hello, room\n"
    digest = hashlib.sha256(body).hexdigest()
    r = await upload(client, w.echo_key, agent_files(w), body, sha256=digest)
    assert r.status_code == 201
    att = r.json()["data"]
    assert att == {
        "id": att["id"],
        "name": "notes.txt",
        "content_type": "text/plain",
        "bytes": len(body),
        "sha256": digest,
        "has_thumb": False,
        "expires_at": None,
    }
    blob = platform.settings.data_dir / "files" / digest[:2] / digest
    assert blob.read_bytes() == body

    got = await client.get(f"{human_files(w)}/{att['id']}", headers=w.alice_key)
    assert got.status_code == 200
    assert got.content == body
    assert got.headers["content-type"].startswith("text/plain")
    assert got.headers["content-disposition"].startswith('attachment; filename="notes.txt"')
    assert got.headers["x-content-type-options"] == "nosniff"
    assert got.headers["etag"] == f'"{digest}"'
    assert got.headers["content-length"] == str(len(body))


async def test_same_bytes_twice_in_a_room_are_one_record(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await upload(client, w.echo_key, agent_files(w), b"same bytes")
    again = await upload(client, w.alice_key, human_files(w), b"same bytes", name="copy.txt")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["data"] == first.json()["data"]
    assert await stored_files(platform) == 1
    assert len(blobs(platform)) == 1


async def test_person_upload_is_downloaded_by_an_agent(client: httpx.AsyncClient, w: World) -> None:
    r = await upload(client, w.alice_key, human_files(w), PNG, name="pic.png")
    assert r.status_code == 201
    file_id = r.json()["data"]["id"]
    assert r.json()["data"]["content_type"] == "image/png"
    got = await client.get(f"{agent_files(w)}/{file_id}", headers=w.echo_key)
    assert got.status_code == 200 and got.content == PNG


@pytest.mark.parametrize(
    ("header", "status", "part"),
    [
        ("bytes=2-5", 206, slice(2, 6)),
        ("bytes=7-", 206, slice(7, None)),
        ("bytes=-3", 206, slice(-3, None)),
        ("bytes=3-1000", 206, slice(3, None)),
        ("pages=1-2", 200, slice(None)),
        ("bytes=5-2", 200, slice(None)),
    ],
)
async def test_range_reads_a_part_and_an_unparsable_range_reads_all(
    client: httpx.AsyncClient, w: World, header: str, status: int, part: slice
) -> None:
    body = b"0123456789"
    file_id = (await upload(client, w.echo_key, agent_files(w), body)).json()["data"]["id"]
    got = await client.get(f"{agent_files(w)}/{file_id}", headers={**w.echo_key, "range": header})
    assert got.status_code == status
    assert got.content == body[part]
    if status == 206:
        start = body.index(body[part])
        assert got.headers["content-range"] == f"bytes {start}-{start + len(got.content) - 1}/10"


async def test_range_past_the_end_is_416(client: httpx.AsyncClient, w: World) -> None:
    file_id = (await upload(client, w.echo_key, agent_files(w), b"abc")).json()["data"]["id"]
    got = await client.get(
        f"{agent_files(w)}/{file_id}", headers={**w.echo_key, "range": "bytes=10-"}
    )
    assert_error(got, 416, "range_not_satisfiable")
    assert got.headers["content-range"] == "bytes */3"


async def test_a_message_shows_its_attachments_in_the_timeline_push_and_context(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    att = (await upload(client, w.echo_key, agent_files(w), b"report")).json()["data"]
    with recording(platform) as rec:
        r = await client.post(
            w.url("/messages"),
            headers=w.echo_key,
            json={
                "message": {
                    "content": "Shared a file: notes.txt",
                    "mentions": [{"id": w.alice}],
                    "attachment_ids": [att["id"], att["id"]],
                }
            },
        )
    assert r.status_code == 201
    [pushed] = rec.events("message_created")
    assert pushed.payload["attachments"] == [att]

    listed = await client.get(f"/api/v1/me/chats/{w.room_id}/messages", headers=w.alice_key)
    [msg] = [m for m in listed.json()["data"] if m["id"] == r.json()["data"]["id"]]
    assert msg["attachments"] == [att]
    assert msg["message_type"] == "text"

    context = await client.get(w.url("/context"), headers=w.echo_key)
    assert [m["attachments"] for m in context.json()["data"]] == [[att]]

    plain = await client.post(
        w.url("/messages"),
        headers=w.echo_key,
        json={"message": {"content": "no file", "mentions": [{"id": w.alice}]}},
    )
    listed = await client.get(f"/api/v1/me/chats/{w.room_id}/messages", headers=w.alice_key)
    [msg] = [m for m in listed.json()["data"] if m["id"] == plain.json()["data"]["id"]]
    assert msg["attachments"] == []


async def test_a_person_can_attach_files_to_a_message(client: httpx.AsyncClient, w: World) -> None:
    att = (await upload(client, w.alice_key, human_files(w), b"spec")).json()["data"]
    r = await client.post(
        f"/api/v1/me/chats/{w.room_id}/messages",
        headers=w.alice_key,
        json={"message": {"content": "see file", "mentions": [], "attachment_ids": [att["id"]]}},
    )
    assert r.status_code == 201
    listed = await client.get(f"/api/v1/me/chats/{w.room_id}/messages", headers=w.alice_key)
    assert listed.json()["data"][-1]["attachments"] == [att]


@pytest.mark.parametrize(
    ("declared", "body", "expected"),
    [
        ("text/plain", PNG, "image/png"),
        ("image/png", b"just text", "text/plain"),
        ("text/markdown; charset=utf-8", b"# Title\n", "text/markdown"),
        ("application/json", b'{"a": 1}', "application/json"),
        ("text/plain", b"\x00\x01\x02binary", "application/octet-stream"),
        ("text/html", "caf\u00e9".encode(), "text/html"),
    ],
)
async def test_content_type_is_judged_from_the_bytes(
    client: httpx.AsyncClient, w: World, declared: str, body: bytes, expected: str
) -> None:
    r = await upload(client, w.echo_key, agent_files(w), body, content_type=declared)
    assert r.status_code == 201
    assert r.json()["data"]["content_type"] == expected


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("caf%C3%A9.txt", "caf\u00e9.txt"),
        ("  spaced.txt  ", "spaced.txt"),
        ("tab\there.txt", "tabhere.txt"),
        ("x" * 300 + ".txt", "x" * 251 + ".txt"),
        (".env", ".env"),
    ],
)
async def test_file_names_are_cleaned(
    client: httpx.AsyncClient, w: World, raw: str, stored: str
) -> None:
    r = await upload(client, w.echo_key, agent_files(w), raw.encode(), name=raw)
    assert r.status_code == 201, r.text
    assert r.json()["data"]["name"] == stored


# -- refused ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", [None, "", "   ", "../../etc/passwd", "dir/file.txt", "..\\boot.ini", "..", "%00a"]
)
async def test_bad_file_names_are_refused_and_nothing_is_stored(
    client: httpx.AsyncClient, platform: Platform, w: World, name: str | None
) -> None:
    r = await upload(client, w.echo_key, agent_files(w), b"data", name=name)
    assert_error(r, 422, "invalid_file_name")
    assert r.json()["error"]["details"]["/x-file-name"]
    assert await stored_files(platform) == 0
    assert blobs(platform) == []


async def test_empty_upload_is_refused(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await upload(client, w.alice_key, human_files(w), b"")
    assert_error(r, 422, "empty_file")
    assert await stored_files(platform) == 0 and blobs(platform) == []


@pytest.mark.parametrize("digest", ["0" * 64, "not-hex", "A" * 63])
async def test_wrong_or_malformed_checksum_is_refused(
    client: httpx.AsyncClient, platform: Platform, w: World, digest: str
) -> None:
    r = await upload(client, w.echo_key, agent_files(w), b"data", sha256=digest)
    assert_error(r, 422, "checksum_mismatch")
    assert await stored_files(platform) == 0 and blobs(platform) == []


async def test_oversized_upload_declared_by_content_length_is_413(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await upload(client, w.echo_key, agent_files(w), b"x" * (LIMIT + 1))
    assert_error(r, 413, "payload_too_large")
    assert r.json()["error"]["details"] == {"limit": LIMIT}
    assert await stored_files(platform) == 0 and blobs(platform) == []


async def test_oversized_streamed_upload_is_cut_off_at_the_limit(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    sent = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(10_000):  # 10 MB if nobody stops us
            sent += 1024
            yield b"y" * 1024

    headers = {**w.echo_key, "x-file-name": "big.bin"}
    r = await client.put(agent_files(w), headers=headers, content=endless())
    assert_error(r, 413, "payload_too_large")
    assert sent < 100 * 1024  # read only until the limit was passed
    assert await stored_files(platform) == 0 and blobs(platform) == []


async def test_exactly_the_limit_is_accepted(client: httpx.AsyncClient, w: World) -> None:
    r = await upload(client, w.echo_key, agent_files(w), b"z" * LIMIT, name="full.bin")
    assert r.status_code == 201 and r.json()["data"]["bytes"] == LIMIT


async def test_a_room_the_caller_is_not_in_is_404_for_upload_and_download(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    carol_id, carol_key = await make_user(platform, "carol")
    other_room = await make_room(platform, carol_id, title="Carol's")
    r = await upload(client, w.echo_key, agent_files(w, other_room), b"data")
    assert_error(r, 404, "not_found")
    r = await upload(client, w.alice_key, human_files(w, other_room), b"data")
    assert_error(r, 404, "not_found")
    assert await stored_files(platform) == 0 and blobs(platform) == []

    theirs = await upload(client, key(carol_key), human_files(w, other_room), b"secret")
    file_id = theirs.json()["data"]["id"]
    # Their file named through our room, through their room, and an unknown id: the same 404.
    for url in (
        f"{agent_files(w)}/{file_id}",
        f"{agent_files(w, other_room)}/{file_id}",
        f"{agent_files(w)}/00000000-0000-0000-0000-000000000000",
        f"{agent_files(w)}/{'x' * 500}",
    ):
        got = await client.get(url, headers=w.echo_key)
        assert_error(got, 404, "not_found")


async def test_another_rooms_file_cannot_be_attached(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    side = await make_room(platform, w.alice, w.echo, title="Side")
    att = (await upload(client, w.echo_key, agent_files(w, side), b"side")).json()["data"]
    before = await counts(platform, w.room_id)
    r = await client.post(
        w.url("/messages"),
        headers=w.echo_key,
        json={
            "message": {
                "content": "look",
                "mentions": [{"id": w.alice}],
                "attachment_ids": ["nope", att["id"]],
            }
        },
    )
    assert_error(r, 422, "unknown_attachment")
    assert set(r.json()["error"]["details"]) == {
        "/message/attachment_ids/0",
        "/message/attachment_ids/1",
    }
    assert await counts(platform, w.room_id) == before


async def test_more_than_ten_attachments_is_422(client: httpx.AsyncClient, w: World) -> None:
    r = await client.post(
        w.url("/messages"),
        headers=w.echo_key,
        json={
            "message": {
                "content": "many",
                "mentions": [{"id": w.alice}],
                "attachment_ids": [f"f{i}" for i in range(11)],
            }
        },
    )
    assert_error(r, 422, "validation_error")


async def test_wrong_kind_of_key_is_403(client: httpx.AsyncClient, w: World) -> None:
    r = await upload(client, w.alice_key, agent_files(w), b"data")
    assert_error(r, 403, "agent_key_required")
    r = await upload(client, w.echo_key, human_files(w), b"data")
    assert_error(r, 403, "user_key_required")
    r = await client.put(agent_files(w), content=b"data", headers={"x-file-name": "a"})
    assert_error(r, 401, "unauthorized")


async def test_missing_bytes_in_the_store_are_503_not_500(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    att = (await upload(client, w.echo_key, agent_files(w), b"gone soon")).json()["data"]
    for blob in blobs(platform):
        blob.unlink()
    got = await client.get(f"{agent_files(w)}/{att['id']}", headers=w.echo_key)
    assert_error(got, 503, "file_unavailable")


async def test_agent_me_says_file_transfer_is_served(client: httpx.AsyncClient, w: World) -> None:
    r = await client.get("/api/v1/agent/me", headers=w.echo_key)
    assert r.json()["data"]["feature_flags"]["ff_file_transfer"] is True


async def test_the_limit_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BAND_MAX_FILE_BYTES", "123")
    assert Settings(data_dir=tmp_path).max_file_bytes == 123
    monkeypatch.delenv("BAND_MAX_FILE_BYTES")
    assert Settings(data_dir=tmp_path).max_file_bytes == 25 * 1024 * 1024
    monkeypatch.setenv("BAND_MAX_FILE_BYTES", "lots")
    with pytest.raises(ValueError, match="BAND_MAX_FILE_BYTES"):
        Settings(data_dir=tmp_path)


async def test_files_survive_a_restart(settings: Settings, seeded: Seeded, w: World) -> None:
    # ``seeded``/``w`` live on the ``app`` fixture's database; a second app on the same folder
    # must serve the same file.
    del seeded
    first = create_app(dataclasses.replace(settings))
    async with first.router.lifespan_context(first), _client(first) as c:
        att = (await upload(c, w.echo_key, agent_files(w), b"kept")).json()["data"]
    second = create_app(dataclasses.replace(settings))
    async with second.router.lifespan_context(second), _client(second) as c:
        got = await c.get(f"{agent_files(w)}/{att['id']}", headers=w.echo_key)
    assert got.content == b"kept"


def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://band.test")


class _FullDisk:
    """A file store whose disk is full."""

    async def stage(self, chunks: AsyncIterator[bytes], *, max_bytes: int) -> Any:
        async for _ in chunks:
            pass
        raise OSError(28, "No space left on device")

    def read(self, sha256: str, start: int = 0, end: int | None = None) -> AsyncIterator[bytes]:
        raise AssertionError("not read")


async def test_a_full_disk_is_503_and_nothing_is_recorded(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    platform.files = _FullDisk()
    r = await upload(client, w.echo_key, agent_files(w), b"data")
    assert_error(r, 503, "file_unavailable")
    assert await stored_files(platform) == 0


async def test_openapi_declares_the_file_statuses_with_the_envelope(
    client: httpx.AsyncClient,
) -> None:
    doc = (await client.get("/openapi.json")).json()
    for surface in ("agent", "me"):
        upload_op = doc["paths"][f"/api/v1/{surface}/chats/{{chat_id}}/files"]["put"]
        download_op = doc["paths"][f"/api/v1/{surface}/chats/{{chat_id}}/files/{{file_id}}"]["get"]
        assert {"401", "403", "404", "413", "422", "503"} <= set(upload_op["responses"])
        assert {"401", "403", "404", "416", "503"} <= set(download_op["responses"])
        envelope = upload_op["responses"]["413"]["content"]["application/json"]["schema"]
        assert envelope == {"$ref": "#/components/schemas/ErrorEnvelope"}
