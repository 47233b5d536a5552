"""Which Parlant customer and session each Band room talks through.

A room's customer has a stable id (``band-<room id>``, the whole id so two rooms never share
one), found again on a server that kept it; its session is created on first use. Customers
and sessions are remembered apart, so a customer made before a failed session create is
reused on the retry.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["RoomSessions", "customer_id_for"]

logger = logging.getLogger(__name__)

SESSION_TITLE_ROOM_CHARS = 8  # enough of the room id to tell sessions apart in Parlant's UI


def customer_id_for(room_id: str) -> str:
    """The room's Parlant customer id."""
    return f"band-{room_id}"


class RoomSessions:
    """Room -> Parlant customer and session, on one running server."""

    def __init__(self, *, server: Any, app: Any, agent_id: Any) -> None:
        self.app = app
        self._server = server
        self._agent_id = agent_id
        self._customers: dict[str, Any] = {}
        self._sessions: dict[str, Any] = {}

    def known(self, room_id: str) -> bool:
        """Whether the room already has a session here."""
        return room_id in self._sessions

    def session_of(self, room_id: str) -> Any | None:
        return self._sessions.get(room_id)

    async def session_for(self, room_id: str, *, customer_name: str) -> Any:
        """The room's session id, creating its customer and session on first use."""
        if room_id not in self._sessions:
            customer_id = await self._customer_for(room_id, name=customer_name)
            session = await self.app.sessions.create(
                customer_id=customer_id,
                agent_id=self._agent_id,
                title=f"Band Room {room_id[:SESSION_TITLE_ROOM_CHARS]}",
            )
            self._sessions[room_id] = session.id
            logger.info("Room %s: Parlant session %s", room_id, session.id)
        return self._sessions[room_id]

    def forget(self, room_id: str) -> None:
        self._sessions.pop(room_id, None)
        self._customers.pop(room_id, None)

    async def _customer_for(self, room_id: str, *, name: str) -> Any:
        if room_id not in self._customers:
            wanted = customer_id_for(room_id)
            customer = await self._server.find_customer(id=wanted)
            if customer is None:
                customer = await self._server.create_customer(name=name or "Band user", id=wanted)
            self._customers[room_id] = customer.id
        return self._customers[room_id]
