"""Contact and memory tools (the CONTACTS and MEMORY capability groups)."""

from __future__ import annotations

from typing import Any, TypeVar

from band.core.turn import Turn
from band_protocol import TurnEffect

from .backend import ToolBackend

__all__ = ["SocialTools"]

T = TypeVar("T")


class SocialTools:
    """Mixin; needs ``self.backend`` and ``self.turn``."""

    backend: ToolBackend
    turn: Turn

    def _done(self, effect: TurnEffect, value: T) -> T:
        self.turn.record(effect)
        return value

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> dict[str, Any]:
        """The agent's contacts."""
        data, metadata = await self.backend.list_contacts(page, page_size)
        return self._done(TurnEffect.OBSERVE, {"data": data, "metadata": metadata})

    async def add_contact(self, handle: str, message: str | None = None) -> dict[str, Any]:
        """Send a contact request."""
        return self._done(TurnEffect.ACT, await self.backend.add_contact(handle, message))

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> dict[str, Any]:
        """Remove a contact by handle or id."""
        if not handle and not contact_id:
            raise ValueError("Pass a handle or a contact_id")
        result = await self.backend.remove_contact(handle, contact_id)
        return self._done(TurnEffect.ACT, result)

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> dict[str, Any]:
        """Received and sent contact requests."""
        data, metadata = await self.backend.list_contact_requests(page, page_size, sent_status)
        return self._done(TurnEffect.OBSERVE, {**data, "metadata": metadata})

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> dict[str, Any]:
        """Approve, reject or cancel a contact request."""
        if not handle and not request_id:
            raise ValueError("Pass a handle or a request_id")
        result = await self.backend.respond_contact_request(action, handle, request_id)
        return self._done(TurnEffect.ACT, result)

    async def list_memories(self, **filters: Any) -> dict[str, Any]:
        """Memories visible to the agent."""
        clean = {k: v for k, v in filters.items() if v is not None}
        data, metadata = await self.backend.list_memories(**clean)
        return self._done(TurnEffect.OBSERVE, {"data": data, "metadata": metadata})

    async def store_memory(
        self,
        content: str,
        system: str,
        type: str,
        segment: str,
        thought: str,
        scope: str,
        subject_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Store a memory."""
        stored = await self.backend.store_memory(
            content=content,
            system=system,
            type=type,
            segment=segment,
            thought=thought,
            scope=scope,
            subject_id=subject_id,
            metadata=metadata,
        )
        return self._done(TurnEffect.ACT, stored)

    async def get_memory(self, memory_id: str) -> dict[str, Any]:
        """One memory."""
        return self._done(TurnEffect.OBSERVE, await self.backend.get_memory(memory_id))

    async def supersede_memory(self, memory_id: str) -> dict[str, Any]:
        """Mark a memory outdated."""
        return self._done(TurnEffect.ACT, await self.backend.supersede_memory(memory_id))

    async def archive_memory(self, memory_id: str) -> dict[str, Any]:
        """Archive a memory."""
        return self._done(TurnEffect.ACT, await self.backend.archive_memory(memory_id))
