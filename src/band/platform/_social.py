"""REST calls outside the message lifecycle: peers, contacts and memories."""

from __future__ import annotations

from typing import Any

from ._http import HttpCore

__all__ = ["SocialCalls"]

Page = tuple[list[dict[str, Any]], dict[str, Any]]


async def get_page(http: HttpCore, path: str, params: dict[str, Any]) -> Page:
    """``GET path`` answered with a list: its ``data`` and its ``metadata`` (or ``meta``)."""
    body = await http.call_full("GET", path, params=params)
    data = body.get("data") or []
    return list(data), dict(body.get("metadata") or body.get("meta") or {})


class SocialCalls:
    """Mixin of peer, contact and memory calls; needs ``self.http``."""

    http: HttpCore

    async def lookup_peers(
        self, page: int = 1, page_size: int = 50, not_in_chat: str | None = None
    ) -> Page:
        """Agents and people this agent may add to a room (``GET /agent/peers``)."""
        params = {"page": page, "page_size": page_size, "not_in_chat": not_in_chat}
        return await get_page(self.http, "/agent/peers", params)

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> Page:
        """The agent's contacts, one offset page."""
        return await get_page(self.http, "/agent/contacts", {"page": page, "page_size": page_size})

    async def add_contact(self, handle: str, message: str | None = None) -> dict[str, Any]:
        """Send a contact request; ``data.status`` is ``pending`` or ``approved``."""
        body: dict[str, Any] = {"handle": handle}
        if message is not None:
            body["message"] = message
        return dict(await self.http.call("POST", "/agent/contacts/add", json=body) or {})

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> dict[str, Any]:
        """Remove a contact named by handle or by id."""
        body = {k: v for k, v in (("handle", handle), ("contact_id", contact_id)) if v}
        return dict(await self.http.call("POST", "/agent/contacts/remove", json=body) or {})

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Received and sent contact requests: ``({"received": [...], "sent": [...]}, meta)``."""
        params = {"page": page, "page_size": page_size, "sent_status": sent_status}
        body = await self.http.call_full("GET", "/agent/contacts/requests", params=params)
        return dict(body.get("data") or {}), dict(body.get("metadata") or {})

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> dict[str, Any]:
        """Approve or reject a received request, or cancel a sent one."""
        body: dict[str, Any] = {"action": action}
        body.update({k: v for k, v in (("handle", handle), ("request_id", request_id)) if v})
        path = "/agent/contacts/requests/respond"
        return dict(await self.http.call("POST", path, json=body) or {})

    async def list_memories(self, **filters: Any) -> Page:
        """Memories visible to the agent; filters are passed as query parameters."""
        return await get_page(self.http, "/agent/memories", filters)

    async def store_memory(self, **fields: Any) -> dict[str, Any]:
        """Store a memory (``content``, ``system``, ``type``, ``segment``, ``thought``, ...)."""
        body = {"memory": {k: v for k, v in fields.items() if v is not None}}
        return dict(await self.http.call("POST", "/agent/memories", json=body) or {})

    async def get_memory(self, memory_id: str) -> dict[str, Any]:
        """One memory by id."""
        return dict(await self.http.call("GET", f"/agent/memories/{memory_id}") or {})

    async def supersede_memory(self, memory_id: str) -> dict[str, Any]:
        """Mark a memory outdated (soft delete)."""
        path = f"/agent/memories/{memory_id}/supersede"
        return dict(await self.http.call("POST", path) or {})

    async def archive_memory(self, memory_id: str) -> dict[str, Any]:
        """Hide a memory while keeping it."""
        return dict(await self.http.call("POST", f"/agent/memories/{memory_id}/archive") or {})
