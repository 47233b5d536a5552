"""One Parlant customer and session per Band room, and posting a room message to it."""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["RoomSessions"]

logger = logging.getLogger("band.adapters.parlant.sessions")


class RoomSessions:
    """Maps room ids to Parlant sessions (in memory); talks to Parlant's ``Application``."""

    def __init__(self, app: Any, agent_id: str) -> None:
        self.app = app
        self.agent_id = agent_id
        self._customers: dict[str, str] = {}
        self._sessions: dict[str, str] = {}

    def known(self, room_id: str) -> bool:
        return room_id in self._sessions

    async def session_for(self, room_id: str, sender_name: str) -> str:
        """The room's session id, creating the customer and session on first use."""
        session_id = self._sessions.get(room_id)
        if session_id is not None:
            return session_id
        customer_id = self._customers.get(room_id)
        if customer_id is None:
            customer = await self.app.customers.create(
                name=sender_name or "Band user", extra={}, tags=None
            )
            customer_id = str(customer.id)
            self._customers[room_id] = customer_id
        session = await self.app.sessions.create(
            customer_id=customer_id, agent_id=self.agent_id, title=f"Band Room {room_id[:8]}"
        )
        session_id = str(session.id)
        self._sessions[room_id] = session_id
        return session_id

    async def post_customer_message(
        self, session_id: str, text: str, *, trigger: bool = True, historical: bool = False
    ) -> int:
        """Post ``text`` as the customer; returns the event offset."""
        from parlant.core.app_modules.sessions import Moderation
        from parlant.core.sessions import EventSource

        event = await self.app.sessions.create_customer_message(
            session_id=session_id,
            moderation=Moderation.NONE,
            message=text,
            source=EventSource.CUSTOMER,
            trigger_processing=trigger,
            metadata={"historical": True} if historical else None,
        )
        return int(event.offset)

    async def post_agent_message(self, session_id: str, text: str, sender: str) -> int:
        """Record ``text`` as an earlier agent message (history; never triggers processing)."""
        from parlant.core.sessions import EventKind, EventSource

        event = await self.app.sessions.create_event(
            session_id=session_id,
            kind=EventKind.MESSAGE,
            data={"message": text, "participant": {"id": self.agent_id, "display_name": sender}},
            metadata={"historical": True},
            source=EventSource.AI_AGENT,
            trigger_processing=False,
        )
        return int(event.offset)

    async def inject_history(self, session_id: str, history: list[dict[str, Any]]) -> int:
        """Replay complete exchanges of ``history`` into the session; returns how many.

        A user line is kept only when an assistant line follows it directly (the unanswered
        line is the live turn's to answer). A line that cannot be posted is logged and skipped.
        """
        lines = [h for h in history if str(h.get("content") or "").strip()]
        kept: list[dict[str, Any]] = []
        for index, line in enumerate(lines):
            if line.get("role") == "assistant" or (
                index + 1 < len(lines) and lines[index + 1].get("role") == "assistant"
            ):
                kept.append(line)
        posted = 0
        for line in kept:
            text = str(line["content"])
            try:
                if line.get("role") == "assistant":
                    await self.post_agent_message(session_id, text, str(line.get("sender") or ""))
                else:
                    await self.post_customer_message(
                        session_id, text, trigger=False, historical=True
                    )
            except Exception as exc:
                logger.warning("Session %s: could not inject a history line: %s", session_id, exc)
                continue
            posted += 1
        return posted

    def session_of(self, room_id: str) -> str | None:
        return self._sessions.get(room_id)

    def forget(self, room_id: str) -> None:
        self._sessions.pop(room_id, None)
        self._customers.pop(room_id, None)

    def clear(self) -> None:
        self._sessions.clear()
        self._customers.clear()
