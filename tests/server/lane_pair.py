"""Two platforms from one seeded database, one with the fast lane and one without, for the
differential test of the lane (``test_lane_equal.py``).

The world is seeded once through the REST API of an in-process app, the data folder copied
twice, and each copy served by uvicorn from a thread of its own (``BAND_FAST_LANE`` on and
off). A request is sent to both; :func:`snapshot` reads each database after it, with what is
random by design (new ids, times, hashes of new secrets, sealed answers) masked, so equal
snapshots mean the same rows were written.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from starlette.types import Message, Receive, Scope, Send

from band_server.app import create_app
from band_server.config import Settings
from band_server.services.identity import accounts
from band_server.store.search_index import index_pending
from conftest import free_port
from property_kit import serve_in_thread

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")
# Random by design in both apps alike: hashes and prefixes of keys minted during the run,
# answers sealed with a fresh nonce, a session's tokens.
VOLATILE = {
    ("api_keys", "key_hash"),
    ("api_keys", "prefix"),
    ("delegation_systems", "key_hash"),
    ("idempotency_keys", "sealed_body"),
}


@dataclass
class World:
    """Who and what exists, by name: ids for paths and bodies, keys per app (a key
    regenerated in one run is regenerated in both, to a different secret each)."""

    ids: dict[str, str]
    handles: dict[str, str]
    keys: list[dict[str, str]] = field(default_factory=list)  # per app: name -> key
    seed_ids: frozenset[str] = frozenset()


async def _seed(data_dir: Path) -> World:
    app = create_app(Settings(data_dir=data_dir, database_url=None, redis_url=None))
    ids: dict[str, str] = {}
    handles: dict[str, str] = {}
    keys: dict[str, str] = {}
    async with app.router.lifespan_context(app):
        platform = app.state.platform
        async with platform.db.write() as session:
            for name in ("alice", "bob", "mallory"):
                user, key = await accounts.create_user(session, name=name.title(), handle=name)
                ids[name], keys[name], handles[name] = user.id, key, name
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://seed") as c:

            async def call(who: str, method: str, path: str, body: Any = None) -> Any:
                r = await c.request(method, path, json=body, headers={"x-api-key": keys[who]})
                assert r.status_code < 300, (path, r.text)
                return r.json()["data"]

            for owner, name in (("alice", "Echo"), ("alice", "Helper"), ("mallory", "Mal")):
                body = {"agent": {"name": name, "description": "An agent for the lane test"}}
                made = await call(owner, "POST", "/api/v1/me/agents/register", body)
                tag = name.lower()
                ids[tag], handles[tag] = made["agent"]["id"], made["agent"]["handle"]
                keys[tag] = made["credentials"]["api_key"]
            # A revoked key: Helper's first key, replaced.
            keys["revoked"] = keys["helper"]
            again = await call("alice", "POST", f"/api/v1/me/agents/{ids['helper']}/regenerate-key")
            keys["helper"] = again["credentials"]["api_key"]
            # Bob becomes Alice's contact (people in one room must be), Mallory only asks.
            ask = {"contact_request": {"recipient_handle": "alice", "message": "hi"}}
            made = await call("bob", "POST", "/api/v1/me/contacts/requests", ask)
            await call("alice", "POST", f"/api/v1/me/contacts/requests/{made['id']}/approve")
            for owner, tag, members in (
                ("alice", "room", ("echo", "helper", "bob")),
                ("mallory", "foreign_room", ("mal",)),
                ("alice", "spare_room", ()),
            ):
                room = await call(owner, "POST", "/api/v1/me/chats", {"chat": {"title": tag}})
                ids[tag] = room["id"]
                for member in members:
                    add = {"participant": {"participant_id": ids[member]}}
                    await call(owner, "POST", f"/api/v1/me/chats/{room['id']}/participants", add)
            room_path = f"/api/v1/me/chats/{ids['room']}"
            for n in range(3):
                text = {"message": {"content": f"@{handles['echo']} job {n}", "mentions": []}}
                ids[f"message{n}"] = (await call("alice", "POST", f"{room_path}/messages", text))[
                    "id"
                ]
            agent_room = f"/api/v1/agent/chats/{ids['room']}"
            await call("echo", "POST", f"{agent_room}/messages/{ids['message0']}/processing")
            memory = {"memory": {"content": "Alice likes tea", "subject_id": ids["alice"]}}
            ids["memory"] = (await call("echo", "POST", "/api/v1/agent/memories", memory))["id"]
            task = await call("alice", "POST", f"{room_path}/tasks", {"subject": "Write it"})
            ids["task"] = task["id"]
            made = await call("mallory", "POST", "/api/v1/me/contacts/requests", ask)
            ids["contact_request"] = made["id"]
            system = {"system": {"name": "Calendar"}}
            made = await call("alice", "POST", "/api/v1/me/delegation/systems", system)
            ids["system"] = made["system"]["id"] if "system" in made else made["id"]
            consent = {"consent": {"agent_id": ids["mal"], "system_id": ids["system"]}}
            ids["consent"] = (
                await call("alice", "POST", "/api/v1/me/delegation/consents", consent)
            )["id"]
            job = await c.post(
                "/api/v1/me/chats/bulk-delete",
                json={"ids": [ids["spare_room"]]},
                headers={"x-api-key": keys["alice"]},
            )
            assert job.status_code == 202, job.text
            ids["job"] = job.json()["data"]["id"]
    return World(ids, handles, [dict(keys), dict(keys)], frozenset(ids.values()))


@dataclass
class Served:
    url: str
    app: FastAPI
    db: Path
    server: uvicorn.Server
    thread: threading.Thread


class _InPieces:
    """Hands an odd-length request body to the app in pieces of a few bytes, one message
    each (an even-length one as it came, most often whole): both apps then meet bodies that
    come in one message and in several, the lane's reading of them beside FastAPI's."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        pieces: list[Message] = []
        started = False

        async def in_pieces() -> Message:
            nonlocal started
            if not started:
                started = True
                first = await receive()
                body = first.get("body", b"")
                if first["type"] != "http.request" or first.get("more_body") or not len(body) % 2:
                    return first
                pieces.extend(
                    {"type": "http.request", "body": body[i : i + 7], "more_body": True}
                    for i in range(0, len(body), 7)
                )
                pieces[-1]["more_body"] = False
            return pieces.pop(0) if pieces else await receive()

        await self.app(scope, in_pieces, send)


def _serve(data_dir: Path, fast_lane: bool) -> Served:
    settings = Settings(data_dir=data_dir, database_url=None, redis_url=None, fast_lane=fast_lane)
    port = free_port()
    app = create_app(settings)
    config = uvicorn.Config(
        _InPieces(app), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server, thread = serve_in_thread(config)
    return Served(f"http://127.0.0.1:{port}", app, data_dir / "band.db", server, thread)


@dataclass
class Pair:
    """The world, and the app with the lane (index 0) beside the app without it (1)."""

    world: World
    served: tuple[Served, Served]
    clients: tuple[httpx.Client, httpx.Client]


@contextmanager
def pair(root: Path) -> Iterator[Pair]:
    """Seed a world in ``root``, serve two copies of it, stop both at the end."""
    seeded = root / "seed"
    world = asyncio.run(_seed(seeded))
    served: list[Served] = []
    try:
        for name, fast_lane in (("lane", True), ("routed", False)):
            shutil.copytree(seeded, root / name)
            served.append(_serve(root / name, fast_lane))
        a, b = served
        with (
            httpx.Client(base_url=a.url, timeout=30) as ca,
            httpx.Client(base_url=b.url, timeout=30) as cb,
        ):
            yield Pair(world, (a, b), (ca, cb))
    finally:
        for s in served:
            s.server.should_exit = True
        for s in served:
            s.thread.join(30)


def _masked(value: Any, known: frozenset[str]) -> Any:
    """``value`` with what differs between two equal runs masked: ids minted during the run,
    times, and (inside JSON text) the same again."""
    if isinstance(value, str):
        if value[:1] in "[{":
            try:
                return _masked(json.loads(value), known)
            except ValueError:
                pass
        if TIME.match(value):
            return "<time>"
        return UUID.sub(lambda m: m.group() if m.group() in known else "<new>", value)
    if isinstance(value, dict):
        return {k: _masked(v, known) for k, v in value.items() if k != "request_id"}
    if isinstance(value, list):
        return [_masked(v, known) for v in value]
    return value


def masked(value: Any, world: World) -> Any:
    """An answer's JSON or a row's cell, comparable across the two apps."""
    return _masked(value, world.seed_ids)


SEARCH = "message_search"  # SQLite's full-text index (migration 0013) and its shadow tables


def _indexed(db: Path) -> None:
    """The writer's next search-index pass, run now: each app indexes on its own clock (once a
    second or every so many units, ``store.search_index``), so both are compared indexed."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        index_pending(conn)
        conn.execute("COMMIT")
    finally:
        conn.close()


def snapshot(db: Path, world: World) -> dict[str, list[str]]:
    """Every table's rows, masked and sorted; the search index by what it holds (each term's
    places), not by its b-tree pages, which differ with how many passes built it."""
    _indexed(db)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        out: dict[str, list[str]] = {}
        conn.execute(f"CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, {SEARCH}, instance)")
        places = conn.execute("SELECT term, doc, col, offset FROM temp.terms")
        out[f"{SEARCH} terms"] = sorted(json.dumps(row) for row in places)
        for table in sorted(t for t in tables if not t.startswith(SEARCH)):
            cursor = conn.execute(f'SELECT * FROM "{table}"')
            columns = [d[0] for d in cursor.description]
            rows = []
            for row in cursor:
                cells = {
                    c: "<random>" if (table, c) in VOLATILE else masked(v, world)
                    for c, v in zip(columns, row, strict=True)
                }
                rows.append(json.dumps(cells, sort_keys=True, default=repr))
            out[table] = sorted(rows)
        return out
    finally:
        conn.close()
