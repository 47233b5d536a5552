"""The message lifecycle as ``BandLink`` offers it to host code: fetch, claim, settle.

Booleans are True only when the platform confirmed; ``*_result`` says why not. Messages are
``band.PlatformMessage`` (``band.runtime.messages``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from band.core.settlement import SettlementResult
from band.runtime.messages import PlatformMessage

from .rest import BandRestClient, MarkResult

__all__ = ["ActionablePage", "MessageLifecycle", "SettlementResult"]

MAX_SCAN_PAGES = 20


_SETTLED = {
    MarkResult.OK: SettlementResult.ACCEPTED,
    MarkResult.NOT_FOUND: SettlementResult.NOT_FOUND,
    MarkResult.REJECTED: SettlementResult.REJECTED,
}


def _settlement(result: MarkResult) -> SettlementResult:
    # A 204 (the room's execution is stopped) confirms nothing.
    return _SETTLED.get(result, SettlementResult.UNCONFIRMED)


@dataclass
class ActionablePage:
    """One page of messages still to handle, and the cursor of the next page."""

    messages: list[PlatformMessage]
    next_cursor: str | None


class MessageLifecycle:
    """Mixin of the lifecycle calls; needs ``self.api`` (the link's REST client)."""

    api: BandRestClient

    async def get_next_message(self, room_id: str) -> PlatformMessage | None:
        """The oldest message for this agent in the room not yet handled; None on 204."""
        payload = await self.api.get_next(room_id)
        return PlatformMessage.from_payload(payload, room_id) if payload else None

    async def get_actionable_page(
        self, room_id: str, *, cursor: str | None = None
    ) -> ActionablePage:
        """A page of messages not yet processed (delivered, failed, processing), oldest first."""
        items, meta = await self.api.list_messages(room_id, cursor=cursor, sort_order="asc")
        next_cursor = meta.get("next_cursor") if meta.get("has_more") else None
        return ActionablePage(
            [PlatformMessage.from_payload(item, room_id) for item in items],
            next_cursor if isinstance(next_cursor, str) and next_cursor else None,
        )

    async def get_actionable_message(self, room_id: str, message_id: str) -> PlatformMessage | None:
        """``message_id`` if it still needs handling, else None."""
        cursor: str | None = None
        for _ in range(MAX_SCAN_PAGES):
            page = await self.get_actionable_page(room_id, cursor=cursor)
            for message in page.messages:
                if message.id == message_id:
                    return message
            if page.next_cursor is None:
                return None
            cursor = page.next_cursor
        return None

    async def get_stale_processing_messages(self, room_id: str) -> list[PlatformMessage]:
        """Messages left ``processing`` (e.g. by a process that died mid-turn), oldest first."""
        out: list[PlatformMessage] = []
        cursor: str | None = None
        for _ in range(MAX_SCAN_PAGES):
            items, meta = await self.api.list_messages(
                room_id, status="processing", cursor=cursor, sort_order="asc"
            )
            out.extend(PlatformMessage.from_payload(item, room_id) for item in items)
            nxt = meta.get("next_cursor")
            if not meta.get("has_more") or not isinstance(nxt, str) or not nxt:
                return out
            cursor = nxt
        return out

    async def mark_processing(self, room_id: str, message_id: str) -> bool:
        """Claim a message; True when the platform opened (or kept) the attempt."""
        return (await self.api.mark_processing(room_id, message_id)).ok

    async def mark_processed_result(self, room_id: str, message_id: str) -> SettlementResult:
        return _settlement(await self.api.mark_processed(room_id, message_id))

    async def mark_processed(self, room_id: str, message_id: str) -> bool:
        """Acknowledge a handled message; True when the platform recorded it."""
        result = await self.mark_processed_result(room_id, message_id)
        return result is SettlementResult.ACCEPTED

    async def mark_failed_result(
        self, room_id: str, message_id: str, error: str
    ) -> SettlementResult:
        return _settlement(await self.api.mark_failed(room_id, message_id, error))

    async def mark_failed(self, room_id: str, message_id: str, error: str) -> bool:
        """Record a failed attempt with its error text; True when recorded."""
        result = await self.mark_failed_result(room_id, message_id, error)
        return result is SettlementResult.ACCEPTED

    async def report_activity(
        self,
        room_id: str,
        working: bool,
        *,
        timeout_seconds: int = 2,
        on_stopped: Any = None,
    ) -> bool:
        """Show or clear the working indicator; True when the platform took it.

        ``timeout_seconds`` bounds the request (sent once, never retried: the next keep-alive
        is the retry, and the platform lets an unrefreshed indicator lapse on its own). When
        the platform answers that the room's execution is stopped, ``on_stopped()`` runs.
        """
        answer = await self.api.send_activity(room_id, working, timeout=float(timeout_seconds))
        if working and answer is False and callable(on_stopped):
            on_stopped()
        return answer is not None
