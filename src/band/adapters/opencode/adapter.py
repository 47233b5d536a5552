"""``OpencodeAdapter``: Band rooms on an OpenCode server (``opencode serve``), a session each.

How it works: docs/internals/sdk.md, "OpenCode adapter".

Band's tools reach OpenCode as a remote MCP server registered per room.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Unpack

from band.adapters._coding.approvals import ApprovalRelay, ApprovalRequest, Decision
from band.adapters._coding.band_tools import RoomBinding
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.mcp_adapter import McpCodingAgentAdapter
from band.adapters._coding.supervisor import TransportClosed
from band.converters.opencode import SESSION_ID_METADATA_KEY, OpencodeHistoryConverter
from band.core.delivery import relay_reply
from band.core.exceptions import BandConfigError
from band.core.protocols import FAILURE_CODE_TIMEOUT
from band.core.types import Emit, FeatureKwargs, PlatformMessage
from band.integrations.opencode import (
    ApprovalReply,
    OpencodeClientProtocol,
    OpencodePermissionRequest,
    PermissionAskedEvent,
    QuestionAskedEvent,
    SessionErrorEvent,
    SessionIdleEvent,
    describe_error,
    parse_opencode_event,
)
from band.runtime.custom_tools import CustomToolDef
from band_protocol import AgentFailure

from .approvals import RoomApprovals
from .client import OpencodeConnection, has_session, http_client
from .config import INSTALL_COMMAND, OpencodeAdapterConfig
from .room import McpRegistration, OpencodeRoom, RoomState, TurnState, room_ports
from .turn_events import record_event

__all__ = ["SESSION_KEY", "McpRegistration", "OpencodeAdapter", "RoomState", "TurnState"]

logger = logging.getLogger("band.adapters.opencode")
PROVIDER = "opencode"
SESSION_KEY = SESSION_ID_METADATA_KEY
_REPLIES: dict[Decision, ApprovalReply] = {
    Decision.ACCEPT: "once",
    Decision.ACCEPT_SESSION: "always",
    Decision.DECLINE: "reject",
}


class OpencodeAdapter(McpCodingAgentAdapter[OpencodeRoom]):
    """Band rooms on ``opencode serve``: one OpenCode session per room."""

    PROVIDER = PROVIDER
    LABEL = "OpenCode server"
    SUPPORTED_EMIT = CodingAgentAdapter.SUPPORTED_EMIT | {Emit.TASK_EVENTS}

    def __init__(
        self,
        config: OpencodeAdapterConfig | None = None,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        history_converter: Any = None,
        client_factory: Callable[[OpencodeAdapterConfig], OpencodeClientProtocol] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or OpencodeAdapterConfig()
        super().__init__(
            relay=ApprovalRelay(
                config.approval_mode,
                wait_timeout_s=config.approval_wait_timeout_s,
                timeout_decision=config.approval_timeout_decision,
            ),
            session_key=SESSION_KEY,
            custom_section=config.custom_section,
            system_prompt=config.system_prompt,
            include_base_instructions=config.include_base_instructions,
            additional_tools=additional_tools or (),
            history_converter=history_converter or OpencodeHistoryConverter(),
            **features,
        )
        self.config = config
        self.client_factory = client_factory or http_client
        self.client: OpencodeConnection | None = None
        self.version = ""
        self._connecting = asyncio.Lock()
        self._by_session: dict[str, OpencodeRoom] = {}
        self._registered: dict[str, McpRegistration] = {}
        self.rooms: dict[str, RoomState] = {}

    # -- the server -----------------------------------------------------------------------------

    async def _connect(self) -> OpencodeConnection:
        """The live connection to the server (a new one when its event stream ended)."""
        async with self._connecting:
            if self.client is not None and self.client.alive:
                return self.client
            if self.client is not None:
                await self.client.close()
            config = self.config
            connection = OpencodeConnection(self.client_factory(config), config.base_url)
            try:
                await connection.client.health()
            except Exception as exc:
                await connection.close()
                raise BandConfigError(
                    f"no OpenCode server answers at {config.base_url} ({exc}); start one "
                    f"with `opencode serve` (install: `{INSTALL_COMMAND}`) or fix base_url"
                ) from exc
            self.version = str(getattr(connection.client, "version", "") or "")
            connection.listen(self._on_event)
            self.client, self._registered = connection, {}
            return connection

    async def _on_event(self, raw: dict[str, Any]) -> None:
        """Hand a server event to the room whose session it is about."""
        event = parse_opencode_event(raw)
        session = event.session_id or (raw.get("properties") or {}).get("sessionID")
        room = self._by_session.get(str(session)) if session else None
        if room is not None:
            room.events.put_nowait(event)

    def registration(self, room_id: str) -> str:
        """The MCP server name of a room's Band tools on the (shared) OpenCode server."""
        digest = hashlib.sha256(f"{self.agent_name}:{room_id}".encode()).hexdigest()[:10]
        return f"{self.config.mcp_server_name}_{digest}"

    async def _register(self, client: OpencodeClientProtocol, room_id: str) -> None:
        name, url = self.registration(room_id), self.mcp.url(room_id)
        wanted = McpRegistration(client, url)
        if self._registered.get(room_id) == wanted:
            return
        answer = await client.register_mcp_server(name=name, url=url)
        status = (answer.get(name) or {}).get("status")
        if status != "connected":
            raise TransportClosed(f"OpenCode could not reach Band's tools (MCP status {status!r})")
        self._registered[room_id] = wanted

    # -- lifecycle ------------------------------------------------------------------------------

    async def cleanup_all(self) -> None:
        await super().cleanup_all()
        if self.client is not None:
            await self.client.close()
            self.client = None

    async def forget_room(self, room_id: str) -> None:
        self._by_session = {s: r for s, r in self._by_session.items() if r.room_id != room_id}
        state = self.rooms.pop(room_id, None)
        if state is not None:
            await state.approvals.abandon()

    def room_state(self, room_id: str) -> RoomState:
        """The room's record, its open asks (``approvals``) acting on its current turn."""
        state = self.rooms.get(room_id)
        if state is None:
            state = self.rooms[room_id] = RoomState(room_id)
            state.approvals = RoomApprovals(
                self.config,
                room_ports(state, self._is_own_tool),
                known_permission_ids=state.known_permission_ids,
                known_question_ids=state.known_question_ids,
            )
        return state

    def _is_own_tool(self, permission: str) -> bool:
        return any(permission.startswith(f"{self.registration(r)}_") for r in self.rooms)

    async def take_reply(self, msg: PlatformMessage, room_id: str) -> bool:
        """A message answering an open question of OpenCode's goes to it, not as a prompt."""
        return await self.room_state(room_id).approvals.try_handle_reply(msg.content, msg.sender_id)

    async def start_process(self, room_id: str, reporter: Reporter) -> OpencodeRoom:
        """The room's session on a live connection, its Band tools registered."""
        connection = await self._connect()
        await self.mcp.start()
        state, known = self.room_state(room_id), self.known_sessions.get(room_id)
        if known is not None and await has_session(connection.client, known):
            session, created = known, False
        else:
            title = f"{self.config.session_title_prefix} room {room_id[:8]}"
            made = await connection.client.create_session(title=title)
            session, created = str(made["id"]), True
        room = OpencodeRoom(state, session, created, connection)
        state.session_id, state.tools = session, reporter.tools
        self._by_session[session] = room
        if state.persisted_session_id != session:
            self.known_sessions[room_id] = state.persisted_session_id = session
            metadata = {
                SESSION_KEY: session,
                "opencode_mcp_server_name": self.registration(room_id),
                "opencode_room_id": room_id,
                "opencode_created_at": datetime.now(UTC).isoformat(),
            }
            await reporter.task("OpenCode session", metadata, always=True)
        return room

    # -- one prompt -----------------------------------------------------------------------------

    def _payload(self, room: OpencodeRoom, prompt: Prompt) -> dict[str, Any]:
        texts = [*prompt.updates, prompt.msg.format_for_llm()]
        if room.created:
            block = history_block(
                self.transcripts.pop(room.room_id, ()), self.config.max_history_messages
            )
            if block:
                texts.insert(0, block)
            room.created = False
        msg, config = prompt.msg, self.config
        system = (
            f"{self.system_prompt}\n\n## Room Context\nReply in the room with the "
            "band_send_message tool of your Band MCP server, or band_no_reply when nothing "
            f"needs saying. This request is from {msg.sender_name or msg.sender_type} "
            f"(id {msg.sender_id})."
        ).strip()
        own = self.registration(room.room_id)
        payload: dict[str, Any] = {
            "parts": [{"type": "text", "text": "\n\n".join(t for t in texts if t.strip())}],
            "system": system,
            # OpenCode applies the last matching rule: hide other rooms' Band tools.
            "tools": {f"{config.mcp_server_name}_*": False, f"{own}_*": True},
        }
        if config.provider_id and config.model_id:
            payload["model"] = {"providerID": config.provider_id, "modelID": config.model_id}
        for key in ("agent", "variant"):
            if getattr(config, key):
                payload[key] = getattr(config, key)
        return payload

    async def run_prompt(self, room: OpencodeRoom, prompt: Prompt) -> None:
        self.mcp.bindings[room.room_id] = RoomBinding(prompt.tools)
        room.drain()
        loop = asyncio.get_running_loop()
        turn = TurnState(
            room.session_id,
            room.client,
            prompt.tools,
            loop.create_future(),
            loop.create_future(),
            pending_mentions=[{"id": prompt.msg.sender_id}] if prompt.msg.sender_id else [],
        )
        room.state.turn, room.state.tools = turn, prompt.tools
        self._bind_turn(room.state, prompt, turn)
        try:
            # Registered once the room is bound: OpenCode lists the tools when it connects.
            await self._register(room.client, room.room_id)
            payload = self._payload(room, prompt)
            await room.client.prompt_async(room.session_id, **payload)
            await self._follow(room, prompt, turn)
        finally:
            self.mcp.bindings.pop(room.room_id, None)
            room.state.approvals.cancel()
            turn.end()
        await prompt.reporter.usage(turn.usage)
        final = "\n\n".join(t.strip() for t in turn.text_parts.values() if t.strip())
        fallback = self.config.fallback_send_agent_text
        if fallback and await relay_reply(prompt.tools, final, mentions=[prompt.msg.sender_id]):
            return
        prompt.reporter.hold_text(final)
        await prompt.reporter.finish_text()

    def _bind_turn(self, state: RoomState, prompt: Prompt, turn: TurnState) -> None:
        """What the room's open asks do to this turn: detach it, fail it."""

        def release() -> None:
            turn.release()
            prompt.turn.release()

        def fail(message: str) -> None:
            turn.last_error_message = message

        async def decide(ask: OpencodePermissionRequest) -> ApprovalReply:
            summary = str(ask.metadata.get("command") or ", ".join(ask.patterns) or ask.permission)
            request = ApprovalRequest(ask.permission, summary, f"{ask.permission}:{summary}")
            decision = await self.relay.request(
                state.room_id, prompt.reporter, request, on_wait=release
            )
            return _REPLIES[decision]

        state.approvals.ports.release_turn_wait = release
        state.approvals.ports.fail_turn = fail
        state.approvals.decide = decide

    async def _follow(self, room: OpencodeRoom, prompt: Prompt, turn: TurnState) -> None:
        """Report the session's events until it is idle (or failed, or out of time)."""
        approvals = room.state.approvals
        deadline = time.monotonic() + self.config.turn_timeout_s
        while True:
            if not room.alive:
                raise TransportClosed(f"the OpenCode server went away ({room.exit_description})")
            if turn.last_error_message is not None:
                await self.fail(prompt.tools, turn.last_error_message)
            waiting = self.relay.pending(room.room_id) or approvals.awaiting_human()
            since = time.monotonic()
            try:
                event = await asyncio.wait_for(room.events.get(), 1.0)
            except TimeoutError:
                if waiting:  # time waiting for the room does not count
                    deadline += time.monotonic() - since
                if time.monotonic() > deadline:
                    await self._timed_out(room, prompt)
                continue
            if isinstance(event, SessionIdleEvent):
                if turn.last_error_message is not None:
                    await self.fail(prompt.tools, turn.last_error_message)
                return
            if isinstance(event, SessionErrorEvent):
                error = event.properties.error
                detail = (error.data.get("message") if error else None) or describe_error(error)
                await self.fail(prompt.tools, f"OpenCode turn failed: {detail}")
            elif isinstance(event, PermissionAskedEvent):
                await approvals.on_permission_asked(event.properties)
            elif isinstance(event, QuestionAskedEvent):
                await approvals.on_question_asked(event.properties)
            else:
                await record_event(event, turn, prompt.reporter, self.registration(room.room_id))

    async def _timed_out(self, room: OpencodeRoom, prompt: Prompt) -> None:
        with contextlib.suppress(Exception):
            await room.client.abort_session(room.session_id)
        limit = self.config.turn_timeout_s
        message = f"OpenCode did not finish within {limit:g} s; it was aborted."
        await self.fail(prompt.tools, AgentFailure(PROVIDER, message, FAILURE_CODE_TIMEOUT))

    # -- room commands --------------------------------------------------------------------------

    def status_lines(self, room_id: str) -> list[str]:
        connected = self.client is not None and self.client.alive
        server = f"OpenCode server {self.config.base_url}" + (
            f" (version {self.version}): connected." if connected else ": not connected."
        )
        session = self.known_sessions.get(room_id)
        model = (
            f"`{self.config.provider_id}/{self.config.model_id}`"
            if self.config.model_id
            else "the server's default"
        )
        return [
            server,
            f"Session: `{session}`." if session else "Session: none yet.",
            f"Model: {model}.",
        ]
