"""The composer's files: upload (CSRF by header, the size limit, names), then the message
that carries them, and the download link a room's people follow."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from web_testkit import JSON, act, sign_in, token

from band_server.config import Settings
from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.services.rooms import membership as rooms
from band_server.store.models import RoomFile
from conftest import Seeded, make_user

LIMIT = 4096
REPORT = b"quarterly numbers: all green\n"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=None, redis_url=None, max_file_bytes=LIMIT
    )


async def _room(client: httpx.AsyncClient, seeded: Seeded) -> tuple[str, str]:
    """Signed in as Alice, in a room of hers with Echo: (room id, CSRF token)."""
    await sign_in(client, seeded.user_key)
    csrf = await token(client)
    made = await act(
        client, "/rooms", {"title": "Files", "participant": seeded.agent_id}, csrf=csrf
    )
    return made.json()["id"], csrf


async def put(
    client: httpx.AsyncClient,
    room_id: str,
    body: bytes,
    *,
    csrf: str | None,
    name: str = "report.txt",
    **headers: str,
) -> httpx.Response:
    sent = {**JSON, "x-file-name": name, "content-type": "text/plain", **headers}
    if csrf is not None:
        sent["x-csrf-token"] = csrf
    return await client.post(f"/rooms/{room_id}/files", content=body, headers=sent)


async def stored_files(platform: Platform) -> int:
    async with platform.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(RoomFile)) or 0)


async def test_a_file_from_the_composer_is_sent_and_downloaded(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id, csrf = await _room(client, seeded)

    up = await put(client, room_id, REPORT, csrf=csrf)
    assert up.status_code == 201, up.text
    file = up.json()["data"]
    assert (file["name"], file["bytes"], file["content_type"]) == ("report.txt", 29, "text/plain")
    assert file["sha256"] == hashlib.sha256(REPORT).hexdigest()
    again = await put(client, room_id, REPORT, csrf=csrf)
    assert again.status_code == 200 and again.json()["data"]["id"] == file["id"]

    sent = await act(
        client,
        f"/rooms/{room_id}/messages",
        {"content": "@Echo the report", "attachment": file["id"]},
        csrf=csrf,
    )
    assert sent.status_code == 201, sent.text
    items = (await client.get(f"/rooms/{room_id}/timeline", headers=JSON)).json()["items"]
    assert [a["id"] for a in items[-1]["attachments"]] == [file["id"]]
    # The agent reads the same message (and its file) through its own surface.
    echo = {"X-API-Key": seeded.agent_key}
    nxt = await client.get(f"/api/v1/agent/chats/{room_id}/messages/next", headers=echo)
    assert nxt.json()["data"]["attachments"][0]["id"] == file["id"]

    down = await client.get(f"/rooms/{room_id}/files/{file['id']}")
    assert down.status_code == 200 and down.content == REPORT
    assert down.headers["content-disposition"].startswith("attachment;")
    assert down.headers["x-content-type-options"] == "nosniff"


async def test_an_upload_without_the_sessions_csrf_token_is_refused(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id, csrf = await _room(client, seeded)
    for given in (None, "not-the-token"):
        refused = await put(client, room_id, REPORT, csrf=given)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "csrf_failed"
    # A form field is no way around it: the body is the file.
    refused = await client.post(
        f"/rooms/{room_id}/files", data={"csrf": csrf}, headers={**JSON, "x-file-name": "a.txt"}
    )
    assert refused.status_code == 403
    assert await stored_files(platform) == 0

    client.cookies.clear()
    signed_out = await put(client, room_id, REPORT, csrf=csrf)
    assert signed_out.status_code == 401


async def test_an_oversized_file_is_413_and_nothing_is_kept(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id, csrf = await _room(client, seeded)
    declared = await put(client, room_id, b"x" * (LIMIT + 1), csrf=csrf)
    assert declared.status_code == 413, declared.text
    error = declared.json()["error"]
    assert error["code"] == "payload_too_large" and error["details"] == {"limit": LIMIT}

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: refused while streaming
        for _ in range(3):
            yield b"y" * 2048

    streamed = await client.post(
        f"/rooms/{room_id}/files",
        content=chunks(),
        headers={**JSON, "x-file-name": "big.bin", "x-csrf-token": csrf},
    )
    assert streamed.status_code == 413
    assert await stored_files(platform) == 0
    assert not [p for p in (platform.settings.data_dir / "files").rglob("*") if p.is_file()]


async def test_names_are_cleaned_and_paths_refused(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id, csrf = await _room(client, seeded)
    # The script percent-encodes the name (a header can't carry UTF-8 as such).
    accented = await put(client, room_id, b"one", csrf=csrf, name="%C3%A9t%C3%A9%0A.txt")
    assert accented.status_code == 201 and accented.json()["data"]["name"] == "été.txt"
    for bad in ("..%2Fsecret.txt", "a%2Fb.txt", "..", "%00.txt", ""):
        refused = await put(client, room_id, b"two", csrf=csrf, name=bad)
        assert refused.status_code == 422, (bad, refused.text)
        assert refused.json()["error"]["code"] == "invalid_file_name"
    empty = await put(client, room_id, b"", csrf=csrf, name="empty.txt")
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "empty_file"
    assert await stored_files(platform) == 1


async def test_files_stay_in_their_room(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id, csrf = await _room(client, seeded)
    bob_id, _ = await make_user(platform, "bob", "Bob")
    async with platform.db.write() as session:
        bob = accounts.user_principal(await accounts.get_user(session, bob_id))
        bobs, _ = await rooms.create_room(session, bob, title="Bob's", task_id=None)
    outside = await put(client, bobs.id, REPORT, csrf=csrf)
    assert outside.status_code == 404

    mine = (await put(client, room_id, REPORT, csrf=csrf)).json()["data"]["id"]
    other = (await act(client, "/rooms", {"title": "Other"}, csrf=csrf)).json()["id"]
    borrowed = await act(
        client, f"/rooms/{other}/messages", {"content": "hi", "attachment": mine}, csrf=csrf
    )
    assert borrowed.status_code == 422 and borrowed.json()["error"]["code"] == "unknown_attachment"
    assert (await client.get(f"/rooms/{other}/files/{mine}")).status_code == 404
    too_many = await act(
        client,
        f"/rooms/{room_id}/messages",
        {"content": "hi", "attachment": [mine] * 11},
        csrf=csrf,
    )
    assert too_many.status_code == 422
    assert "/message/attachment_ids" in too_many.json()["error"]["details"]
