"""Search's contract on SQLite: the OpenAPI document declares ``/api/v1/me/search`` as an
openband extension, an agent's key is refused, the web page needs a session and shows a
message's text as text, and migration 0013 indexes the messages that were already there.
(Both databases, and who finds what: tests/scale/test_search_databases.py.)"""

from __future__ import annotations

from pathlib import Path

import httpx
from socket_testkit import make_room
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from web_testkit import sign_in

from band_server.context import Platform
from band_server.services import search
from band_server.store.migrate import migrate
from conftest import Seeded


async def test_the_openapi_document_declares_search_as_our_extension(
    client: httpx.AsyncClient,
) -> None:
    doc = (await client.get("/openapi.json")).json()
    op = doc["paths"]["/api/v1/me/search"]["get"]
    assert op["x-openband-extension"] is True
    assert "openband extension" in op["summary"]
    assert {p["name"] for p in op["parameters"]} == {"q", "sort", "limit", "cursor"}
    assert {"200", "401", "403", "422", "503"} <= set(op["responses"])
    meta = doc["components"]["schemas"]["SearchMetadata"]
    assert {"next_cursor", "has_more", "count", "sort", "limit"} <= set(meta["properties"])
    hit = doc["components"]["schemas"]["SearchHit"]
    assert {"message", "chat_id", "snippet", "highlights"} <= set(hit["properties"])


async def test_an_agents_key_cannot_search(client: httpx.AsyncClient, seeded: Seeded) -> None:
    refused = await client.get(
        "/api/v1/me/search", params={"q": "x"}, headers={"X-API-Key": seeded.agent_key}
    )
    assert refused.status_code == 403
    assert (await client.get("/api/v1/me/search", params={"q": "x"})).status_code == 401


async def test_the_search_page_needs_a_session_and_shows_text_as_text(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    away = await client.get("/search", params={"q": "zeppelin"})
    assert away.status_code in (303, 401) and "zeppelin" not in away.text
    room = await make_room(platform, seeded.user_id)
    sent = await client.post(
        f"/api/v1/me/chats/{room}/messages",
        headers={"X-API-Key": seeded.user_key},
        json={"message": {"content": "<script>alert(1)</script> zeppelin <b>ok</b>"}},
    )
    assert sent.status_code == 201, sent.text
    await sign_in(client, seeded.user_key)
    page = await client.get("/search", params={"q": "zeppelin"})
    assert page.status_code == 200
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark>zeppelin</mark> &lt;b&gt;ok" in page.text
    assert "<script>alert" not in page.text
    assert f'href="/rooms/{room}?at=1#message-' in page.text
    nothing = await client.get("/search", params={"q": "?!"})
    assert nothing.status_code == 200 and "must contain a word" in nothing.text


def test_snippet_markers_become_spans() -> None:
    marked = "a \ue000launch\ue001 and \ue000Launch\ue001!"
    assert search.split_snippet(marked) == ("a launch and Launch!", [(2, 8), (13, 19)])
    assert search.words_of("Laun_ch, état? 42") == ["laun", "ch", "état", "42"]


async def test_migration_0013_indexes_the_messages_already_there(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    try:
        await migrate(engine, "upgrade", "0011")
        async with engine.begin() as conn:  # SQLite does not enforce the foreign keys here
            for sql in (
                "INSERT INTO messages (id, room_id, seq, sender_id, sender_type, message_type,"
                " content, metadata, created_at, updated_at) VALUES ('m1', 'r1', 1, 'u1', 'User',"
                " 'text', 'an archived zeppelin memo', '{}', 0, 0)",
                "INSERT INTO messages (id, room_id, seq, sender_id, sender_type, message_type,"
                " content, metadata, created_at, updated_at) VALUES ('m2', 'r1', 2, 'u1', 'User',"
                " 'thought', 'a zeppelin thought', '{}', 0, 0)",
            ):
                await conn.execute(text(sql))
        await migrate(engine, "upgrade", "head")
        async with engine.connect() as conn:
            found = await conn.execute(
                text("SELECT rowid FROM message_search WHERE message_search MATCH 'zeppelin'")
            )
            assert len(found.all()) == 1  # the text message, not the thought
    finally:
        await engine.dispose()
