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
import contextlib
import logging
import uuid
from pathlib import PurePath
from typing import Any, Unpack

from pydantic import BaseModel, ConfigDict, PositiveFloat

from band.client.rest import AsyncRestClient
from band.converters.acp_server import ACPServerHistoryConverter
from band.core.protocols import AgentToolsProtocol
from band.core.types import FeatureKwargs, PlatformMessage
from band.integrations._bridge import RestBridgeAdapter
from band.integrations._rooms import all_peers, own_room_histories
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
    ChatRoomRequest,
    ParticipantRequest,
)
from band.runtime.formatters import strip_leading_mentions
from band_sdk_core import AgentFailure

from .approvals import approval_token, ask_editor, is_approval_status
from .event_converter import EventConverter
from .push_handler import ACPPushHandler
from .router import AgentRouter
from .types import ACPSessionState, ACPStopReason, ConcurrentPromptError, PendingACPPrompt

__all__ = ["BandACPServerAdapter", "BandACPServerAdapterConfig"]

logger = logging.getLogger("band.integrations.acp.server")
PROVIDER = ACPFailureProvider.BAND
MAX_SESSIONS = 100


class BandACPServerAdapterConfig(BaseModel):
    """Settings of the ACP server (frozen, unknown fields rejected).

    * ``peers``: handles (or ids) of the Band agents and people added to every new session's
      room: whom the editor talks to;
    * ``prompt_timeout_s``: how long a prompt waits for its peers;
    * ``completion_grace_s``: the quiet moment after the last answer before the prompt ends
      (a reply split over several messages stays one turn).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    peers: tuple[str, ...] = ()
    prompt_timeout_s: PositiveFloat = 300.0
    completion_grace_s: float = 0.25


class BandACPServerAdapter(RestBridgeAdapter[ACPSessionState]):
    """The Band side of ``ACPServer`` (see the module docstring)."""

    def __init__(
        self,
        config: BandACPServerAdapterConfig | None = None,
        *,
        rest_client: AsyncRestClient | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            rest_client=rest_client, history_converter=ACPServerHistoryConverter(), **features
        )
        self.config = config or BandACPServerAdapterConfig()
        self._session_to_room: dict[str, str] = {}
        self._room_to_session: dict[str, str] = {}
        self._session_modes: dict[str, str] = {}
        self._session_cwd: dict[str, str] = {}
        self._session_mcp: dict[str, list[dict[str, Any]]] = {}
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
        return session_id in self._session_to_room

    def get_session_ids(self) -> list[str]:
        return list(self._session_to_room)

    def get_session_cwd(self, session_id: str) -> str:
        return self._session_cwd.get(session_id, ".")

    def get_session_for_room(self, room_id: str) -> str | None:
        return self._room_to_session.get(room_id)

    def get_room_for_session(self, session_id: str) -> str | None:
        return self._session_to_room.get(session_id)

    def set_session_mode(self, session_id: str, mode_id: str) -> None:
        self._session_modes[session_id] = mode_id

    def get_session_mode(self, session_id: str) -> str | None:
        return self._session_modes.get(session_id)

    def update_session_context(
        self, session_id: str, *, cwd: str | None = None, mcp_servers: list[Any] | None = None
    ) -> None:
        if cwd:
            self._session_cwd[session_id] = cwd
        if mcp_servers is not None:
            self._session_mcp[session_id] = _json_servers(mcp_servers)

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
            session_id = self._room_to_session.pop(room_id, None)
            if session_id is not None:
                self._forget_session(session_id)

    async def cleanup_all(self) -> None:
        async with self._lock:
            for room_id in list(self._pending):
                self._settle(room_id, AgentFailure(PROVIDER, "The Band agent stopped."))
        await self.close()

    # -- sessions ----------------------------------------------------------------------------

    async def create_session(self, cwd: str = ".", mcp_servers: list[Any] | None = None) -> str:
        """A new room with the configured peers; its session id (posted as a ``task`` event)."""
        if len(self._session_to_room) >= MAX_SESSIONS:
            raise RuntimeError(f"At most {MAX_SESSIONS} ACP sessions at once")
        title = f"Editor: {PurePath(cwd).name or cwd}"
        created = await self.rest.agent_api_chats.create_agent_chat(
            chat=ChatRoomRequest(title=title)
        )
        room_id = str(created.data.id)
        for peer in self.config.peers:
            participant = ParticipantRequest(
                participant_id=await self._peer_id(peer), role="member"
            )
            await self.rest.agent_api_participants.add_agent_chat_participant(
                room_id, participant=participant
            )
        session_id = uuid.uuid4().hex
        self._bind(session_id, room_id)
        self.update_session_context(session_id, cwd=cwd, mcp_servers=mcp_servers or [])
        metadata = {
            "acp_session_id": session_id,
            "acp_room_id": room_id,
            "acp_cwd": cwd,
            "acp_mcp_servers": self._session_mcp.get(session_id, []),
        }
        event = ChatEventRequest(
            content="ACP session context", message_type="task", metadata=metadata
        )
        await self.rest.agent_api_events.create_agent_chat_event(room_id, event=event)
        logger.info("ACP session %s is room %s", session_id, room_id)
        return session_id

    async def find_session(self, session_id: str) -> bool:
        """Whether a session is known, reading the agent's rooms once if it is not (a restart)."""
        if session_id not in self._session_to_room and not self._scanned:
            self._scanned = True
            async for items in own_room_histories(self.rest):
                self._rehydrate(ACPServerHistoryConverter().convert(items))
        return session_id in self._session_to_room

    async def _peer_id(self, peer: str) -> str:
        """A configured peer's id (given as its id, handle or name)."""
        for candidate in await all_peers(self.rest):
            if peer in (candidate.id, candidate.handle, candidate.name):
                return str(candidate.id)
        raise ValueError(f"No Band peer named {peer!r} (a handle, name or id)")

    # -- prompts -----------------------------------------------------------------------------

    async def handle_prompt(self, session_id: str, text: str) -> ACPStopReason | AgentFailure:
        """Post the editor's prompt in the session's room; wait until its peers answered."""
        room_id = self._session_to_room.get(session_id)
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
            text, target = self._router.resolve(text, self._session_modes.get(session_id))
        listed = await self.rest.agent_api_participants.list_agent_chat_participants(room_id)
        mentions = [
            ChatMessageRequestMentionsItem(id=p.id, name=p.name, handle=p.handle)
            for p in listed.data
            if p.id != self._agent_id and target in (None, p.name, p.handle, p.id)
        ]
        if not mentions:
            who = f"no peer named {target!r}" if target else "no peer"
            raise ValueError(f"This session's room has {who}: start band-acp with --peer")
        content = self._with_context(session_id, text)
        if not content.strip():
            raise ValueError("The prompt has no text")
        pending.waiting_for = {str(m.id) for m in mentions}
        await self.rest.agent_api_messages.create_agent_chat_message(
            room_id, message=ChatMessageRequest(content=content, mentions=mentions)
        )
        pending.posted = True

    def _with_context(self, session_id: str, text: str) -> str:
        """The editor's folder and MCP servers, for peers that work in it."""
        cwd, servers = self._session_cwd.get(session_id), self._session_mcp.get(session_id)
        if not cwd and not servers:
            return text
        lines = ["[ACP Session Context]", f"Editor cwd: {cwd or '.'}"]
        for server in servers or []:
            where = server.get("url") or server.get("command") or ""
            lines.append(f"Editor MCP server: {server.get('name', 'unnamed')} {where}".rstrip())
        return "\n".join([*lines, "", text])

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: ACPSessionState,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if is_session_bootstrap and history:
            self._rehydrate(history)
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
        room_id = self._session_to_room.get(session_id)
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

    # -- state -------------------------------------------------------------------------------

    def _bind(self, session_id: str, room_id: str) -> None:
        self._session_to_room[session_id] = room_id
        self._room_to_session[room_id] = session_id

    def _forget_session(self, session_id: str) -> None:
        self._session_to_room.pop(session_id, None)
        self._session_modes.pop(session_id, None)
        self._session_cwd.pop(session_id, None)
        self._session_mcp.pop(session_id, None)

    def _rehydrate(self, history: ACPSessionState) -> None:
        for session_id, room_id in history.session_to_room.items():
            if session_id not in self._session_to_room:
                self._bind(session_id, room_id)
            with contextlib.suppress(KeyError):
                self._session_cwd.setdefault(session_id, history.session_cwd[session_id])
            if session_id in history.session_mcp_servers:
                self._session_mcp.setdefault(session_id, history.session_mcp_servers[session_id])


def _json_servers(servers: list[Any]) -> list[dict[str, Any]]:
    """Editor MCP server configs as plain JSON objects (for the history event)."""
    plain: list[dict[str, Any]] = []
    for server in servers:
        value = server.model_dump(mode="json") if hasattr(server, "model_dump") else server
        if isinstance(value, dict):
            plain.append({str(k): v for k, v in value.items()})
    return plain
