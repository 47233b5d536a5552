"""``CopilotSessionManager``: one Copilot client, a session per room, a turn at a time each.

The client serves every room; each room's session is kept here once the adapter has made or
resumed it. Calls on one session must not interleave, so each room has a lock (``turn_lock``)
that its turns hold and that ``cleanup_session`` takes too: a session is never disconnected
under a running turn. A room's lock is never replaced, so whoever waits for it waits for the
same one. Everything runs on one event loop (the SDK hands its callbacks to it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

__all__ = ["CopilotSessionManager"]

logger = logging.getLogger(__name__)

# An abort or disconnect of a runtime that may be dead gives up after this long.
_CLOSE_TIMEOUT_S = 5.0


class CopilotSessionManager:
    """The client, each room's session, and each room's turn lock.

    How a session is made (resumed or new, its tools, its system message) is the
    adapter's choice; the manager keeps what it made. A borrowed client
    (``owns_client=False``, shared with other managers) is never stopped here.
    """

    def __init__(self, client: Any, *, owns_client: bool = True) -> None:
        self._client = client
        self._owns_client = owns_client
        self._sessions: dict[str, Any] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._starting = asyncio.Lock()

    @property
    def client(self) -> Any:
        return self._client

    @property
    def owns_client(self) -> bool:
        return self._owns_client

    async def ensure_started(self) -> None:
        """Start the client, or start it again after its runtime died.

        The client's own ``start`` is a no-op while connected, so nothing is remembered
        here that could skip the restart a dead runtime needs.
        """
        async with self._starting:
            await self._client.start()

    def turn_lock(self, room_id: str) -> asyncio.Lock:
        """The lock a room's turns (and its cleanup) hold."""
        return self._locks.setdefault(room_id, asyncio.Lock())

    def get_session(self, room_id: str) -> Any | None:
        """The room's session, or None."""
        return self._sessions.get(room_id)

    def store_session(self, room_id: str, session: Any) -> None:
        """Keep ``session`` as the room's."""
        self._sessions[room_id] = session
        logger.info("Room %s: Copilot session kept", room_id)

    async def cleanup_session(self, room_id: str) -> None:
        """Disconnect the room's session and forget it, once its turn (if any) ended.

        The session's state on disk stays, so it can be resumed later; a disconnect that
        fails (or hangs for a few seconds: the runtime may be dead) is logged, not raised.
        """
        async with self.turn_lock(room_id):
            session = self._sessions.pop(room_id, None)
            if session is None:
                return
            try:
                await asyncio.wait_for(session.disconnect(), _CLOSE_TIMEOUT_S)
            except Exception as exc:
                logger.warning("Room %s: disconnecting its Copilot session: %s", room_id, exc)

    async def evict_session(self, room_id: str) -> None:
        """Abort and forget the room's session after a failed turn (its lock held by the
        caller): whatever the runtime still does for that turn stops. Each call gives up
        after a few seconds (the runtime may be dead); the next message resumes afresh."""
        session = self._sessions.pop(room_id, None)
        if session is None:
            return
        for close in (session.abort, session.disconnect):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(close(), _CLOSE_TIMEOUT_S)
        logger.info("Room %s: Copilot session dropped after a failed turn", room_id)

    async def cleanup_all(self) -> None:
        """``cleanup_session`` for every room."""
        for room_id in list(self._sessions):
            await self.cleanup_session(room_id)

    async def stop(self) -> None:
        """Every session cleaned up; the client stopped when it is this manager's.

        The turn locks stay: a waiter may still hold on to one.
        """
        await self.cleanup_all()
        if not self._owns_client:
            return
        try:
            await self._client.stop()
        except Exception as exc:
            logger.warning("Stopping the Copilot client failed: %s", exc)
