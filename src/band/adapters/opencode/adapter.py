"""``OpencodeAdapter``: Band rooms on an OpenCode server (``opencode serve``), a session each.

The adapter connects to the server at ``base_url`` and reads its ``/event`` stream once; each
room gets its own OpenCode session, its id posted as a ``task`` event "OpenCode session"
(always: the resume state) and reused after a restart when the server still has it
(otherwise a new session starts with the room's history). Band's tools reach OpenCode as a
remote MCP server registered per room (``<mcp_server_name>_<room digest>``), visible only to
that room's prompts. Streamed parts become tool events and thoughts; permission asks are
relayed to the room; a turn that did not reply posts its final text
(``fallback_send_agent_text``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Sequence
from typing import Any, ClassVar, Unpack

from band.adapters._coding.approvals import ApprovalRelay, ApprovalRequest, Decision
from band.adapters._coding.band_tools import BandMcpServer, RoomBinding
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.supervisor import TransportClosed
from band.converters.opencode import SESSION_ID_METADATA_KEY
from band.core.delivery import relay_reply
from band.core.exceptions import BandConfigError, TurnResultAlreadyReported
from band.core.protocols import FAILURE_CODE_TIMEOUT
from band.core.types import Capability, Emit, FeatureKwargs
from band.runtime.custom_tools import CustomToolDef
from band_protocol import AgentFailure

from .client import OpencodeClient
from .config import INSTALL_COMMAND, OpencodeAdapterConfig
from .room import OpencodeRoom

__all__ = ["SESSION_KEY", "OpencodeAdapter"]

logger = logging.getLogger("band.adapters.opencode")
PROVIDER = "opencode"
SESSION_KEY = SESSION_ID_METADATA_KEY
_REPLIES = {Decision.ACCEPT: "once", Decision.ACCEPT_SESSION: "always", Decision.DECLINE: "reject"}


class OpencodeAdapter(CodingAgentAdapter[OpencodeRoom]):
    """Band rooms on ``opencode serve``: one OpenCode session per room."""

    PROVIDER = PROVIDER
    LABEL = "OpenCode server"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.TASK_EVENTS, Emit.USAGE}
    )
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: OpencodeAdapterConfig | None = None,
        *,
        history_converter: Any = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
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
            history_converter=history_converter,
            **features,
        )
        self.config = config
        self.mcp = BandMcpServer(lambda: (self.features.capabilities, self.additional_tools))
        self.client: OpencodeClient | None = None
        self.version = ""
        self._connecting = asyncio.Lock()
        self._by_session: dict[str, OpencodeRoom] = {}
        self._registered: dict[str, str] = {}

    # -- the server -----------------------------------------------------------------------------

    async def _connect(self) -> OpencodeClient:
        """The live connection to the server (a new one when its event stream ended)."""
        async with self._connecting:
            if self.client is not None and self.client.alive:
                return self.client
            if self.client is not None:
                await self.client.close()
            config = self.config
            client = OpencodeClient(config.base_url, config.directory, config.workspace)
            try:
                self.version = await client.health()
            except Exception as exc:
                await client.close()
                raise BandConfigError(
                    f"no OpenCode server answers at {config.base_url} ({exc}); start one "
                    f"with `opencode serve` (install: `{INSTALL_COMMAND}`) or fix base_url"
                ) from exc
            client.listen(self._on_event)
            self.client, self._registered = client, {}
            return client

    async def _on_event(self, event: dict[str, Any]) -> None:
        props = event.get("properties") or {}
        session = props.get("sessionID") or (props.get("info") or {}).get("sessionID")
        room = self._by_session.get(str(session)) if session else None
        if room is not None:
            room.events.put_nowait(event)

    def registration(self, room_id: str) -> str:
        """The MCP server name of a room's Band tools on the (shared) OpenCode server."""
        digest = hashlib.sha256(f"{self.agent_name}:{room_id}".encode()).hexdigest()[:10]
        return f"{self.config.mcp_server_name}_{digest}"

    async def _register(self, client: OpencodeClient, room_id: str) -> None:
        name = self.registration(room_id)
        if self._registered.get(room_id) == name:
            return
        status = await client.register_mcp(name, self.mcp.url(room_id))
        if status != "connected":
            raise TransportClosed(f"OpenCode could not reach Band's tools (MCP status {status!r})")
        self._registered[room_id] = name

    # -- lifecycle ------------------------------------------------------------------------------

    async def cleanup_all(self) -> None:
        await super().cleanup_all()
        if self.client is not None:
            await self.client.close()
            self.client = None
        await self.mcp.close()

    async def forget_room(self, room_id: str) -> None:
        self._by_session = {s: r for s, r in self._by_session.items() if r.room_id != room_id}
        self.mcp.bindings.pop(room_id, None)

    async def start_process(self, room_id: str, reporter: Reporter) -> OpencodeRoom:
        """The room's session on a live connection, its Band tools registered."""
        client = await self._connect()
        await self.mcp.start()
        known = self.known_sessions.get(room_id)
        if known is not None and await client.has_session(known):
            session, created = known, False
        else:
            title = f"{self.config.session_title_prefix} room {room_id[:8]}"
            session, created = await client.create_session(title), True
        room = OpencodeRoom(room_id, session, created, client)
        self._by_session[session] = room
        if self.known_sessions.get(room_id) != session:
            self.known_sessions[room_id] = session
            metadata = {
                SESSION_KEY: session,
                "opencode_mcp_server_name": self.registration(room_id),
                "opencode_room_id": room_id,
                "opencode_created_at": int(time.time()),
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
        room.begin()
        texts: dict[str, str] = {}
        try:
            # Registered once the room is bound: OpenCode lists the tools when it connects.
            await self._register(room.client, room.room_id)
            await room.client.prompt(room.session_id, self._payload(room, prompt))
            await self._follow(room, prompt, texts)
        finally:
            self.mcp.bindings.pop(room.room_id, None)
        await prompt.reporter.usage(room.usage)
        final = "\n\n".join(t.strip() for t in texts.values() if t.strip())
        fallback = self.config.fallback_send_agent_text
        if fallback and await relay_reply(prompt.tools, final, mentions=[prompt.msg.sender_id]):
            return
        prompt.reporter.hold_text(final)
        await prompt.reporter.finish_text()

    async def _follow(self, room: OpencodeRoom, prompt: Prompt, texts: dict[str, str]) -> None:
        """Report the session's events until it is idle (or failed, or out of time)."""
        deadline = time.monotonic() + self.config.turn_timeout_s
        while True:
            if not room.alive:
                raise TransportClosed(f"the OpenCode server went away ({room.exit_description})")
            waiting = time.monotonic() if self.relay.pending(room.room_id) else None
            try:
                event = await asyncio.wait_for(room.events.get(), 1.0)
            except TimeoutError:
                if waiting is not None:  # time waiting for the room does not count
                    deadline += time.monotonic() - waiting
                if time.monotonic() > deadline:
                    await self._timed_out(room, prompt)
                continue
            kind, props = event.get("type"), event.get("properties") or {}
            if kind == "session.idle":
                return
            if kind == "session.error":
                await self._failed(prompt, props.get("error") or {})
            elif kind == "message.updated":
                info = props.get("info") or {}
                if info.get("role") == "assistant":
                    room.assistant_messages.add(str(info.get("id")))
            elif kind == "message.part.updated":
                await self._on_part(room, prompt.reporter, props.get("part") or {}, texts)
            elif kind == "permission.asked":
                await self._on_permission(room, prompt, props)

    async def _on_part(
        self, room: OpencodeRoom, reporter: Reporter, part: dict[str, Any], texts: dict[str, str]
    ) -> None:
        kind = part.get("type")
        if kind == "text" and str(part.get("messageID")) in room.assistant_messages:
            texts[str(part.get("id"))] = str(part.get("text") or "")
        elif kind == "reasoning" and (part.get("time") or {}).get("end"):
            await reporter.thought(str(part.get("text") or ""))
        elif kind == "step-finish":
            room.add_tokens(part.get("tokens") or {})
        elif kind == "tool":
            await self._on_tool(room, reporter, part, texts)

    async def _on_tool(
        self, room: OpencodeRoom, reporter: Reporter, part: dict[str, Any], texts: dict[str, str]
    ) -> None:
        call, state = str(part.get("callID") or part.get("id")), part.get("state") or {}
        status = state.get("status")
        name = self._tool_name(room, str(part.get("tool") or "tool"))
        if status in ("running", "completed", "error") and call not in room.reported_calls:
            room.reported_calls.add(call)
            for key in list(texts):  # text before a tool call was commentary
                reporter.hold_text(texts.pop(key))
            await reporter.tool_call(name, dict(state.get("input") or {}), call)
        if status in ("completed", "error") and call not in room.finished_calls:
            room.finished_calls.add(call)
            output = state.get("output") if status == "completed" else state.get("error")
            await reporter.tool_result(name, output or "", call, is_error=status == "error")

    def _tool_name(self, room: OpencodeRoom, name: str) -> str:
        """Band's name of a Band tool (OpenCode shows it as ``<registration>_<tool>``)."""
        return name.removeprefix(f"{self.registration(room.room_id)}_")

    async def _on_permission(
        self, room: OpencodeRoom, prompt: Prompt, props: dict[str, Any]
    ) -> None:
        ask, kind = str(props.get("id")), str(props.get("permission") or "tool")
        if kind.startswith(f"{self.registration(room.room_id)}_"):
            await room.client.reply_permission(ask, "once")  # the room's own tools
            return
        command = (props.get("metadata") or {}).get("command")
        patterns = ", ".join(str(p) for p in props.get("patterns") or [])
        summary = str(command or patterns or kind)
        request = ApprovalRequest(kind, summary, f"{kind}:{summary}")
        decision = await self.relay.request(
            room.room_id, prompt.reporter, request, on_wait=prompt.turn.release
        )
        await room.client.reply_permission(ask, _REPLIES[decision])

    async def _failed(self, prompt: Prompt, error: dict[str, Any]) -> None:
        data = error.get("data") or {}
        detail = data.get("message") or error.get("message") or error.get("name") or "no detail"
        message = f"OpenCode turn failed: {detail}"
        await prompt.tools.send_failure(AgentFailure(PROVIDER, message))
        raise TurnResultAlreadyReported(message)

    async def _timed_out(self, room: OpencodeRoom, prompt: Prompt) -> None:
        await room.client.abort(room.session_id)
        limit = self.config.turn_timeout_s
        message = f"OpenCode did not finish within {limit:g} s; it was aborted."
        await prompt.tools.send_failure(AgentFailure(PROVIDER, message, FAILURE_CODE_TIMEOUT))
        raise TurnResultAlreadyReported(message)

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
