"""Authorisation matrix: every route of both REST surfaces and every socket topic, against
every kind of outsider.

The victim is Vera (a person), her agents Vega (live) and Vik (deleted during set-up), and
her room with a mention, a reply, a memory and pending contact requests. The outsiders are:

- ``person``: Olga, another person (her own valid key);
- ``agent``: Otto, Olga's agent (his own valid key);
- ``no_key``: no ``X-API-Key`` at all;
- ``revoked``: Vega's old key, revoked by ``regenerate-key`` (used once before, so it was cached);
- ``deleted``: the key of Vik, deleted by Vera (also used once before).

Each request is checked for what a user would notice: the status (never a 5xx; a refusal for
every ``victim`` row; 401 for the three dead keys), the body (none of Vera's secrets: room ids
and titles, message ids and texts, memories, contact requests), and the database (a refused
request changes no row at all; a ``self`` row the outsider may use on their own account changes
no row that names anything of Vera's).

The rows are generated from the app's route table: a route under ``/api/v1/agent`` or
``/api/v1/me`` without a row in ``ROWS`` fails ``test_every_api_route_has_a_row``.

How to add a row for a new route: add ``"METHOD /api/v1/...": Row(...)`` to ``ROWS``.
- Path parameters are filled by name from ``TARGETS`` (Vera's resources); a new parameter
  name needs a new entry there (and, if it is a new kind of resource, a line in ``_seed``).
- ``query`` is the query string a legitimate caller would send (``GET /api/v1/me/search``).
- ``body`` is the JSON a legitimate caller would send (so a refusal is about who asks, not
  what is sent); ``{caller}`` in it becomes the outsider's own id, and any ``{target}`` name
  becomes that target's id.
- ``scope="victim"`` (the default when the path has parameters): the route acts on Vera's
  resource, so every outsider must be refused. ``scope="self"`` (the default otherwise): the
  route acts on the caller's own account; an outsider may succeed there, but sees and
  changes nothing of Vera's.
A new socket topic kind (``band.protocol.TOPIC_KINDS``) needs an entry in ``TOPIC_TARGETS``.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlencode

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from socket_testkit import PhxClient
from sqlalchemy import select
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from band.protocol import TOPIC_KINDS
from band_server.context import Platform
from band_server.store.models import Base
from conftest import LiveServer, make_user

Scope = Literal["victim", "self"]
SURFACES = ("/api/v1/agent", "/api/v1/me", "/api/v1/admin")
OUTSIDERS = ("person", "agent", "no_key", "revoked", "deleted")
DEAD_KEYS = frozenset({"no_key", "revoked", "deleted"})
REFUSED = frozenset({401, 403, 404})
IDEMPOTENCY_KEY = "vera-first-post"
SECRET_TITLE = "Vera's secret plans"
SECRET_TEXT = "the vault code is 4711"
SECRET_MEMORY = "Vera hides the key under the mat"
SECRET_REQUEST = "Carl wants to meet Vera privately"
SECRET_DESCRIPTION = "Vega keeps Vera's secrets safe"
SECRET_FILE = "Vera's file: the safe is behind the painting"
SECRET_TASK = "Vera's task: move the gold on Tuesday"
SECRET_GOAL = "Vera's goal: retire to the coast"


@dataclass(frozen=True)
class Row:
    """How an outsider calls one route; see the module docstring."""

    body: Any = None
    scope: Scope | None = None
    query: dict[str, str] | None = None  # the query string a legitimate caller would send


_PARTICIPANT = {"participant": {"participant_id": "{caller}"}}
_MEMORY = {"memory": {"content": "outsider memory", "scope": "agent"}}

ROWS: dict[str, Row] = {
    # -- agent surface -------------------------------------------------------------------
    "GET /api/v1/agent/me": Row(),
    "GET /api/v1/agent/chats": Row(),
    "POST /api/v1/agent/chats": Row({"chat": {"title": "outsider room"}}),
    "GET /api/v1/agent/chats/{chat_id}": Row(),
    "PATCH /api/v1/agent/chats/{chat_id}": Row({"chat": {"title": "taken over"}}),
    "POST /api/v1/agent/chats/{chat_id}/messages": Row({"message": {"content": "let me in"}}),
    "POST /api/v1/agent/chats/{chat_id}/events": Row(
        {"event": {"content": "peek", "message_type": "thought"}}
    ),
    "GET /api/v1/agent/chats/{chat_id}/messages": Row(),
    "GET /api/v1/agent/chats/{chat_id}/context": Row(),
    "GET /api/v1/agent/chats/{chat_id}/messages/next": Row(),
    "POST /api/v1/agent/chats/{chat_id}/messages/{message_id}/processing": Row(),
    "POST /api/v1/agent/chats/{chat_id}/messages/{message_id}/processed": Row(),
    "POST /api/v1/agent/chats/{chat_id}/messages/{message_id}/failed": Row({"error": "x"}),
    "POST /api/v1/agent/chats/{chat_id}/activity": Row({"working": True}),
    "GET /api/v1/agent/chats/{chat_id}/participants": Row(),
    "POST /api/v1/agent/chats/{chat_id}/participants": Row(_PARTICIPANT),
    "DELETE /api/v1/agent/chats/{chat_id}/participants/{participant_id}": Row(),
    "GET /api/v1/agent/contacts": Row(),
    "POST /api/v1/agent/contacts/add": Row({"handle": "carl"}),
    "POST /api/v1/agent/contacts/remove": Row({"handle": "vera"}),
    "GET /api/v1/agent/contacts/requests": Row(),
    "POST /api/v1/agent/contacts/requests/respond": Row(
        {"action": "approve", "request_id": "{agent_request_id}"}
    ),
    "GET /api/v1/agent/memories": Row(),
    "POST /api/v1/agent/memories": Row(_MEMORY),
    "GET /api/v1/agent/memories/{memory_id}": Row(),
    "POST /api/v1/agent/memories/{memory_id}/supersede": Row(),
    "POST /api/v1/agent/memories/{memory_id}/archive": Row(),
    "GET /api/v1/agent/peers": Row(),
    "PUT /api/v1/agent/chats/{chat_id}/files": Row(),
    "GET /api/v1/agent/chats/{chat_id}/files/{file_id}": Row(),
    "GET /api/v1/agent/chats/{chat_id}/tasks": Row(),
    "POST /api/v1/agent/chats/{chat_id}/tasks": Row({"subject": "outsider task"}),
    "GET /api/v1/agent/chats/{chat_id}/tasks/{task_id}": Row(),
    "POST /api/v1/agent/chats/{chat_id}/tasks/{task_id}": Row({"status": "in_progress"}),
    "GET /api/v1/agent/chats/{chat_id}/tasks/{task_id}/history": Row(),
    "GET /api/v1/agent/chats/{chat_id}/board": Row(),
    "PUT /api/v1/agent/chats/{chat_id}/board": Row({"goal_title": "outsider goal"}),
    # Vera's mention, at the system where she consented to Otto: Otto was never delivered it.
    "POST /api/v1/agent/delegation/token": Row(
        {"audience": "{system_id}", "message_id": "{message_id}"}
    ),
    # -- human surface -------------------------------------------------------------------
    "GET /api/v1/me/profile": Row(),
    "PUT /api/v1/me/profile": Row({"user": {"name": "Olga the Curious"}}),
    "GET /api/v1/me/agents": Row(),
    "POST /api/v1/me/agents/register": Row(
        {"agent": {"name": "Spy", "description": "An agent made by an outsider"}}
    ),
    "GET /api/v1/me/agents/{agent_id}": Row(),
    "DELETE /api/v1/me/agents/{agent_id}": Row(),
    "POST /api/v1/me/agents/{agent_id}/regenerate-key": Row(),
    "GET /api/v1/me/chats": Row(),
    "POST /api/v1/me/chats": Row({"chat": {"title": "outsider room"}}),
    "GET /api/v1/me/chats/{chat_id}": Row(),
    "PATCH /api/v1/me/chats/{chat_id}": Row({"chat": {"title": "taken over"}}),
    # Accepted for the outsider's own account; every one of Vera's targets fails inside the job.
    "POST /api/v1/me/chats/bulk-delete": Row({"ids": ["{chat_id}"]}, scope="self"),
    "POST /api/v1/me/agents/bulk-delete": Row({"ids": ["{agent_id}"], "force": True}, scope="self"),
    "GET /api/v1/me/bulk-deletions/{job_id}": Row(),
    "GET /api/v1/me/chats/{chat_id}/messages": Row(),
    # The very body (and Idempotency-Key) Vera used: an outsider must not get her answer replayed.
    "POST /api/v1/me/chats/{chat_id}/messages": Row(
        {"message": {"content": f"@{{vega_handle}} {SECRET_TEXT}"}}
    ),
    "GET /api/v1/me/chats/{chat_id}/participants": Row(),
    "POST /api/v1/me/chats/{chat_id}/participants": Row(_PARTICIPANT),
    "DELETE /api/v1/me/chats/{chat_id}/participants/{participant_id}": Row(),
    "GET /api/v1/me/contacts": Row(),
    "POST /api/v1/me/contacts/remove": Row({"handle": "vera"}),
    "POST /api/v1/me/contacts/resolve": Row({"handle": "vera"}),
    "GET /api/v1/me/contacts/requests": Row(),
    "GET /api/v1/me/contacts/requests/sent": Row(),
    "POST /api/v1/me/contacts/requests": Row({"handle": "carl"}),
    "POST /api/v1/me/contacts/requests/{request_id}/approve": Row(),
    "POST /api/v1/me/contacts/requests/{request_id}/reject": Row(),
    "DELETE /api/v1/me/contacts/requests/{request_id}": Row(),
    "GET /api/v1/me/memories": Row(),
    "GET /api/v1/me/memories/{memory_id}": Row(),
    "DELETE /api/v1/me/memories/{memory_id}": Row(),
    "POST /api/v1/me/memories/{memory_id}/supersede": Row(),
    "POST /api/v1/me/memories/{memory_id}/archive": Row(),
    "POST /api/v1/me/memories/{memory_id}/restore": Row(),
    "GET /api/v1/me/peers": Row(),
    # Words of Vera's own messages: an outsider finds none of them.
    "GET /api/v1/me/search": Row(query={"q": "vault code 4711"}),
    "PUT /api/v1/me/chats/{chat_id}/files": Row(),
    "GET /api/v1/me/chats/{chat_id}/files/{file_id}": Row(),
    "GET /api/v1/me/chats/{chat_id}/tasks": Row(),
    "POST /api/v1/me/chats/{chat_id}/tasks": Row({"subject": "outsider task"}),
    "GET /api/v1/me/chats/{chat_id}/tasks/{task_id}": Row(),
    "POST /api/v1/me/chats/{chat_id}/tasks/{task_id}": Row({"status": "in_progress"}),
    "GET /api/v1/me/chats/{chat_id}/tasks/{task_id}/history": Row(),
    "GET /api/v1/me/chats/{chat_id}/board": Row(),
    "PUT /api/v1/me/chats/{chat_id}/board": Row({"goal_title": "outsider goal"}),
    # Systems are a public directory (names and ids, never keys); consents are private.
    "GET /api/v1/me/delegation/systems": Row(),
    "POST /api/v1/me/delegation/systems": Row({"system": {"name": "outsider system"}}),
    "DELETE /api/v1/me/delegation/systems/{system_id}": Row(),
    "GET /api/v1/me/delegation/consents": Row(),
    "POST /api/v1/me/delegation/consents": Row(
        {"consent": {"agent_id": "{caller}", "system_id": "{system_id}"}}
    ),
    "DELETE /api/v1/me/delegation/consents/{consent_id}": Row(),
    # -- admin surface (Vera, the first person, is the admin): every outsider refused --------
    "GET /api/v1/admin/people": Row(scope="victim"),
    "PUT /api/v1/admin/people/{person_id}/may-invite": Row({"may_invite": True}),
    "GET /api/v1/admin/agents": Row(scope="victim"),
    "GET /api/v1/admin/chats": Row(scope="victim"),
    "GET /api/v1/admin/contacts": Row(scope="victim"),
    "GET /api/v1/admin/chats/{chat_id}/messages": Row(),
    "GET /api/v1/admin/chats/{chat_id}/participants": Row(),
    "GET /api/v1/admin/chats/{chat_id}/tasks": Row(),
    "GET /api/v1/admin/chats/{chat_id}/tasks/{task_id}/history": Row(),
    "GET /api/v1/admin/chats/{chat_id}/board": Row(),
    "GET /api/v1/admin/chats/{chat_id}/files/{file_id}": Row(),
    "POST /api/v1/admin/imports": Row({"archive_id": "outsider-archive"}, scope="victim"),
    "GET /api/v1/admin/imports/{import_id}": Row(),
    "POST /api/v1/admin/imports/{import_id}/records": Row(
        {"kind": "person", "records": [{"id": "x", "name": "X", "handle": "xavier"}]}
    ),
    "PUT /api/v1/admin/imports/{import_id}/files": Row(),
    "POST /api/v1/admin/imports/{import_id}/finish": Row(),
}

# Path parameter (and body placeholder) name -> the attribute of ``Victim`` it names.
TARGETS: dict[str, str] = {
    "chat_id": "room_id",
    "message_id": "mention_id",
    "participant_id": "vega_id",
    "agent_id": "vega_id",
    "memory_id": "memory_id",
    "file_id": "file_id",
    "task_id": "task_id",
    "request_id": "person_request_id",
    "agent_request_id": "agent_request_id",
    "vega_handle": "vega_handle",
    "job_id": "job_id",
    "system_id": "system_id",
    "consent_id": "consent_id",
    "import_id": "room_id",  # no import exists: the admin check refuses before any lookup
    "person_id": "vera_id",
}

# Socket topic kind -> the attribute of ``Victim`` whose topic an outsider tries to join.
TOPIC_TARGETS: dict[str, str] = {
    "agent_control": "vega_id",
    "agent_rooms": "vega_id",
    "agent_contacts": "vega_id",
    "chat_room": "room_id",
    "room_participants": "room_id",
    "user_rooms": "vera_id",
    "user_notifications": "vera_id",
}


# -- the route table --------------------------------------------------------------------------


def _walk(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(method, path) of every HTTP route, through included routers of any depth."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:  # FastAPI's lazily included router
            yield from _walk(included.routes, prefix + route.include_context.prefix)
        elif isinstance(route, APIRoute):
            for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
                yield method, prefix + route.path


def api_routes(app: FastAPI) -> set[str]:
    found = {f"{m} {p}" for m, p in _walk(app.routes) if p.startswith(SURFACES)}
    # The walker must see what OpenAPI sees; if FastAPI changes its internals, fail loudly.
    documented = {
        f"{method.upper()} {path}"
        for path, ops in app.openapi()["paths"].items()
        if path.startswith(SURFACES)
        for method in ops
    }
    assert documented <= found, f"route walker missed {sorted(documented - found)}"
    return found


def _row_template(route: str) -> str:
    method = route.split(" ", 1)[0]
    body = "" if method in {"GET", "DELETE"} else "{...a valid body...}"
    return f'    "{route}": Row({body}),'


def test_every_api_route_has_a_row(app: FastAPI) -> None:
    routes = api_routes(app)
    missing = sorted(routes - ROWS.keys())
    stale = sorted(ROWS.keys() - routes)
    message = []
    if missing:
        message.append(
            "These routes have no row in tests/server/api/test_authz_matrix.py. Add one per route "
            "to ROWS (the module docstring says how; path parameters come from TARGETS):\n"
            + "\n".join(_row_template(r) for r in missing)
        )
    if stale:
        message.append("ROWS names routes the app no longer has; remove:\n" + "\n".join(stale))
    assert not message, "\n\n".join(message)
    unknown = {
        name for route in ROWS for name in re.findall(r"{(\w+)}", route) if name not in TARGETS
    }
    assert not unknown, f"path parameters without an entry in TARGETS: {sorted(unknown)}"


def test_every_topic_kind_has_a_target() -> None:
    missing = sorted(set(TOPIC_KINDS) - TOPIC_TARGETS.keys())
    assert not missing, (
        f"socket topic kinds without an entry in TOPIC_TARGETS (test_authz_matrix.py): {missing}"
    )


# -- the world --------------------------------------------------------------------------------


@dataclass
class Victim:
    vera_id: str
    vera_key: str
    vega_id: str
    vega_key: str
    vega_handle: str
    room_id: str
    mention_id: str
    reply_id: str
    memory_id: str
    person_request_id: str
    agent_request_id: str
    revoked_key: str
    deleted_key: str
    vik_id: str
    file_id: str
    job_id: str
    task_id: str
    system_id: str
    consent_id: str

    def resource_ids(self) -> set[str]:
        return {
            self.room_id,
            self.mention_id,
            self.reply_id,
            self.memory_id,
            self.person_request_id,
            self.agent_request_id,
            self.file_id,
            self.job_id,
            self.task_id,
            self.consent_id,
        }

    def secrets(self) -> set[str]:
        """What no outsider may ever read (principal ids and handles are public identity)."""
        texts = {
            SECRET_TITLE,
            SECRET_TEXT,
            SECRET_MEMORY,
            SECRET_REQUEST,
            SECRET_DESCRIPTION,
            SECRET_FILE,
            SECRET_TASK,
            SECRET_GOAL,
        }
        return self.resource_ids() | texts

    def owned_ids(self) -> set[str]:
        """Ids whose appearance in a changed row means the change touched Vera's world."""
        return self.resource_ids() | {self.vera_id, self.vega_id, self.vik_id, self.system_id}


@dataclass
class Outsiders:
    olga_id: str
    olga_key: str
    otto_id: str
    otto_key: str

    def key(self, victim: Victim, who: str) -> str | None:
        return {
            "person": self.olga_key,
            "agent": self.otto_key,
            "no_key": None,
            "revoked": victim.revoked_key,
            "deleted": victim.deleted_key,
        }[who]

    def caller_id(self, who: str) -> str:
        return {"person": self.olga_id, "agent": self.otto_id}.get(who, self.olga_id)


def _ok(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    body: dict[str, Any] = r.json()
    return body


async def _register(c: httpx.AsyncClient, key: str, name: str, description: str) -> dict[str, Any]:
    r = await c.post(
        "/api/v1/me/agents/register",
        json={"agent": {"name": name, "description": description}},
        headers={"X-API-Key": key},
    )
    data: dict[str, Any] = _ok(r, 201)["data"]
    return data


async def _seed(platform: Platform, c: httpx.AsyncClient) -> tuple[Victim, Outsiders]:
    vera_id, vera_key = await make_user(platform, "vera", "Vera")
    olga_id, olga_key = await make_user(platform, "olga", "Olga")
    _, carl_key = await make_user(platform, "carl", "Carl")
    vera = {"X-API-Key": vera_key}
    vega = await _register(c, vera_key, "Vega", SECRET_DESCRIPTION)
    vik = await _register(c, vera_key, "Vik", "Vera's agent, soon deleted")
    otto = await _register(c, olga_key, "Otto", "Olga's agent, an outsider")
    vega_id, vega_handle = vega["agent"]["id"], vega["agent"]["handle"]
    old_vega_key, vik_key = vega["credentials"]["api_key"], vik["credentials"]["api_key"]

    room_id = _ok(
        await c.post("/api/v1/me/chats", json={"chat": {"title": SECRET_TITLE}}, headers=vera), 201
    )["data"]["id"]
    for member in (vega_id, vik["agent"]["id"]):
        body = {"participant": {"participant_id": member}}
        _ok(await c.post(f"/api/v1/me/chats/{room_id}/participants", json=body, headers=vera), 201)
    post = {"message": {"content": f"@{vega_handle} {SECRET_TEXT}"}}
    headers = {**vera, "Idempotency-Key": IDEMPOTENCY_KEY}
    mention_id = _ok(
        await c.post(f"/api/v1/me/chats/{room_id}/messages", json=post, headers=headers), 201
    )["data"]["id"]
    old = {"X-API-Key": old_vega_key}
    reply = {"message": {"content": f"noted: {SECRET_TEXT}", "mentions": [{"handle": "vera"}]}}
    reply_id = _ok(
        await c.post(f"/api/v1/agent/chats/{room_id}/messages", json=reply, headers=old), 201
    )["data"]["id"]
    memory = {"memory": {"content": SECRET_MEMORY, "scope": "agent"}}
    memory_id = _ok(await c.post("/api/v1/agent/memories", json=memory, headers=old), 201)["data"][
        "id"
    ]
    upload = {**vera, "x-file-name": "plans.txt", "content-type": "text/plain"}
    file_id = _ok(
        await c.put(f"/api/v1/me/chats/{room_id}/files", content=SECRET_FILE, headers=upload), 201
    )["data"]["id"]
    task = {"subject": SECRET_TASK}
    task_id = _ok(await c.post(f"/api/v1/me/chats/{room_id}/tasks", json=task, headers=vera), 201)[
        "data"
    ]["id"]
    goal = {"goal_title": SECRET_GOAL}
    _ok(await c.put(f"/api/v1/me/chats/{room_id}/board", json=goal, headers=vera))
    carl = {"X-API-Key": carl_key}
    asks = [("vera", "person"), (vega_handle, "agent")]
    request_ids = {}
    for handle, kind in asks:
        body = {"handle": handle, "message": SECRET_REQUEST}
        request_ids[kind] = _ok(
            await c.post("/api/v1/me/contacts/requests", json=body, headers=carl), 201
        )["data"]["id"]
    # Both soon-dead keys are used once, so a stale cache entry would let them back in.
    _ok(await c.get("/api/v1/agent/me", headers={"X-API-Key": vik_key}))
    new_vega_key = _ok(await c.post(f"/api/v1/me/agents/{vega_id}/regenerate-key", headers=vera))[
        "data"
    ]["credentials"]["api_key"]
    _ok(await c.delete(f"/api/v1/me/agents/{vik['agent']['id']}", headers=vera))
    job = {"ids": ["no-such-room"]}
    job_id = _ok(await c.post("/api/v1/me/chats/bulk-delete", json=job, headers=vera), 202)["data"][
        "id"
    ]
    for _ in range(200):  # finished before the matrix runs, so its row no longer changes
        shown = _ok(await c.get(f"/api/v1/me/bulk-deletions/{job_id}", headers=vera))
        if shown["data"]["status"] == "completed":
            break
        await asyncio.sleep(0.05)
    made = _ok(
        await c.post(
            "/api/v1/me/delegation/systems", json={"system": {"name": "Ledger"}}, headers=vera
        ),
        201,
    )["data"]["system"]
    consent = {"consent": {"agent_id": otto["agent"]["id"], "system_id": made["id"]}}
    consent_id = _ok(
        await c.post("/api/v1/me/delegation/consents", json=consent, headers=vera), 201
    )["data"]["id"]
    victim = Victim(
        vera_id=vera_id,
        vera_key=vera_key,
        vega_id=vega_id,
        vega_key=new_vega_key,
        vega_handle=vega_handle,
        room_id=room_id,
        mention_id=mention_id,
        reply_id=reply_id,
        memory_id=memory_id,
        person_request_id=request_ids["person"],
        agent_request_id=request_ids["agent"],
        revoked_key=old_vega_key,
        deleted_key=vik_key,
        vik_id=vik["agent"]["id"],
        file_id=file_id,
        job_id=job_id,
        task_id=task_id,
        system_id=made["id"],
        consent_id=consent_id,
    )
    return victim, Outsiders(olga_id, olga_key, otto["agent"]["id"], otto["credentials"]["api_key"])


# -- one request, checked ---------------------------------------------------------------------


Snapshot = dict[str, set[tuple[Any, ...]]]


async def snapshot(platform: Platform) -> Snapshot:
    """Every row of every table (as tuples of strings), to compare before and after."""
    out: Snapshot = {}
    async with platform.db.read() as session:
        for table in Base.metadata.sorted_tables:
            rows = (await session.execute(select(table))).all()
            out[table.name] = {tuple(str(v) for v in row) for row in rows}
    return out


def changed_rows(before: Snapshot, after: Snapshot) -> list[tuple[str, tuple[Any, ...]]]:
    diff = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name, set()), after.get(name, set())
        diff.extend((name, row) for row in sorted(old ^ new))
    return diff


def _fill(value: Any, victim: Victim, caller: str) -> Any:
    if isinstance(value, str):
        text = value.replace("{caller}", caller)
        for name, attr in TARGETS.items():
            text = text.replace("{" + name + "}", str(getattr(victim, attr)))
        return text
    if isinstance(value, dict):
        return {k: _fill(v, victim, caller) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, victim, caller) for v in value]
    return value


def _surface_matches(who: str, path: str) -> bool:
    return (who == "agent") == path.startswith("/api/v1/agent")


async def check(
    client: httpx.AsyncClient,
    platform: Platform,
    victim: Victim,
    outsiders: Outsiders,
    route: str,
    who: str,
) -> str | None:
    """Call one route as one outsider; a description of what went wrong, or None."""
    method, template = route.split(" ", 1)
    row = ROWS[route]
    scope = row.scope or ("victim" if "{" in template else "self")
    path = _fill(template, victim, outsiders.caller_id(who))
    body = _fill(row.body, victim, outsiders.caller_id(who))
    headers = {}
    key = outsiders.key(victim, who)
    if key is not None:
        headers["X-API-Key"] = key
    if method == "POST":
        # Vera's own key on the request she made with it (no replay for anyone else); a fresh
        # one elsewhere, so every POST also runs through the idempotency layer.
        replay = route == "POST /api/v1/me/chats/{chat_id}/messages"
        headers["Idempotency-Key"] = IDEMPOTENCY_KEY if replay else uuid.uuid4().hex
    before = await snapshot(platform)
    r = await client.request(method, path, json=body, headers=headers, params=row.query)
    await platform.jobs.idle()  # a job the request started has done its work
    after = await snapshot(platform)
    where = f"{route} as {who}: {r.status_code}"
    if r.status_code >= 500:
        return f"{where} (a server error) {r.text[:300]}"
    refused_only = who in DEAD_KEYS or scope == "victim" or not _surface_matches(who, template)
    if who in DEAD_KEYS and r.status_code != 401:
        return f"{where}, expected 401 for a dead key; body {r.text[:300]}"
    if refused_only and r.status_code not in REFUSED:
        return f"{where}, expected a refusal (401/403/404); body {r.text[:300]}"
    if r.status_code >= 400 and "error" not in r.json():
        return f"{where} without the error envelope: {r.text[:300]}"
    asked = path + json.dumps(body)
    leaked = sorted(s for s in victim.secrets() if s in r.text and s not in asked)
    if leaked:
        return f"{where} leaked {leaked}: {r.text[:300]}"
    diff = changed_rows(before, after)
    if refused_only and diff:
        return f"{where} was refused but changed rows: {diff[:5]}"
    touched = [(t, row) for t, row in diff if any(i in row for i in victim.owned_ids())]
    if touched:
        return f"{where} changed rows of Vera's: {touched[:5]}"
    return None


@pytest.mark.parametrize("who", OUTSIDERS)
async def test_outsiders_get_no_data_and_change_nothing(
    app: FastAPI, platform: Platform, client: httpx.AsyncClient, who: str
) -> None:
    victim, outsiders = await _seed(platform, client)
    failures = []
    for route in sorted(ROWS):
        problem = await check(client, platform, victim, outsiders, route, who)
        if problem:
            failures.append(problem)
    # Vera still sees her world exactly as she left it.
    vera = {"X-API-Key": victim.vera_key}
    url = f"/api/v1/me/chats/{victim.room_id}/messages"
    log = _ok(await client.get(url, params={"sort_order": "asc"}, headers=vera))
    texts = [m["id"] for m in log["data"] if m["message_type"] == "text"]
    assert texts == [victim.mention_id, victim.reply_id]
    # Her task and her goal left one timeline event each, and nobody added another.
    events = [m["metadata"] for m in log["data"] if m["message_type"] == "task"]
    assert [next(iter(e)) for e in events] == ["band_task", "band_board"]
    assert not failures, "\n".join(failures)


# -- the socket -------------------------------------------------------------------------------


def _socket_url(server: LiveServer, **query: str) -> str:
    return f"{server.ws_url}?{urlencode({'vsn': '2.0.0', **query})}"


async def _refused_upgrade(server: LiveServer, key: str | None) -> int:
    headers = {"x-api-key": key} if key else {}
    with pytest.raises(InvalidStatus) as refused:
        async with connect(_socket_url(server), additional_headers=headers, proxy=None):
            pass
    return refused.value.response.status_code


async def test_outsider_sockets_join_nothing_and_hear_nothing(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as c:
        victim, outsiders = await _seed(live_server.platform, c)
        for key in (None, victim.revoked_key, victim.deleted_key):
            assert await _refused_upgrade(live_server, key) == 401

        olga_url = _socket_url(live_server)
        otto_url = _socket_url(live_server, agent_id=outsiders.otto_id)
        vega_url = _socket_url(live_server, agent_id=victim.vega_id)
        async with (
            connect(olga_url, additional_headers={"x-api-key": outsiders.olga_key}) as olga_ws,
            connect(otto_url, additional_headers={"x-api-key": outsiders.otto_key}) as otto_ws,
            connect(vega_url, additional_headers={"x-api-key": victim.vega_key}) as vega_ws,
        ):
            olga, otto, vega = PhxClient(olga_ws), PhxClient(otto_ws), PhxClient(vega_ws)
            for kind in TOPIC_KINDS:
                name = f"{kind}:{getattr(victim, TOPIC_TARGETS[kind])}"
                for who, sock in (("person", olga), ("agent", otto)):
                    reply = await sock.join(name)
                    assert reply[4] == {
                        "status": "error",
                        "response": {"reason": "unauthorized"},
                    }, (who, name, reply)
            for name in (f"chat_room:{victim.room_id}", f"agent_rooms:{victim.vega_id}"):
                assert (await vega.join(name))[4]["status"] == "ok"

            # Things happen on every victim topic; the victim hears them, the outsiders do not.
            vera = {"X-API-Key": victim.vera_key}
            post = {"message": {"content": f"@{victim.vega_handle} second secret"}}
            r = await c.post(f"/api/v1/me/chats/{victim.room_id}/messages", json=post, headers=vera)
            assert r.status_code == 201, r.text
            r = await c.post(
                "/api/v1/me/chats", json={"chat": {"title": SECRET_TITLE}}, headers=vera
            )
            other_room = r.json()["data"]["id"]
            body = {"participant": {"participant_id": victim.vega_id}}
            r = await c.post(f"/api/v1/me/chats/{other_room}/participants", json=body, headers=vera)
            assert r.status_code == 201, r.text
            heard = {(await vega.recv())[3], (await vega.recv())[3]}
            assert heard == {"message_created", "room_added"}, heard
            for sock in (olga, otto):
                assert await sock.silent(0.5)
