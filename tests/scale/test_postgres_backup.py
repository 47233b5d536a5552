"""``band backup`` / ``band restore`` on a real PostgreSQL (issue 36): ``pg_dump``'s one
snapshot, taken while people keep posting, restores into another database as one consistent
moment that a platform then serves, files included; a PostgreSQL backup is refused by a
SQLite deployment."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from pathlib import Path

import asyncpg
import httpx
import pytest

from band_server.app import create_app
from band_server.cli import main as band
from band_server.config import Settings
from band_server.services.identity import accounts

from .nodes import serve
from .real_services import PostgresServer

pytestmark = pytest.mark.timeout(180)

FILE = b"a file the PostgreSQL backup must carry\n"


def _plain(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


async def _rooms_of(url: str) -> dict[str, list[tuple[int, str]]]:
    conn = await asyncpg.connect(_plain(url))
    try:
        rows = await conn.fetch("SELECT room_id, seq, content FROM messages ORDER BY room_id, seq")
    finally:
        await conn.close()
    out: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        out.setdefault(str(row["room_id"]), []).append((row["seq"], row["content"]))
    return out


async def test_a_postgres_backup_taken_while_people_post_restores_one_moment(
    tmp_path: Path,
    pg_url: str,
    postgres_server: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump / pg_restore are not installed")
    source = Settings(data_dir=tmp_path / "a", database_url=pg_url, redis_url=None)
    async with serve(source) as node:
        async with node.platform.db.write() as session:
            _, key = await accounts.create_user(session, name="Alice", handle="alice")
        headers = {"X-API-Key": key}
        async with httpx.AsyncClient(base_url=node.url, headers=headers, timeout=30) as c:
            rooms = []
            for title in ("One", "Two"):
                made = await c.post("/api/v1/me/chats", json={"chat": {"title": title}})
                rooms.append(made.json()["data"]["id"])
            sha = hashlib.sha256(FILE).hexdigest()
            upload = {
                "x-file-name": "notes.txt",
                "x-file-sha256": sha,
                "content-type": "text/plain",
            }
            put = await c.put(f"/api/v1/me/chats/{rooms[0]}/files", content=FILE, headers=upload)
            assert put.status_code == 201, put.text
            stop = asyncio.Event()

            async def keep_posting(room: str) -> int:
                n = 0
                while not stop.is_set():
                    body = {"message": {"content": f"note {n}"}}
                    posted = await c.post(f"/api/v1/me/chats/{room}/messages", json=body)
                    assert posted.status_code == 201, posted.text
                    n += 1
                return n

            posters = [asyncio.create_task(keep_posting(r)) for r in rooms]
            await asyncio.sleep(0.5)
            dest = tmp_path / "backup"
            monkeypatch.setenv("BAND_DATABASE_URL", pg_url)
            status = await asyncio.to_thread(
                band, ["backup", str(dest), "--data", str(source.data_dir)]
            )
            await asyncio.sleep(0.3)
            stop.set()
            posted = sum(await asyncio.gather(*posters))
        live = await _rooms_of(pg_url)
    assert status == 0
    meta = json.loads((dest / "backup.json").read_text())
    assert meta["database"] == "postgresql" and meta["files"] == 1

    # A SQLite deployment refuses it, and is left empty.
    monkeypatch.delenv("BAND_DATABASE_URL")
    assert band(["restore", str(dest), "--data", str(tmp_path / "sqlite")]) == 1
    assert not (tmp_path / "sqlite" / "band.db").exists()

    target_url = await postgres_server.create_database()
    monkeypatch.setenv("BAND_DATABASE_URL", target_url)
    target = tmp_path / "b"
    assert await asyncio.to_thread(band, ["restore", str(dest), "--data", str(target)]) == 0
    snapshot = await _rooms_of(target_url)
    held = sum(len(v) for v in snapshot.values())
    assert 0 < held < posted  # taken mid-way: some posts were in, later ones were not
    for room, messages in snapshot.items():
        # One moment: every room's sequence is whole (1..n), the live room's first n.
        assert [seq for seq, _ in messages] == list(range(1, len(messages) + 1))
        assert messages == live[room][: len(messages)]

    app = create_app(Settings(data_dir=target, database_url=target_url, redis_url=None))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://band.test", headers=headers
        ) as c:
            body = {"message": {"content": "after the restore"}}
            after = await c.post(f"/api/v1/me/chats/{rooms[1]}/messages", json=body)
            assert after.status_code == 201, after.text
            last = await c.get(f"/api/v1/me/chats/{rooms[1]}/messages?limit=1")
            assert last.json()["data"][0]["seq"] == len(snapshot[rooms[1]]) + 1
            file_id = put.json()["data"]["id"]
            raw = await c.get(f"/api/v1/me/chats/{rooms[0]}/files/{file_id}")
    assert raw.content == FILE
