"""``FakePlatform``: the real REST client over an in-memory platform (behind ``FakeAgentTools``).

The client's methods build the requests they would send to Band; the routes here answer them
from plain lists: rooms, peers, contacts, memories (this module) and files, tasks and the
board (``_fake_workspace``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from band.platform.rest import BandRestClient
from band_protocol import iso, utcnow

from ._fake_routes import Call, Routes, page_of
from ._fake_workspace import FakeWorkspace

__all__ = ["FakePlatform"]

CHAT = "/agent/chats/{room}"
MEMORY = "/agent/memories/{memory}"
MEMORY_FIELDS = ("content", "system", "type", "segment", "thought", "scope", "subject_id")


def _participant(seed: Mapping[str, Any]) -> dict[str, Any]:
    if not seed.get("id"):
        raise ValueError("a participant needs an id")
    entry = {"role": "member", "status": "active", "type": "User", "name": None, "handle": None}
    return {**entry, **seed}


def _data(value: Any) -> dict[str, Any]:
    return {"data": value}


class FakePlatform(FakeWorkspace, BandRestClient):
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
        self.routes = Routes()
        BandRestClient.__init__(
            self, "http://fake.band.invalid", "fake-key", transport=self.routes.transport
        )
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
        for method, path, handler in (
            ("POST", CHAT + "/messages", self._post_message),
            ("POST", CHAT + "/events", self._post_event),
            ("GET", CHAT + "/participants", self._participants),
            ("POST", CHAT + "/participants", self._add_participant),
            ("DELETE", CHAT + "/participants/{participant}", self._remove_participant),
            ("GET", CHAT + "/context", self._context),
            ("GET", "/agent/peers", self._peers),
            ("POST", "/agent/chats", self._create_chat),
            ("GET", "/agent/contacts", self._contacts),
            ("POST", "/agent/contacts/add", self._add_contact),
            ("POST", "/agent/contacts/remove", self._remove_contact),
            ("GET", "/agent/contacts/requests", self._contact_requests),
            ("POST", "/agent/contacts/requests/respond", self._respond_contact_request),
            ("GET", "/agent/memories", self._list_memories),
            ("POST", "/agent/memories", self._store_memory),
            ("GET", MEMORY, lambda call: _data(dict(self._memory(call.path["memory"])))),
            ("POST", MEMORY + "/supersede", lambda call: self._set_memory(call, "superseded")),
            ("POST", MEMORY + "/archive", lambda call: self._set_memory(call, "archived")),
        ):
            self.routes.add(method, path, handler)

    def _next(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    # messages and events

    def _post_message(self, call: Call) -> dict[str, Any]:
        if self.message_error is not None:
            raise self.message_error
        message = call.body["message"]
        content, mentions = message["content"], message["mentions"]
        attachments = self.check_attachments(message.get("attachment_ids") or [])
        message_id = f"msg-{len(self.posted_messages) + 1}"
        posted = {"id": message_id, "content": content, "mentions": mentions}
        self.posted_messages.append({**posted, "attachments": attachments})
        recipients = [{"id": m["id"], "handle": m.get("handle") or m["id"]} for m in mentions]
        return _data({"id": message_id, "success": True, "recipients": recipients})

    def _post_event(self, call: Call) -> dict[str, Any]:
        if self.event_error is not None:
            raise self.event_error
        event = call.body["event"]
        event_id = f"evt-{len(self.posted_events) + 1}"
        self.posted_events.append(
            {
                "id": event_id,
                "content": event["content"],
                "message_type": event["message_type"],
                "metadata": event.get("metadata") or {},
            }
        )
        return _data({"id": event_id, "message_type": event["message_type"], "success": True})

    # rooms and participants

    def _participants(self, call: Call) -> dict[str, Any]:
        return _data([dict(p) for p in self.participants])

    def _context(self, call: Call) -> dict[str, Any]:
        page = call.number("page") or 1
        size = call.number("page_size") or call.number("limit") or 50
        self.context_calls.append({"room_id": call.path["room"], "page": page, "page_size": size})
        return page_of(self.room_context, page, size)

    def _add_participant(self, call: Call) -> dict[str, Any]:
        wanted = call.body["participant"]
        participant_id = wanted["participant_id"]
        peer = next((p for p in self.peers if p.get("id") == participant_id), None)
        if peer is None:
            raise ValueError(f"No peer with id {participant_id}")
        entry = _participant({**peer, "role": wanted.get("role") or "member"})
        self.participants.append(entry)
        return _data(dict(entry))

    def _remove_participant(self, call: Call) -> dict[str, Any]:
        removed = next(p for p in self.participants if p["id"] == call.path["participant"])
        self.participants.remove(removed)
        return _data(dict(removed))

    def _peers(self, call: Call) -> dict[str, Any]:
        present = {p["id"] for p in self.participants}
        peers = [p for p in self.peers if p.get("id") not in present]
        return page_of(peers, call.number("page") or 1, call.number("page_size") or 50)

    def _create_chat(self, call: Call) -> dict[str, Any]:
        chat = call.body["chat"]
        now = iso(utcnow())
        room = {"id": self._next("room"), "title": chat.get("title"), "task_id": chat["task_id"]}
        self.rooms_created.append(room)
        return _data({**room, "inserted_at": now, "updated_at": now})

    # contacts

    def _contacts(self, call: Call) -> dict[str, Any]:
        return page_of(self.contacts, call.number("page") or 1, call.number("page_size") or 50)

    def _add_contact(self, call: Call) -> dict[str, Any]:
        handle = call.body["handle"]
        request = {"id": self._next("req"), "status": "pending", "to_handle": handle}
        self.sent_contact_requests.append({**request, "message": call.body.get("message")})
        return _data(request)

    def _remove_contact(self, call: Call) -> dict[str, Any]:
        handle, contact_id = call.body.get("handle"), call.body.get("contact_id")
        for contact in self.contacts:
            if (handle and contact.get("handle") == handle) or contact.get("id") == contact_id:
                self.contacts.remove(contact)
                return _data({"id": contact.get("id"), "status": "removed"})
        raise ValueError(f"No contact {handle or contact_id}")

    def _contact_requests(self, call: Call) -> dict[str, Any]:
        status = call.query.get("sent_status", "pending")
        sent = [r for r in self.sent_contact_requests if status in ("all", r.get("status"))]
        data = {"received": list(self.received_contact_requests), "sent": sent}
        meta = {"page": call.number("page") or 1, "page_size": call.number("page_size") or 50}
        return {"data": data, "metadata": meta}

    def _respond_contact_request(self, call: Call) -> dict[str, Any]:
        action = call.body["action"]
        handle, request_id = call.body.get("handle"), call.body.get("request_id")
        pool = self.sent_contact_requests if action == "cancel" else self.received_contact_requests
        for request in pool:
            names = (request.get("from_handle"), request.get("to_handle"))
            if request.get("id") == request_id or (handle and handle in names):
                status = {"approve": "approved", "reject": "rejected"}.get(action, "cancelled")
                request["status"] = status
                return _data({"id": request.get("id"), "status": status})
        raise ValueError(f"No contact request {request_id or handle}")

    # memories

    def _list_memories(self, call: Call) -> dict[str, Any]:
        filters = dict(call.query)
        query = filters.pop("content_query", None)
        page_size = int(filters.pop("page_size", 50))
        keys = ("subject_id", "scope", "system", "type", "segment", "status")
        found = [
            m
            for m in self.memories
            if all(filters.get(k) in (None, "all", m.get(k)) for k in keys)
            and (not query or str(query).lower() in str(m.get("content", "")).lower())
        ]
        return page_of(found, 1, page_size)

    def _store_memory(self, call: Call) -> dict[str, Any]:
        fields = {**dict.fromkeys(MEMORY_FIELDS), "metadata": None, **call.body["memory"]}
        now = iso(utcnow())
        memory = {"id": self._next("mem"), "status": "active", **fields}
        memory.update(inserted_at=now, updated_at=now)
        self.memories.append(memory)
        return _data(dict(memory))

    def _memory(self, memory_id: str) -> dict[str, Any]:
        for memory in self.memories:
            if memory.get("id") == memory_id:
                return memory
        raise ValueError(f"Memory not found: {memory_id}")

    def _set_memory(self, call: Call, status: str) -> dict[str, Any]:
        self._memory(call.path["memory"])["status"] = status
        return _data(dict(self._memory(call.path["memory"])))
