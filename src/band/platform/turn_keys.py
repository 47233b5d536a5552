"""Deterministic ``Idempotency-Key``s for what an agent posts while it handles one message.

How it works: docs/internals/sdk.md, "Turn keys".

Inside ``turn_scope(agent_id, message_id)`` a re-run after a crash repeats nothing; why:
``docs/decisions.md`` ("Answered once across a crash: turn keys").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = [
    "KEY_IN_USE",
    "KEY_REUSED",
    "TurnKeys",
    "current_turn",
    "error_code",
    "settled_reuse",
    "turn_post_key",
    "turn_scope",
    "unkeyed",
    "with_turn_id",
]

KEY_REUSED = "idempotency_key_reused"
KEY_IN_USE = "idempotency_key_in_use"
# The room's speech: what a re-run must not say twice.
_SPEECH = re.compile(r"^/agent/chats/[^/]+/(messages|events)$")


@dataclass
class TurnKeys:
    """The key source of one message's turn: counts posts per kind, shared by its tasks."""

    agent_id: str
    message_id: str
    counts: dict[str, int] = field(default_factory=dict)

    def next_key(self, kind: str) -> str:
        """The key of the next post of ``kind`` in this turn."""
        position = self.counts.get(kind, 0)
        self.counts[kind] = position + 1
        seed = "\x00".join((self.agent_id, self.message_id, kind, str(position)))
        return "band-turn-" + hashlib.sha256(seed.encode()).hexdigest()[:40]


_current: ContextVar[TurnKeys | None] = ContextVar("band_turn_keys", default=None)


@contextmanager
def turn_scope(agent_id: str, message_id: str) -> Iterator[TurnKeys]:
    """Within the block (and in tasks created in it) speech posts carry turn keys."""
    keys = TurnKeys(agent_id, message_id)
    token = _current.set(keys)
    try:
        yield keys
    finally:
        _current.reset(token)


@contextmanager
def unkeyed() -> Iterator[None]:
    """Within the block, posts carry no turn key: for a writer with its own idempotency
    (the CrewAI Flow adapter's reserve, send, confirm), whose re-run posts other things in
    another order, so position keys would take one post for another."""
    token = _current.set(None)
    try:
        yield
    finally:
        _current.reset(token)


def current_turn() -> TurnKeys | None:
    """The turn whose posts are being keyed, if any."""
    return _current.get()


def turn_post_key(method: str, path: str, body: Any) -> str | None:
    """The deterministic key for this request, or None when it is not turn speech."""
    keys = _current.get()
    if keys is None or method != "POST" or _SPEECH.match(path) is None:
        return None
    kind = path
    event = body.get("event") if isinstance(body, dict) else None
    if isinstance(event, dict):
        kind = f"{path}#{event.get('message_type')}"
    return keys.next_key(kind)


def error_code(response: httpx.Response) -> str | None:
    """The envelope's ``error.code`` of a non-2xx answer (None when there is none)."""
    if response.is_success:
        return None
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return None
    return str(error.get("code")) if isinstance(error, dict) else None


def settled_reuse(body: Any) -> httpx.Response:
    """A reused turn key means the first run made this post: answer as a success."""
    data: dict[str, Any] = {"id": None, "success": True, "already_posted": True}
    event = body.get("event") if isinstance(body, dict) else None
    if isinstance(event, dict):
        data["message_type"] = event.get("message_type")
    else:
        data["recipients"] = []
    return httpx.Response(
        200,
        content=json.dumps({"data": data}).encode(),
        headers={"content-type": "application/json", "idempotent-replayed": "true"},
    )


def with_turn_id(method: str, path: str, body: Any) -> Any:
    """``body`` naming the current turn (a copy), or ``body`` itself outside a turn or for
    anything but the room's speech. A turn id the caller set is kept."""
    keys = _current.get()
    if keys is None or method != "POST" or not isinstance(body, dict):
        return body
    found = _SPEECH.match(path)
    if found is None:
        return body
    if found[1] == "events" and isinstance(body.get("event"), dict):
        event = body["event"]
        metadata = event.get("metadata")
        if metadata is None or isinstance(metadata, dict):
            metadata = {"turn_id": keys.message_id, **(metadata or {})}
            return {**body, "event": {**event, "metadata": metadata}}
    if found[1] == "messages" and isinstance(body.get("message"), dict):
        message = body["message"]
        return {**body, "message": {"turn_id": keys.message_id, **message}}
    return body
