"""``band backup`` / ``band restore`` (issue 36): a backup taken while people keep posting is
one consistent moment of the deployment, and restores into a platform that serves it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path

import httpx
import pytest

from band_server.app import create_app
from band_server.cli import main as band
from band_server.config import Settings
from conftest import LiveServer, Seeded

pytestmark = pytest.mark.timeout(120)

FILE = b"a file the backup must carry\n"


async def _room(c: httpx.AsyncClient, seeded: Seeded, title: str) -> str:
    room = (await c.post("/api/v1/me/chats", json={"chat": {"title": title}})).json()["data"]["id"]
    body = {"participant": {"participant_id": seeded.agent_id}}
    assert (await c.post(f"/api/v1/me/chats/{room}/participants", json=body)).status_code == 201
    return str(room)


def _rooms_of(db: Path) -> dict[str, list[tuple[int, str]]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT room_id, seq, content FROM messages ORDER BY room_id, seq")
        out: dict[str, list[tuple[int, str]]] = {}
        for room, seq, content in rows:
            out.setdefault(room, []).append((seq, content))
        return out
    finally:
        conn.close()


async def test_a_backup_taken_while_people_post_restores_one_consistent_moment(
    live_server: LiveServer, seeded: Seeded, settings: Settings, tmp_path: Path
) -> None:
    headers = {"X-API-Key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers, timeout=30) as c:
        rooms = [await _room(c, seeded, t) for t in ("One", "Two")]
        sha = hashlib.sha256(FILE).hexdigest()
        upload = {"x-file-name": "notes.txt", "x-file-sha256": sha, "content-type": "text/plain"}
        put = await c.put(f"/api/v1/me/chats/{rooms[0]}/files", content=FILE, headers=upload)
        assert put.status_code == 201
        stop = asyncio.Event()

        async def keep_posting(room: str) -> int:
            n = 0
            while not stop.is_set():
                body = {"message": {"content": f"@{seeded.agent_handle} note {n}"}}
                assert (
                    await c.post(f"/api/v1/me/chats/{room}/messages", json=body)
                ).status_code == 201
                n += 1
            return n

        posters = [asyncio.create_task(keep_posting(r)) for r in rooms]
        await asyncio.sleep(0.5)
        dest = tmp_path / "backup"
        status = await asyncio.to_thread(
            band, ["backup", str(dest), "--data", str(settings.data_dir)]
        )
        await asyncio.sleep(0.3)
        stop.set()
        posted = sum(await asyncio.gather(*posters))
    assert status == 0
    meta = json.loads((dest / "backup.json").read_text())
    assert meta["database"] == "sqlite" and meta["files"] == 1

    target = tmp_path / "restored"
    assert band(["restore", str(dest), "--data", str(target)]) == 0
    snapshot = _rooms_of(target / "band.db")
    live = _rooms_of(settings.data_dir / "band.db")
    held = sum(len(v) for v in snapshot.values())
    assert 0 < held < posted  # taken mid-way: some posts were in, later ones were not
    for room, messages in snapshot.items():
        # One moment: every room's sequence is whole (1..n), the live room's first n.
        assert [seq for seq, _ in messages] == list(range(1, len(messages) + 1))
        assert messages == live[room][: len(messages)]

    app = create_app(Settings(data_dir=target, database_url=None, redis_url=None))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://band.test", headers=headers
        ) as c:
            msgs = await c.get(f"/api/v1/me/chats/{rooms[0]}/messages?limit=1")
            assert msgs.json()["data"][0]["seq"] == len(snapshot[rooms[0]])
    assert (target / "files" / sha[:2] / sha).read_bytes() == FILE


async def test_restore_refuses_a_damaged_backup_and_an_occupied_folder(
    live_server: LiveServer, seeded: Seeded, settings: Settings, tmp_path: Path
) -> None:
    dest = tmp_path / "backup.tar"
    assert (
        await asyncio.to_thread(band, ["backup", str(dest), "--data", str(settings.data_dir)]) == 0
    )
    assert band(["restore", str(dest), "--data", str(settings.data_dir)]) == 1  # occupied
    target = tmp_path / "restored"
    assert band(["restore", str(dest), "--data", str(target)]) == 0
    assert band(["backup", str(dest), "--data", str(settings.data_dir)]) == 1  # exists already
    folder = tmp_path / "folder"
    assert (
        await asyncio.to_thread(band, ["backup", str(folder), "--data", str(settings.data_dir)])
        == 0
    )
    with (folder / "band.db").open("r+b") as db:
        db.seek(200)
        db.write(b"\xff" * 16)
    assert band(["restore", str(folder), "--data", str(tmp_path / "other")]) == 1
    assert not (tmp_path / "other" / "band.db").exists()
