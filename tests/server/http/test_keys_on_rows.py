"""Migration 0010: a speech post's key on its message, and back to a record on a downgrade."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import httpx
from agent_testkit import make_world
from sqlalchemy import text
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import create_async_engine

from band_server.api import agent as agent_api
from band_server.api import human as human_api
from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.http.fast_lane import lanes_of
from band_server.http.idempotency import body_hash, claimed_in_unit
from band_server.services.idempotency import row_keys
from band_server.store.migrate import migrate
from conftest import Seeded, make_agent, make_user


async def test_a_downgrade_keeps_the_keys_as_records_the_build_before_replays(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=None, redis_url=None)
    app = create_app(settings)
    sent: list[tuple[str, dict[str, str], bytes, str]] = []
    async with app.router.lifespan_context(app):
        platform = app.state.platform
        user_id, user_key = await make_user(platform, "alice", "Alice")
        agent_id, agent_key, handle = await make_agent(platform, user_id, "Echo")
        w = await make_world(
            platform, Seeded(user_id, user_key, "alice", agent_id, agent_key, handle)
        )
        reply = {"message": {"content": "both", "mentions": [{"handle": "alice"}]}}
        reply["message"]["mentions"].append({"handle": w.helper_handle})
        cases = [
            (w.url("/messages"), agent_key, reply),
            (w.url("/events"), agent_key, {"event": {"content": "t", "message_type": "thought"}}),
            (f"/api/v1/me/chats/{w.room_id}/messages", user_key, {"message": {"content": "hi"}}),
        ]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
            for n, (url, key, payload) in enumerate(cases):
                headers = {
                    "X-API-Key": key,
                    "Idempotency-Key": f"down-{n}",
                    "Content-Type": "application/json",
                }
                raw = json.dumps(payload).encode()
                r = await c.post(url, content=raw, headers=headers)
                assert r.status_code == 201, r.text
                sent.append((url, headers, raw, r.text))

    engine = create_async_engine(settings.resolved_database_url)
    try:
        await migrate(engine, "downgrade", "0009")
        async with engine.connect() as conn:
            records = {
                path: (h, status, sealed)
                for path, h, status, sealed in await conn.execute(
                    text("SELECT path, body_hash, status_code, sealed_body FROM idempotency_keys")
                )
            }
            columns = [r[1] for r in await conn.execute(text("PRAGMA table_info(messages)"))]
        assert "idem_key" not in columns and "idem_body" not in columns
        # What the build before this compares and replays: path, body hash, ``p1.<answer>``.
        assert records == {
            url: (body_hash({}, raw), 201, "p1." + answer) for url, _, raw, answer in sent
        }
        await migrate(engine, "upgrade", "head")
    finally:
        await engine.dispose()

    app = create_app(settings)  # and up again: the records replay for their day
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
            for url, headers, raw, answer in sent:
                again = await c.post(url, content=raw, headers=headers)
                assert again.status_code == 201 and again.text == answer
                assert again.headers["idempotent-replayed"] == "true"


def test_every_route_that_claims_in_its_unit_answers_what_the_row_replays() -> None:
    lanes = [*lanes_of("/api/v1/agent", agent_api), *lanes_of("/api/v1/me", human_api)]
    claiming = [lane.route for lane in lanes if claimed_in_unit(lane.route.endpoint)]
    assert len(claiming) == 3
    for route in claiming:
        assert route.methods == {"POST"} and route.status_code == row_keys.STATUS
        assert route.path.rsplit("/", 1)[-1] in ("messages", "events")


async def test_the_sweep_reads_only_the_expired_keys(platform: Platform) -> None:
    """SQLite's plan for the sweep: a range on the keyed rows' ``created_at``, not a walk of
    every keyed row of the day in key order."""
    stmt = str(row_keys._SWEEP.compile(dialect=sqlite.dialect()))
    with contextlib.closing(sqlite3.connect(platform.settings.data_dir / "band.db")) as conn:
        plan = conn.execute(f"EXPLAIN QUERY PLAN {stmt}", (None, None, "2026-01-01")).fetchall()
    assert any("ix_messages_idem_created (created_at<?)" in row[-1] for row in plan), plan
