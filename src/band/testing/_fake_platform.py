"""An in-memory ``ToolBackend``: the platform state behind ``FakeAgentTools``."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from band_protocol import iso, utcnow

from ._fake_workspace import FakeWorkspace

__all__ = ["FakePlatform"]

Page = tuple[list[dict[str, Any]], dict[str, Any]]


def _page(items: list[dict[str, Any]], page: int, page_size: int) -> Page:
    start = (max(page, 1) - 1) * page_size
    total_pages = max(1, -(-len(items) // page_size))
    meta = {"page": page, "page_size": page_size, "total_count": len(items)}
    return items[start : start + page_size], {**meta, "total_pages": total_pages}


def _participant(seed: Mapping[str, Any]) -> dict[str, Any]:
    if not seed.get("id"):
        raise ValueError("a participant needs an id")
    entry = {"role": "member", "status": "active", "type": "User", "name": None, "handle": None}
    return {**entry, **seed}


class FakePlatform(FakeWorkspace):
    """Rooms, peers, contacts, memories, files and tasks held in lists; every call answers
    at once."""

    def __init__(
        self,
        *,
        participants: Iterable[Mapping[str, Any]] = (),
        peers: Iterable[Mapping[str, Any]] = (),
        contacts: Iterable[Mapping[str, Any]] = (),
        room_context: Iterable[Mapping[str, Any]] = (),
        memories: Iterable[Mapping[str, Any]] = (),
        received_contact_requests: Iterable[Mapping[str, Any]] = (),
        sent_contact_requests: Iterable[Mapping[str, Any]] = (),
        files: Iterable[Mapping[str, Any]] = (),
        tasks: Iterable[Mapping[str, Any]] = (),
        board: Mapping[str, Any] | None = None,
    ) -> None:
        self.participants = [_participant(p) for p in participants]
        self.peers = [dict(p) for p in peers]
        self.contacts = [dict(c) for c in contacts]
        self.room_context = [dict(m) for m in room_context]
        self.memories = [dict(m) for m in memories]
        self.received_contact_requests = [dict(r) for r in received_contact_requests]
        self.sent_contact_requests = [dict(r) for r in sent_contact_requests]
        self.rooms_created: list[dict[str, Any]] = []
        self.context_calls: list[dict[str, Any]] = []
        self.message_error: BaseException | None = None
        self.event_error: BaseException | None = None
        self.posted_messages: list[dict[str, Any]] = []
        self.posted_events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._init_workspace(files, tasks, board)

    def _next(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    async def post_message(
        self,
        room_id: str,
        content: str,
        mentions: list[dict[str, Any]],
        attachment_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        if self.message_error is not None:
            raise self.message_error
        attachments = self.check_attachments(attachment_ids or [])
        message_id = f"msg-{len(self.posted_messages) + 1}"
        posted = {"id": message_id, "content": content, "mentions": mentions}
        self.posted_messages.append({**posted, "attachments": attachments})
        recipients = [{"id": m["id"], "handle": m.get("handle") or m["id"]} for m in mentions]
        return {"id": message_id, "success": True, "recipients": recipients}

    async def post_event(
        self,
        room_id: str,
        content: str,
        message_type: str,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        if self.event_error is not None:
            raise self.event_error
        event_id = f"evt-{len(self.posted_events) + 1}"
        self.posted_events.append(
            {
                "id": event_id,
                "content": content,
                "message_type": message_type,
                "metadata": metadata or {},
            }
        )
        return {"id": event_id, "message_type": message_type, "success": True}

    async def get_participants(self, room_id: str) -> list[dict[str, Any]]:
        return [dict(p) for p in self.participants]

    async def get_context(
        self,
        room_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Page:
        size = page_size or limit or 50
        self.context_calls.append({"room_id": room_id, "page": page or 1, "page_size": size})
        return _page(self.room_context, page or 1, size)

    async def add_participant(
        self, room_id: str, participant_id: str, role: str | None = None
    ) -> dict[str, Any]:
        peer = next((p for p in self.peers if p.get("id") == participant_id), None)
        if peer is None:
            raise ValueError(f"No peer with id {participant_id}")
        entry = _participant({**peer, "role": role or "member"})
        self.participants.append(entry)
        return dict(entry)

    async def remove_participant(self, room_id: str, participant_id: str) -> dict[str, Any]:
        removed = next(p for p in self.participants if p["id"] == participant_id)
        self.participants.remove(removed)
        return dict(removed)

    async def lookup_peers(
        self, page: int = 1, page_size: int = 50, not_in_chat: str | None = None
    ) -> Page:
        present = {p["id"] for p in self.participants}
        return _page([p for p in self.peers if p.get("id") not in present], page, page_size)

    async def create_chat(self, title: str | None = None, task_id: str | None = None) -> Any:
        room = {"id": self._next("room"), "title": title, "task_id": task_id}
        self.rooms_created.append(room)
        return room

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> Page:
        return _page(self.contacts, page, page_size)

    async def add_contact(self, handle: str, message: str | None = None) -> dict[str, Any]:
        request = {"id": self._next("req"), "status": "pending", "to_handle": handle}
        self.sent_contact_requests.append({**request, "message": message})
        return request

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> dict[str, Any]:
        for contact in self.contacts:
            if (handle and contact.get("handle") == handle) or contact.get("id") == contact_id:
                self.contacts.remove(contact)
                return {"id": contact.get("id"), "status": "removed"}
        raise ValueError(f"No contact {handle or contact_id}")

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        sent = [r for r in self.sent_contact_requests if sent_status in ("all", r.get("status"))]
        data = {"received": list(self.received_contact_requests), "sent": sent}
        return data, {"page": page, "page_size": page_size}

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> dict[str, Any]:
        pool = self.sent_contact_requests if action == "cancel" else self.received_contact_requests
        for request in pool:
            names = (request.get("from_handle"), request.get("to_handle"))
            if request.get("id") == request_id or (handle and handle in names):
                status = {"approve": "approved", "reject": "rejected"}.get(action, "cancelled")
                request["status"] = status
                return {"id": request.get("id"), "status": status}
        raise ValueError(f"No contact request {request_id or handle}")

    async def list_memories(self, **filters: Any) -> Page:
        query = filters.pop("content_query", None)
        page_size = int(filters.pop("page_size", 50))
        keys = ("subject_id", "scope", "system", "type", "segment", "status")
        found = [
            m
            for m in self.memories
            if all(filters.get(k) in (None, "all", m.get(k)) for k in keys)
            and (not query or str(query).lower() in str(m.get("content", "")).lower())
        ]
        return _page(found, 1, page_size)

    async def store_memory(self, **fields: Any) -> dict[str, Any]:
        now = iso(utcnow())
        memory = {"id": self._next("mem"), "status": "active", **fields}
        memory.update(inserted_at=now, updated_at=now)
        self.memories.append(memory)
        return dict(memory)

    def _memory(self, memory_id: str) -> dict[str, Any]:
        for memory in self.memories:
            if memory.get("id") == memory_id:
                return memory
        raise ValueError(f"Memory not found: {memory_id}")

    async def get_memory(self, memory_id: str) -> dict[str, Any]:
        return dict(self._memory(memory_id))

    async def supersede_memory(self, memory_id: str) -> dict[str, Any]:
        self._memory(memory_id)["status"] = "superseded"
        return dict(self._memory(memory_id))

    async def archive_memory(self, memory_id: str) -> dict[str, Any]:
        self._memory(memory_id)["status"] = "archived"
        return dict(self._memory(memory_id))
