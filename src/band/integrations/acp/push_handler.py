"""``ACPPushHandler``: room messages no prompt waits for, shown in their session anyway."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from band.core.types import PlatformMessage

from .event_converter import EventConverter

__all__ = ["ACPPushHandler"]

logger = logging.getLogger("band.integrations.acp.server")


class SessionRooms(Protocol):
    """What the handler needs of the server adapter: a room's session, the editor."""

    def get_session_for_room(self, room_id: str) -> str | None: ...

    def get_acp_client(self) -> Any: ...


class ACPPushHandler:
    """Sends an unsolicited ``session/update`` for a message in a session's room."""

    def __init__(self, adapter: SessionRooms) -> None:
        self._adapter = adapter

    async def handle_push_event(self, msg: PlatformMessage, room_id: str) -> None:
        session_id = self._adapter.get_session_for_room(room_id)
        client = self._adapter.get_acp_client()
        update = EventConverter.convert(msg)
        if session_id is None or client is None or update is None:
            logger.debug("Room %s: nothing to push to an editor", room_id)
            return
        await client.session_update(session_id=session_id, update=update)
