"""The ``acp.Client`` a Band adapter hands its agent connection: updates collected per session.

The ACP transport runs every incoming notification as a task of its own, so one session's
updates would otherwise race. A lock per session (FIFO, taken in arrival order) serialises
parsing and publishing, so the room sees the stream's order. A permission or elicitation
handler, which may wait on the room, runs outside that lock; it gets a *narrator* that posts
under it (after closing the open text run). Without a handler a permission request is
cancelled and an elicitation declined. Session config pushes are recorded per session
(they outlive ``reset_session``, which runs every turn). Extension methods and
notifications go to the profile; the chunks a notification yields join its session's stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from band.integrations.acp._sdk import require_acp
from band.integrations.acp.client_profiles import ACPClientProfile, NoopACPClientProfile
from band.integrations.acp.permissions import (
    ElicitationHandler,
    PermissionHandler,
    cancel_permission,
    elicitation_session_id,
)
from band.integrations.acp.session_config import SessionConfigOption
from band.integrations.acp.stream import ACPChunkStream, ChunkSink
from band.integrations.acp.types import CollectedChunk
from band.integrations.acp.updates import ACPUpdateParser

_interfaces = require_acp("acp.interfaces")
_schema = require_acp("acp.schema")

__all__ = ["ACPCollectingClient"]

logger = logging.getLogger(__name__)
Narrator = Callable[[Awaitable[None]], Awaitable[None]]


class ACPCollectingClient(ACPUpdateParser, _interfaces.Client):  # type: ignore[misc,name-defined]  # acp's Client protocol, loaded with the install hint
    """Collects each session's updates into an ``ACPChunkStream`` and answers requests."""

    def __init__(
        self,
        profile: ACPClientProfile | None = None,
        canonicalize_tool_name: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__(canonicalize_tool_name)
        self._profile: ACPClientProfile = profile or NoopACPClientProfile()
        self._stream = ACPChunkStream()
        self._permission_handlers: dict[str, PermissionHandler] = {}
        self._elicitation_handlers: dict[str, ElicitationHandler] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._config_options: dict[str, tuple[SessionConfigOption, ...]] = {}

    def on_connect(self, conn: Any) -> None:
        """Part of ``acp.Client``; the runtime keeps the connection."""

    def _lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    def _narrator(self, session_id: str) -> Narrator:
        async def narrate(post: Awaitable[None]) -> None:
            async with self._lock(session_id):
                await self._stream.close_open_run(session_id)
                await post

        return narrate

    async def session_update(self, session_id: str, update: object, **kwargs: object) -> None:
        if isinstance(update, _schema.ConfigOptionUpdate):
            self.record_config_options(session_id, update.config_options)
            return
        async with self._lock(session_id):
            chunk = self._chunk_from_update(update)
            if chunk is not None:
                await self._stream.ingest(session_id, chunk)

    async def request_permission(
        self, options: object, session_id: str, tool_call: object, **kwargs: object
    ) -> Any:
        handler = self._permission_handlers.get(session_id)
        if handler is None:
            logger.debug("No permission handler for session %s: cancelled", session_id)
            return cancel_permission()
        return await handler(
            options=options,
            session_id=session_id,
            tool_call=tool_call,
            narrate_permission=self._narrator(session_id),
            **kwargs,
        )

    async def create_elicitation(self, message: str, mode: object, **kwargs: object) -> object:
        session_id = elicitation_session_id(mode, dict(kwargs))
        handler = self._elicitation_handlers.get(session_id)
        if handler is None:
            return _schema.DeclineElicitationResponse(action="decline")
        return await handler(
            message=message,
            mode=mode,
            narrate_elicitation=self._narrator(session_id),
            **kwargs,
        )

    def set_permission_handler(self, session_id: str, handler: PermissionHandler | None) -> None:
        _put(self._permission_handlers, session_id, handler)

    def set_elicitation_handler(self, session_id: str, handler: ElicitationHandler | None) -> None:
        _put(self._elicitation_handlers, session_id, handler)

    def record_config_options(
        self, session_id: str, options: Sequence[SessionConfigOption]
    ) -> None:
        self._config_options[session_id] = tuple(options)

    def config_options(self, session_id: str) -> tuple[SessionConfigOption, ...]:
        return self._config_options.get(session_id, ())

    def forget_session(self, session_id: str) -> None:
        """A closed session: its catalog goes, and whatever its profile kept."""
        self._config_options.pop(session_id, None)
        forget = getattr(self._profile, "forget_session", None)  # older profiles lack it
        if forget is not None:
            forget(session_id)

    def reset_session(self, session_id: str) -> None:
        """A new turn: the stream's buffers and the turn's handlers are dropped."""
        self._stream.reset_session(session_id)
        self._permission_handlers.pop(session_id, None)
        self._elicitation_handlers.pop(session_id, None)

    def set_sink(self, session_id: str, sink: ChunkSink | None) -> None:
        self._stream.set_sink(session_id, sink)

    async def flush(self, session_id: str) -> None:
        async with self._lock(session_id):
            await self._stream.flush(session_id)

    def get_collected_text(self, session_id: str | None = None) -> str:
        return self._stream.get_collected_text(session_id)

    def get_collected_chunks(self, session_id: str | None = None) -> list[CollectedChunk]:
        return self._stream.get_collected_chunks(session_id)

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]:
        return await self._profile.ext_method(method, params)

    async def ext_notification(self, method: str, params: dict[str, object]) -> None:
        session_id = str(params.get("sessionId") or params.get("session_id") or "")
        session_id = session_id or getattr(self._profile, "extension_session_id", None) or ""
        if not session_id:
            return
        chunks = await self._profile.ext_notification(method, params)
        if not chunks:
            return
        async with self._lock(session_id):
            await self._stream.close_open_run(session_id)
            for chunk in chunks:
                await self._stream.finalize(session_id, chunk)


def _put(table: dict[str, Any], key: str, value: object | None) -> None:
    if value is None:
        table.pop(key, None)
    else:
        table[key] = value
