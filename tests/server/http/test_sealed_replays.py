"""Idempotency records hold no secret: keyed creates and key rotations replay, sealed.

A keyed ``register_my_agent`` or regenerate-key answer holds a plain API key. The record kept
for the retry must not: the database file is scanned byte for byte after the requests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import httpx
from agent_testkit import make_world
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from band.protocol import utcnow
from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.http.idempotency import body_hash
from band_server.services.unit import UnitOfWork
from band_server.store.migrate import migrate
from conftest import Seeded, make_user

REGISTER = "/api/v1/me/agents/register"
SECRET_FIELDS = {"api_key", "access_token"}


def agent_body(name: str) -> dict[str, Any]:
    return {"agent": {"name": name, "description": "Answers questions about the weather"}}


def me(seeded: Seeded, key: str | None = None) -> dict[str, str]:
    headers = {"X-API-Key": seeded.user_key}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


async def database_bytes(platform: Platform, settings: Settings) -> bytes:
    """Every byte SQLite holds for the platform: the file, its WAL and shared memory."""
    async with platform.db.write() as session:
        await session.execute(text("SELECT 1"))
    files = sorted(Path(settings.data_dir).glob("band.db*"))
    assert files, "the platform's SQLite file"
    return b"".join(f.read_bytes() for f in files)


async def agent_count(client: httpx.AsyncClient, seeded: Seeded) -> int:
    r = await client.get("/api/v1/me/agents", headers=me(seeded))
    assert r.status_code == 200
    return len(r.json()["data"])


async def test_no_plain_key_in_the_database_and_retries_replay_the_same_agent_and_key(
    client: httpx.AsyncClient, platform: Platform, settings: Settings, seeded: Seeded
) -> None:
    idem_create, idem_rotate = "create-7f3c2a9e-5d41-4c0b", "rotate-0b8e61d4-93aa-4f2e"
    before = await agent_count(client, seeded)
    made = await client.post(REGISTER, json=agent_body("Weather"), headers=me(seeded, idem_create))
    assert made.status_code == 201, made.text
    assert made.headers["cache-control"] == "no-store"
    agent_id = made.json()["data"]["agent"]["id"]
    first_key = made.json()["data"]["credentials"]["api_key"]

    rotated = await client.post(
        f"/api/v1/me/agents/{agent_id}/regenerate-key", headers=me(seeded, idem_rotate)
    )
    assert rotated.status_code == 200, rotated.text
    assert rotated.headers["cache-control"] == "no-store"
    new_key = rotated.json()["data"]["credentials"]["api_key"]
    assert new_key != first_key

    # Neither API key, nor the Idempotency-Keys that would open the records, is stored.
    stored = await database_bytes(platform, settings)
    assert b"Answers questions about the weather" in stored  # the scan sees what is stored
    for secret in (first_key, new_key, idem_create, idem_rotate):
        assert secret.encode() not in stored, f"{secret[:12]}... is in the database file"
    async with platform.db.read() as session:
        rows = (await session.execute(text("SELECT COUNT(*) FROM idempotency_keys"))).scalar()
    assert rows == 2  # both answers are kept for their retries, sealed

    # A retry (the answer was lost on the way) gets the same agent and the same key back.
    again = await client.post(REGISTER, json=agent_body("Weather"), headers=me(seeded, idem_create))
    assert again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.headers["cache-control"] == "no-store"
    assert again.json() == made.json()
    assert await agent_count(client, seeded) == before + 1

    rotated_again = await client.post(
        f"/api/v1/me/agents/{agent_id}/regenerate-key", headers=me(seeded, idem_rotate)
    )
    assert rotated_again.json() == rotated.json()
    # The replayed key is the live one; the first key stopped working at the rotation.
    assert (await client.get("/api/v1/agent/me", headers={"X-API-Key": new_key})).status_code == 200
    old = await client.get("/api/v1/agent/me", headers={"X-API-Key": first_key})
    assert old.status_code == 401

    # The same key with another body is refused, and creates nothing.
    other = await client.post(REGISTER, json=agent_body("Climate"), headers=me(seeded, idem_create))
    assert other.status_code == 422
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert await agent_count(client, seeded) == before + 1


async def test_a_record_opens_only_with_its_own_key(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    made = await client.post(REGISTER, json=agent_body("Sealed"), headers=me(seeded, "seal-a"))
    assert made.status_code == 201
    async with platform.db.write() as session:
        record = (await session.execute(text("SELECT sealed_body FROM idempotency_keys"))).one()
        assert record.sealed_body.startswith("v1.")
        # Tamper with the stored answer: the replay is refused rather than served or redone.
        await session.execute(
            text("UPDATE idempotency_keys SET sealed_body = :b"),
            {"b": record.sealed_body[:-6] + "AAAAAA"},
        )
    r = await client.post(REGISTER, json=agent_body("Sealed"), headers=me(seeded, "seal-a"))
    assert r.status_code == 422 and r.json()["error"]["code"] == "idempotency_key_reused"
    assert "api_key" not in r.text


async def test_every_answer_that_holds_a_secret_says_no_store(app: FastAPI) -> None:
    """Walks the OpenAPI document: a success answer with a key or token field declares
    ``Cache-Control: no-store`` (and the routes send it, checked above and in
    test_delegation), so no secret-bearing route can be added without it."""
    doc = app.openapi()
    schemas = doc["components"]["schemas"]

    def fields(schema: dict[str, Any], seen: frozenset[str] = frozenset()) -> set[str]:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            return set() if name in seen else fields(schemas[name], seen | {name})
        found = set(schema.get("properties", {}))
        for sub in [
            *schema.get("properties", {}).values(),
            *schema.get("anyOf", []),
            *schema.get("allOf", []),
        ]:
            found |= fields(sub, seen)
        if isinstance(schema.get("items"), dict):
            found |= fields(schema["items"], seen)
        return found

    secret_routes = []
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            for status, answer in op["responses"].items():
                if not status.startswith("2"):
                    continue
                schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
                if fields(schema) & SECRET_FIELDS:
                    secret_routes.append(f"{method.upper()} {path}")
                    assert "Cache-Control" in answer.get("headers", {}), (method, path)
    assert sorted(secret_routes) == [
        "POST /api/v1/admin/imports/{import_id}/records",  # people and agents an import makes
        "POST /api/v1/agent/delegation/token",
        "POST /api/v1/me/agents/register",
        "POST /api/v1/me/agents/{agent_id}/regenerate-key",
        "POST /api/v1/me/delegation/systems",
        "PUT /api/v1/admin/imports/{import_id}/files",  # its record's schema has api_key
    ]


async def test_a_target_system_key_is_no_store_and_its_keyed_retry_is_the_same_system(
    client: httpx.AsyncClient, platform: Platform, settings: Settings, seeded: Seeded
) -> None:
    body = {"system": {"name": "Calendar"}}
    first = await client.post(
        "/api/v1/me/delegation/systems", json=body, headers=me(seeded, "sys-1")
    )
    assert first.status_code == 201 and first.headers["cache-control"] == "no-store"
    again = await client.post(
        "/api/v1/me/delegation/systems", json=body, headers=me(seeded, "sys-1")
    )
    assert again.json() == first.json()
    key = first.json()["data"]["credentials"]["api_key"]
    assert key.encode() not in await database_bytes(platform, settings)
    async with platform.db.read() as session:
        systems = (await session.execute(text("SELECT COUNT(*) FROM delegation_systems"))).scalar()
    assert systems == 1


async def test_records_kept_before_the_upgrade_are_sealed_in_place(tmp_path: Path) -> None:
    """A record written in the clear by an older platform (0007) is converted by migration
    0008: its plain bytes leave the file, and a retry with its key still replays it."""
    settings = Settings(data_dir=tmp_path / "data", database_url=None, redis_url=None)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        user_id, user_key = await make_user(app.state.platform, "carol")

    legacy_key, legacy_secret = "legacy-4d1e0c77", "band_a_legacy_secret_9c2f"
    answer = json.dumps({"data": {"credentials": {"api_key": legacy_secret}}})
    body = json.dumps(agent_body("Legacy")).encode()
    engine = create_async_engine(settings.resolved_database_url)
    try:
        await migrate(engine, "downgrade", "0007")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO idempotency_keys (principal_id, key, method, path, body_hash,"
                    " status_code, response_body, created_at) VALUES"
                    " (:p, :k, 'POST', :path, :h, 201, :b, :at)"
                ),
                {
                    "p": user_id,
                    "k": legacy_key,
                    "path": REGISTER,
                    "h": body_hash({"query_string": b""}, body),
                    "b": answer,
                    "at": utcnow(),
                },
            )
        await migrate(engine, "upgrade", "head")
    finally:
        await engine.dispose()
    stored = b"".join(f.read_bytes() for f in sorted(settings.data_dir.glob("band.db*")))
    assert legacy_secret.encode() not in stored and legacy_key.encode() not in stored

    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
            r = await c.post(
                REGISTER,
                content=body,
                headers={
                    "X-API-Key": user_key,
                    "Idempotency-Key": legacy_key,
                    "Content-Type": "application/json",
                },
            )
    assert r.status_code == 201 and r.headers["idempotent-replayed"] == "true"
    assert r.json() == json.loads(answer)


async def test_an_agents_keyed_post_keeps_its_secret_free_answer_as_it_is(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    """The agent's message route declares its answer free of secrets (ids and recipients):
    nothing of it is kept but its message, which carries the key's and the body's hashes, and
    the replay rebuilt from that row is the same answer."""
    w = await make_world(platform, seeded)
    body = {"message": {"content": "plain reply", "mentions": [{"handle": "alice"}]}}
    headers = {"X-API-Key": seeded.agent_key, "Idempotency-Key": "turn-5e0b"}
    first = await client.post(w.url("/messages"), json=body, headers=headers)
    again = await client.post(w.url("/messages"), json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    async with platform.db.read() as session:
        kept = (await session.execute(text("SELECT COUNT(*) FROM idempotency_keys"))).scalar()
        key = (await session.execute(text("SELECT idem_key FROM messages"))).scalar()
    assert kept == 0 and key is not None and "turn-5e0b" not in key
    assert b"turn-5e0b" not in await database_bytes(platform, platform.settings)


def test_an_answer_with_a_secret_field_is_sealed_even_where_secret_free_is_declared() -> None:
    uow = UnitOfWork(cast(AsyncSession, None))
    uow.keep_answer(201, {"data": {"id": "m1", "success": True}}, secret_free=True)
    assert uow.secret_free
    uow.keep_answer(201, {"data": {"id": "a1", "api_key": "sk-live"}}, secret_free=True)
    assert not uow.secret_free
    uow.keep_answer(201, {"data": {"id": "m2"}})
    assert not uow.secret_free
