"""A small workspace to export: two people who are contacts, an agent, a room with mentions,
events, a file, a task and a goal; and the helpers that compare two platforms' rooms."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import httpx

FILE = b"minutes of the kick-off meeting\n"
TOKEN = re.compile(r"@\[\[([^\]]+)\]\]")


@dataclass
class Party:
    id: str
    key: str
    handle: str


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


async def seed(url: str, alice: Party, bob: Party, echo: Party, *, messages: int = 6) -> str:
    """Alice's room with Bob and Echo; returns its id."""
    a = {"X-API-Key": alice.key}
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        asked = ok(
            await c.post(
                "/api/v1/me/contacts/requests",
                json={"contact_request": {"recipient_handle": bob.handle}},
                headers=a,
            ),
            201,
        )["data"]["id"]
        ok(
            await c.post(
                f"/api/v1/me/contacts/requests/{asked}/approve", headers={"X-API-Key": bob.key}
            )
        )
        room = ok(
            await c.post("/api/v1/me/chats", json={"chat": {"title": "Launch"}}, headers=a), 201
        )
        rid = room["data"]["id"]
        for who in (bob.id, echo.id):
            body = {"participant": {"participant_id": who}}
            ok(await c.post(f"/api/v1/me/chats/{rid}/participants", json=body, headers=a), 201)
        headers = {
            **a,
            "x-file-name": "minutes.txt",
            "x-file-sha256": hashlib.sha256(FILE).hexdigest(),
            "content-type": "text/plain",
        }
        file_id = ok(
            await c.put(f"/api/v1/me/chats/{rid}/files", content=FILE, headers=headers), 201
        )["data"]["id"]
        for n in range(messages):
            text = f"@{echo.handle} step {n}, and @{bob.handle} please look"
            body = {"message": {"content": text, "attachment_ids": [file_id] if n == 0 else []}}
            ok(await c.post(f"/api/v1/me/chats/{rid}/messages", json=body, headers=a), 201)
        e = {"X-API-Key": echo.key}
        event = {"event": {"content": "thinking", "message_type": "thought", "metadata": {"n": 1}}}
        ok(await c.post(f"/api/v1/agent/chats/{rid}/events", json=event, headers=e), 201)
        reply = {"message": {"content": "on it", "mentions": [{"handle": alice.handle}]}}
        ok(await c.post(f"/api/v1/agent/chats/{rid}/messages", json=reply, headers=e), 201)
        task = ok(
            await c.post(f"/api/v1/me/chats/{rid}/tasks", json={"subject": "Ship it"}, headers=a),
            201,
        )["data"]
        body = {"status": "in_progress", "active_form": "Shipping"}
        ok(await c.post(f"/api/v1/agent/chats/{rid}/tasks/{task['id']}", json=body, headers=e))
        ok(await c.put(f"/api/v1/me/chats/{rid}/board", json={"goal_title": "Launch"}, headers=a))
    return str(rid)


def history(messages: list[dict[str, Any]], handles: dict[str, str]) -> list[tuple[Any, ...]]:
    """A room's messages as a person sees them, ids replaced by handles (ids differ); the
    delivery status aside (an import marks every delivery processed: history, not turns)."""
    out = []
    for m in messages:
        content = TOKEN.sub(lambda t: "@" + handles.get(t[1], "?"), m["content"])
        mentions = sorted(handles.get(x["id"], "?") for x in m["metadata"].get("mentions", []))
        files = [(f["name"], f["sha256"], f["bytes"]) for f in m.get("attachments") or []]
        out.append(
            (
                m["seq"],
                handles.get(m["sender_id"], "?"),
                m["sender_type"],
                m["message_type"],
                content,
                mentions,
                files,
                m["inserted_at"],
            )
        )
    return out
