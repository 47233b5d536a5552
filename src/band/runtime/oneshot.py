"""``OneShotInvoker``: one platform event per call, for hosts that cannot hold a socket.

A bridge holds the WebSocket and forwards each event as an envelope (``event_type``,
``agent_id``, ``room_id``, ``payload``, ``raw``, ``forwarded_at``); ``handle_event`` builds
the adapter input for that one event and calls an ordinary adapter, which replies over
REST. A message is handled only while the platform still has it open (``/next`` and the
agent's queue decide), so a retried or repeated envelope never answers twice.
"""

from __future__ import annotations

import asyncio
import logging
from enum import StrEnum
from typing import Any

from band.core.exceptions import InputNotAccepted
from band.core.types import AgentInput, HistoryProvider
from band.platform.link import BandLink
from band.platform.turn_keys import turn_scope

from .history import (
    build_participants_message,
    build_platform_message,
    history_before,
    roster_entry,
)
from .toolkit import make_room_tools

__all__ = ["OneShotEnvelopeError", "OneShotInvoker", "OneShotStatus"]

log = logging.getLogger("band.runtime.oneshot")

FAILURE_DETAIL_LIMIT = 500
HISTORY_PAGE_SIZE = 50
_REQUIRED = (
    "id",
    "content",
    "sender_id",
    "sender_type",
    "message_type",
    "inserted_at",
    "updated_at",
)
_CLEANUP_EVENTS = ("room_removed", "room_deleted")


class OneShotStatus(StrEnum):
    """What ``handle_event`` did with an envelope."""

    IGNORED = "ignored"
    CLEANED_UP = "cleaned_up"
    SKIPPED_SELF = "skipped_self"
    NO_PENDING = "no_pending"
    ALREADY_PROCESSED = "already_processed"
    DONE = "done"
    NOT_ACCEPTED = "not_accepted"


class OneShotEnvelopeError(ValueError):
    """The envelope cannot be handled as sent (missing room id, incomplete message)."""


def _payload(body: dict[str, Any]) -> dict[str, Any]:
    payload = body.get("payload")
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise OneShotEnvelopeError("payload must be an object")
    return payload


def _room_id(body: dict[str, Any], event_type: str, payload: dict[str, Any]) -> str:
    room = body.get("room_id")
    if isinstance(room, str) and room:
        return room
    key = "chat_room_id" if event_type == "message_created" else "id"
    room = payload.get(key)
    if isinstance(room, str) and room:
        return room
    raise OneShotEnvelopeError("room_id is missing from both the envelope and the payload")


def _check_message(payload: dict[str, Any]) -> None:
    issues = []
    for name in _REQUIRED:
        value = payload.get(name)
        if name not in payload or value is None:
            issues.append(f"required field `{name}` is missing ({name})")
        elif not isinstance(value, str):
            issues.append(f"field `{name}` must be a string ({name})")
        elif name == "id" and not value:
            issues.append("field `id` must not be empty (id)")
    if issues:
        raise OneShotEnvelopeError(f"{len(issues)} validation issue(s): " + "; ".join(issues))


def _key(item: dict[str, Any]) -> tuple[int, str]:
    seq = item.get("seq")
    return (seq if isinstance(seq, int) else -1, str(item.get("inserted_at") or ""))


class OneShotInvoker:
    """Runs an adapter for one forwarded event at a time (see the module docstring)."""

    def __init__(
        self,
        *,
        link: BandLink,
        adapter: Any,
        agent_id: str,
        drain_cap: int = 50,
        history_page_cap: int = 20,
    ) -> None:
        self._link = link
        self.adapter = adapter
        self.agent_id = agent_id
        self.drain_cap = drain_cap
        self.history_page_cap = history_page_cap
        self._name = ""
        self._description = ""
        self._started = False
        self._closed = False
        self._inflight: set[str] = set()
        self._done: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._rooms: dict[str, asyncio.Lock] = {}

    @property
    def link(self) -> BandLink:
        return self._link

    @property
    def agent_name(self) -> str:
        return self._name

    @property
    def agent_description(self) -> str:
        return self._description

    async def startup(self) -> None:
        """Fetch the agent's identity and start the adapter (``on_started``); idempotent."""
        if self._started:
            return
        me = await self._link.api.get_me()
        self._name, self._description = me.name, me.description or ""
        self.adapter.platform = self._link.to_platform_connection(self.agent_id)
        startup = getattr(self.adapter, "startup", None)
        if callable(startup):
            flags = dict(me.feature_flags or {})
            await startup(self._name, self._description, feature_flags=flags, host=self)
        else:
            await self.adapter.on_started(self._name, self._description)
        self._started = True
        log.info("OneShotInvoker ready: agent_id=%s name=%s", self.agent_id, self._name)

    async def shutdown(self) -> None:
        """Wait for accepted events, dispose the adapter, disconnect the link."""
        if self._closed:
            return
        self._closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        dispose = getattr(self.adapter, "dispose", None)
        if callable(dispose):
            await dispose(self)
        else:
            await self.adapter.cleanup_all()
        await self._link.disconnect()

    async def handle_event(self, body: dict[str, Any]) -> dict[str, Any]:
        """Handle one envelope; the result's ``status`` is a ``OneShotStatus``."""
        if not self._started or self._closed:
            raise RuntimeError("OneShotInvoker is not started; call startup() first")
        if not isinstance(body, dict):
            raise OneShotEnvelopeError("the envelope must be an object")
        event_type = str(body.get("event_type") or "")
        if event_type != "message_created" and event_type not in _CLEANUP_EVENTS:
            return {"status": OneShotStatus.IGNORED, "event_type": event_type}
        payload = _payload(body)
        room_id = _room_id(body, event_type, payload)
        if event_type in _CLEANUP_EVENTS:
            await self.adapter.on_cleanup(room_id)
            return {
                "status": OneShotStatus.CLEANED_UP,
                "event_type": event_type,
                "room_id": room_id,
            }
        _check_message(payload)
        task = asyncio.ensure_future(self._message(room_id, payload))
        self._tasks.add(task)
        try:
            return await task
        finally:
            self._tasks.discard(task)

    async def _message(self, room_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        message_id = str(payload["id"])
        if payload.get("sender_type") == "Agent" and payload.get("sender_id") == self.agent_id:
            return {"status": OneShotStatus.SKIPPED_SELF, "message_id": message_id}
        if message_id in self._inflight:
            return {"status": OneShotStatus.NOT_ACCEPTED, "message_id": message_id}
        lock = self._rooms.setdefault(room_id, asyncio.Lock())
        self._inflight.add(message_id)
        try:
            async with lock:  # one turn at a time per room, in arrival order
                return await self._handle(room_id, message_id, payload)
        finally:
            self._inflight.discard(message_id)

    async def _handle(
        self, room_id: str, message_id: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        api = self._link.api
        if message_id in self._done:
            return await self._already(room_id, message_id)
        head = await api.get_next(room_id)
        if head is None:
            return {"status": OneShotStatus.NO_PENDING, "message_id": message_id}
        still_open = str(head.get("id")) == message_id or (
            await self._link.get_actionable_message(room_id, message_id) is not None
        )
        if not still_open:
            return await self._already(room_id, message_id, head)
        if not await self._link.mark_processing(room_id, message_id):
            return {"status": OneShotStatus.NOT_ACCEPTED, "message_id": message_id}
        roster = await self._roster(room_id)
        context, truncated = await self._context(room_id)
        inp = AgentInput(
            msg=build_platform_message(payload, room_id, roster),
            tools=make_room_tools(
                api,
                room_id,
                participants=list(roster.values()),
                agent_id=self.agent_id,
                agent_name=self._name,
                adapter=self.adapter,
            ),
            history=HistoryProvider(history_before(context, message_id, roster)),
            participants_msg=build_participants_message(roster.values(), agent_id=self.agent_id),
            contacts_msg=None,
            is_session_bootstrap=True,
            room_id=room_id,
        )
        try:
            with turn_scope(self.agent_id, message_id):  # a re-run posts nothing twice
                await self.adapter.on_event(inp)
        except InputNotAccepted:
            await self._link.mark_failed(room_id, message_id, "input not accepted")
            return {"status": OneShotStatus.NOT_ACCEPTED, "message_id": message_id}
        except Exception as exc:
            text = (str(exc).strip() or type(exc).__name__)[:FAILURE_DETAIL_LIMIT]
            await self._link.mark_failed(room_id, message_id, text)
            raise
        if await self._link.mark_processed(room_id, message_id):
            self._done.add(message_id)
        else:
            # Still open on the platform: a retried envelope runs the turn again, and its
            # turn keys make that re-run post nothing twice.
            log.warning("Room %s: ack of %s unconfirmed; left open", room_id, message_id)
        result: dict[str, Any] = {
            "status": OneShotStatus.DONE,
            "room_id": room_id,
            "message_id": message_id,
        }
        drained, cut = await self._drain_seen(room_id, payload)
        if drained:
            result["drained"] = drained
        if cut:
            result["drain_truncated"] = True
        if truncated:
            result["history_truncated"] = True
        return result

    async def _already(
        self, room_id: str, message_id: str, head: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = {
            "status": OneShotStatus.ALREADY_PROCESSED,
            "message_id": message_id,
        }
        head = head if head is not None else await self._link.api.get_next(room_id)
        if head is not None:
            result["next_open"] = str(head.get("id"))
        return result

    async def _roster(self, room_id: str) -> dict[str, dict[str, Any]]:
        participants = await self._link.api.get_participants(room_id)
        entries = (roster_entry(p) for p in participants)
        return {e["id"]: e for e in entries if e is not None}

    async def _context(self, room_id: str) -> tuple[list[dict[str, Any]], bool]:
        """The agent's context, oldest first, at most ``history_page_cap`` pages."""
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(self.history_page_cap):
            page, meta = await self._link.api.get_context(
                room_id, limit=HISTORY_PAGE_SIZE, cursor=cursor
            )
            items.extend(page)
            nxt = meta.get("next_cursor")
            if not meta.get("has_more") or not isinstance(nxt, str) or not nxt:
                return items, False
            cursor = nxt
        return items, True

    async def _drain_seen(self, room_id: str, trigger: dict[str, Any]) -> tuple[int, bool]:
        """Acknowledge open messages older than the trigger: the model saw them in history."""
        drained = 0
        while drained < self.drain_cap:
            head = await self._link.api.get_next(room_id)
            if head is None or _key(head) >= _key(trigger) or str(head.get("id")) == trigger["id"]:
                return drained, False
            head_id = str(head.get("id"))
            if not await self._link.mark_processing(room_id, head_id):
                return drained, False
            await self._link.mark_processed(room_id, head_id)
            self._done.add(head_id)
            drained += 1
        return drained, True
