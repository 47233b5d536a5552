"""``BandACPServerAdapter``: the Band side of the ACP server (an editor's sessions as rooms).

Each editor session is a Band room the agent creates, with the configured peers in it. A
prompt is posted there, mentioning the peers (or the one a slash command or the session
mode routes to); their messages to the agent stream back to the editor as
``session/update``. An approval a peer asks for becomes ``session/request_permission``, and
the editor's choice is posted back as ``/approve``, ``/approve-session`` or ``/decline``. The
prompt ends ``end_turn`` once every peer asked has answered (and the room stayed quiet for
a moment), ``cancelled`` on ``session/cancel``, or with a failure when no answer comes in
time. The session lives in a ``task`` event, so a restarted server loads it again.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from pydantic import PositiveFloat

from band.converters.acp_server import ACPServerHistoryConverter
from band.core.adapterconfig import BaseAdapterConfig
from band.core.types import PlatformMessage
from band.integrations._bridge import RestBridgeAdapter
from band.integrations._rooms import own_room_histories
from band.integrations.acp.failure import (
    ACPFailureProvider,
    decode_failure,
    prompt_exception_failure,
    prompt_timeout_failure,
)
from band.protocol.requests import (
    ChatEventRequest,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
)
from band.runtime.formatters import strip_leading_mentions
from band_sdk_core import AgentFailure

from .approvals import approval_token, ask_editor, is_approval_status
from .event_converter import EventConverter
from .push_handler import ACPPushHandler
from .router import AgentRouter
from .session_rooms import SessionRooms, open_room
from .types import ACPSessionState, ACPStopReason, ConcurrentPromptError, PendingACPPrompt

__all__ = ["BandACPServerAdapter", "BandACPServerAdapterConfig"]

logger = logging.getLogger("band.integrations.acp.server")
PROVIDER = ACPFailureProvider.BAND
MAX_SESSIONS = 100


class BandACPServerAdapterConfig(BaseAdapterConfig):
    """Settings of the ACP server (frozen, unknown fields rejected).

    * ``peers``: handles (or ids) of the Band agents and people added to every new session's
      room: whom the editor talks to;
    * ``prompt_timeout_s``: how long a prompt waits for its peers;
    * ``completion_grace_s``: the quiet moment after the last answer before the prompt ends
      (a reply split over several messages stays one turn).
    """

    peers: tuple[str, ...] = ()
    prompt_timeout_s: PositiveFloat = 300.0
    completion_grace_s: float = 0.25


class BandACPServerAdapter(RestBridgeAdapter[ACPSessionState, BandACPServerAdapterConfig]):
    """The Band side of ``ACPServer`` (see the module docstring)."""

    config_model = BandACPServerAdapterConfig
    history_converter_model = ACPServerHistoryConverter

    def _setup(self) -> None:
        self._sessions = SessionRooms()
        self._pending: dict[str, PendingACPPrompt] = {}  # room -> prompt
        self._lock = asyncio.Lock()
        self._acp_client: Any = None
        self._agent_id: str | None = None
        self._router: AgentRouter | None = None
        self._push_handler: ACPPushHandler | None = ACPPushHandler(self)
        self._scanned = False

    # -- wiring (ACPServer and the CLI) -----------------------------------------------------

    def set_acp_client(self, client: Any) -> None:
        self._acp_client = client

    def get_acp_client(self) -> Any:
        return self._acp_client

    def set_router(self, router: AgentRouter) -> None:
        self._router = router

    def set_push_handler(self, handler: ACPPushHandler) -> None:
        self._push_handler = handler

    def has_session(self, session_id: str) -> bool:
        return session_id in self._sessions.to_room

    def get_session_ids(self) -> list[str]:
        return list(self._sessions.to_room)

    def get_session_cwd(self, session_id: str) -> str:
        return self._sessions.cwd.get(session_id, ".")

    def get_session_for_room(self, room_id: str) -> str | None:
        return self._sessions.to_session.get(room_id)

    def get_room_for_session(self, session_id: str) -> str | None:
        return self._sessions.to_room.get(session_id)

    def set_session_mode(self, session_id: str, mode_id: str) -> None:
        self._sessions.modes[session_id] = mode_id

    def get_session_mode(self, session_id: str) -> str | None:
        return self._sessions.modes.get(session_id)

    def update_session_context(
        self, session_id: str, *, cwd: str | None = None, mcp_servers: list[Any] | None = None
    ) -> None:
        self._sessions.update_context(session_id, cwd=cwd, mcp_servers=mcp_servers)

    async def verify_credentials(self) -> bool:
        """Whether the agent's key is accepted (``GET /agent/me``)."""
        try:
            await self.rest.agent_api_identity.get_agent_me()
        except Exception:
            logger.warning("Credential check failed", exc_info=True)
            return False
        return True

    async def close(self) -> None:
        """Close the REST client this adapter built."""
        await self.close_rest()

    # -- lifecycle ---------------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self._agent_id = self.require_platform().agent_id

    async def on_cleanup(self, room_id: str) -> None:
        async with self._lock:
            self._settle(room_id, AgentFailure(PROVIDER, "The Band room closed before the reply."))
            session_id = self._sessions.to_session.pop(room_id, None)
            if session_id is not None:
                self._sessions.forget(session_id)

    async def cleanup_all(self) -> None:
        async with self._lock:
            for room_id in list(self._pending):
                self._settle(room_id, AgentFailure(PROVIDER, "The Band agent stopped."))
        await self.close()

    # -- sessions ----------------------------------------------------------------------------

    async def create_session(self, cwd: str = ".", mcp_servers: list[Any] | None = None) -> str:
        """A new room with the configured peers; its session id (posted as a ``task`` event)."""
        if len(self._sessions.to_room) >= MAX_SESSIONS:
            raise RuntimeError(f"At most {MAX_SESSIONS} ACP sessions at once")
        room_id = await open_room(self.rest, cwd, self.config.peers)
        session_id = uuid.uuid4().hex
        self._sessions.bind(session_id, room_id)
        self.update_session_context(session_id, cwd=cwd, mcp_servers=mcp_servers or [])
        metadata = {
            "acp_session_id": session_id,
            "acp_room_id": room_id,
            "acp_cwd": cwd,
            "acp_mcp_servers": self._sessions.mcp.get(session_id, []),
        }
        event = ChatEventRequest(
            content="ACP session context", message_type="task", metadata=metadata
        )
        await self.rest.agent_api_events.create_agent_chat_event(room_id, event=event)
        logger.info("ACP session %s is room %s", session_id, room_id)
        return session_id

    async def find_session(self, session_id: str) -> bool:
        """Whether a session is known, reading the agent's rooms once if it is not (a restart)."""
        if session_id not in self._sessions.to_room and not self._scanned:
            self._scanned = True
            async for items in own_room_histories(self.rest):
                self._sessions.rehydrate(ACPServerHistoryConverter().convert(items))
        return session_id in self._sessions.to_room

    # -- prompts -----------------------------------------------------------------------------

    async def handle_prompt(self, session_id: str, text: str) -> ACPStopReason | AgentFailure:
        """Post the editor's prompt in the session's room; wait until its peers answered."""
        room_id = self._sessions.to_room.get(session_id)
        if room_id is None:
            raise KeyError(f"Unknown ACP session: {session_id}")
        async with self._lock:
            if room_id in self._pending:
                raise ConcurrentPromptError("A prompt is already waiting in this session")
            pending = self._pending[room_id] = PendingACPPrompt(session_id)
        try:
            async with asyncio.timeout(self.config.prompt_timeout_s):
                await self._post_prompt(room_id, session_id, text, pending)
                await pending.done_event.wait()
        except TimeoutError:
            pending.finish(prompt_timeout_failure(self.config.prompt_timeout_s))
        except Exception as exc:
            logger.exception("ACP prompt in room %s failed", room_id)
            pending.finish(prompt_exception_failure(exc))
        finally:
            async with self._lock:
                if self._pending.get(room_id) is pending:
                    del self._pending[room_id]
            if pending.completion_task is not None:
                pending.completion_task.cancel()
        return pending.outcome or ACPStopReason.END_TURN

    async def _post_prompt(
        self, room_id: str, session_id: str, text: str, pending: PendingACPPrompt
    ) -> None:
        target: str | None = None
        if self._router is not None:
            text, target = self._router.resolve(text, self._sessions.modes.get(session_id))
        listed = await self.rest.agent_api_participants.list_agent_chat_participants(room_id)
        mentions = [
            ChatMessageRequestMentionsItem(id=p.id, name=p.name, handle=p.handle)
            for p in listed.data
            if p.id != self._agent_id and target in (None, p.name, p.handle, p.id)
        ]
        if not mentions:
            who = f"no peer named {target!r}" if target else "no peer"
            raise ValueError(f"This session's room has {who}: start band-acp with --peer")
        content = self._sessions.with_context(session_id, text)
        if not content.strip():
            raise ValueError("The prompt has no text")
        pending.waiting_for = {str(m.id) for m in mentions}
        await self.rest.agent_api_messages.create_agent_chat_message(
            room_id, message=ChatMessageRequest(content=content, mentions=mentions)
        )
        pending.posted = True

    def _rehydrate(self, history: ACPSessionState) -> None:
        self._sessions.rehydrate(history)

    async def _relay(self, msg: PlatformMessage, room_id: str) -> None:
        pending = self._pending.get(room_id)
        if pending is None or not pending.posted:
            if self._push_handler is not None and self._acp_client is not None:
                await self._push_handler.handle_push_event(msg, room_id)
            return
        await self._show(pending.session_id, msg)
        text = strip_leading_mentions(msg.content)
        token = approval_token(text) if msg.message_type == "text" else None
        if token is not None:
            await self._relay_approval(room_id, pending.session_id, token, text, msg)
        elif msg.message_type == "error":
            async with self._lock:
                self._settle(room_id, decode_failure(msg), expected=pending)
        elif msg.message_type == "text" and not is_approval_status(text):
            pending.waiting_for.discard(msg.sender_id)
            if not pending.waiting_for:
                pending.reply_started = True
                self._complete_soon(room_id, pending)

    async def _show(self, session_id: str, msg: PlatformMessage) -> None:
        update = EventConverter.convert(msg)
        if update is None or self._acp_client is None:
            return
        try:
            await self._acp_client.session_update(session_id=session_id, update=update)
        except Exception:
            logger.exception("ACP update for session %s failed", session_id)

    async def _relay_approval(
        self, room_id: str, session_id: str, token: str, text: str, msg: PlatformMessage
    ) -> None:
        command = "decline"
        if self._acp_client is not None:
            command = await ask_editor(self._acp_client, session_id, token, text)
        mention = ChatMessageRequestMentionsItem(id=msg.sender_id, name=msg.sender_name or "")
        answer = ChatMessageRequest(content=f"/{command} {token}", mentions=[mention])
        await self.rest.agent_api_messages.create_agent_chat_message(room_id, message=answer)

    def _complete_soon(self, room_id: str, pending: PendingACPPrompt) -> None:
        """End the prompt after a quiet moment (a later message restarts the wait)."""
        if pending.completion_task is not None:
            pending.completion_task.cancel()

        async def complete() -> None:
            await asyncio.sleep(self.config.completion_grace_s)
            async with self._lock:
                self._settle(room_id, ACPStopReason.END_TURN, expected=pending)

        pending.completion_task = asyncio.create_task(complete())

    async def cancel_prompt(self, session_id: str) -> None:
        """``session/cancel``: the waiting prompt ends ``cancelled``."""
        room_id = self._sessions.to_room.get(session_id)
        if room_id is not None:
            async with self._lock:
                self._settle(room_id, ACPStopReason.CANCELLED)

    def _settle(
        self,
        room_id: str,
        outcome: ACPStopReason | AgentFailure,
        *,
        expected: PendingACPPrompt | None = None,
    ) -> None:
        pending = self._pending.get(room_id)
        if pending is None or (expected is not None and pending is not expected):
            return
        del self._pending[room_id]
        pending.finish(outcome)
