"""``ACPClientAdapter``: any Agent Client Protocol agent, one process and session per room.

The session id is posted after every clean prompt as a ``task`` event "ACP client session"
(always: it is the resume state); a new process loads it (``session/load``, when the agent
advertises ``loadSession``), else a new session starts and the room's history is replayed.
Band's tools reach the agent through the loopback MCP server ``band``, bound to the room.
Each new or restored session gets the configured model and reasoning effort (or what
``resolve_session_config`` picks); ``/model`` switches a room's live session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

from band.adapters._coding.approvals import ApprovalRelay
from band.adapters._coding.band_tools import SERVER_NAME, RoomBinding
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.mcp_adapter import McpCodingAgentAdapter
from band.converters.acp_client import SESSION_ID_METADATA_KEY
from band.core.exceptions import BandConfigError
from band.core.protocols import FAILURE_CODE_TIMEOUT
from band.core.types import Emit, FeatureKwargs, TurnUsage
from band.integrations.acp.client_types import RoomSession
from band.integrations.acp.permissions import ElicitationHandler
from band.integrations.acp.room_emitter import RoomTurnEmitter
from band.integrations.acp.session_config import CONFIG_FAILURE_PREFIX
from band.runtime.custom_tools import CustomToolDef, get_custom_tool_name
from band.runtime.tools.names import ALL_TOOL_NAMES
from band.workspaces import WorkspaceResolver, workspace_resolver_for
from band_protocol import AgentFailure

from . import session_config
from ._types import (
    ACPTurn,
    ACPTurnTimeoutError,
    SessionCloseReason,
    SessionMcpServers,
    new_message_marker,
)
from .client import ACPClientProfile, PermissionResolver, RoomClient, TurnEmitter
from .config import ACPClientAdapterConfig
from .process import INSTALL_HINT, ACPProcess, require_acp
from .session_config import EFFORT, MODEL, ACPConfigError, ACPConfigRequest, SessionConfigResolver

__all__ = ["INSTALL_HINT", "ACPClientAdapter", "ACPProcess"]

logger = logging.getLogger("band.adapters.acp")
SESSION_KEY = SESSION_ID_METADATA_KEY
SESSION_CLOSE_TIMEOUT_S = 5.0


class ACPClientAdapter(McpCodingAgentAdapter[ACPProcess]):
    """Band rooms on an ACP agent started over stdio, one process per room."""

    PROVIDER = "acp"
    LABEL = "ACP agent"
    SUPPORTED_EMIT = CodingAgentAdapter.SUPPORTED_EMIT | {Emit.TASK_EVENTS}

    def __init__(
        self,
        config: ACPClientAdapterConfig,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        history_converter: Any = None,
        workspace_for_room: WorkspaceResolver | None = None,
        profile: ACPClientProfile | None = None,
        resolve_session_config: SessionConfigResolver | None = None,
        resolve_permission: PermissionResolver | None = None,
        client_capabilities: Any = None,
        spawn_process: Callable[..., Any] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        if spawn_process is not None:
            raise ValueError("custom ACP transports cannot guarantee room process isolation")
        if resolve_session_config is not None and (
            self._session_model(config) or config.reasoning_effort
        ):
            raise ValueError(
                "set either model/reasoning_effort or resolve_session_config, not both"
            )
        super().__init__(
            relay=self._approval_relay(config),
            session_key=SESSION_KEY,
            custom_section=config.custom_section,
            system_prompt=config.system_prompt,
            additional_tools=additional_tools or (),
            history_converter=history_converter,
            start_timeout_s=config.retention.transition_timeout_s,
            workspace_for_room=workspace_resolver_for(config.cwd, workspace_for_room),
            **features,
        )
        self.config = config
        self.profile = profile
        self.resolve_session_config = resolve_session_config
        self.resolve_permission = resolve_permission
        self.client_capabilities = client_capabilities
        self._sessions: dict[str, str] = {}
        self._selections: dict[str, dict[str, str]] = {}

    @staticmethod
    def _approval_relay(config: ACPClientAdapterConfig) -> ApprovalRelay:
        """How the room decides permission requests (``approval_mode``)."""
        return ApprovalRelay.from_config(config)

    @staticmethod
    def _session_model(config: ACPClientAdapterConfig) -> str | None:
        """The model to select in each session's catalog (a profile may launch with it)."""
        return config.model

    def room_client(self, room_id: str) -> RoomClient:
        """The ACP client of a room's agent process."""
        return RoomClient(self, room_id)

    @property
    def own_tool_names(self) -> frozenset[str]:
        """Band's tools and the custom tools: the names agents' spellings are read back to."""
        custom = {get_custom_tool_name(model) for model, _ in self.additional_tools}
        return frozenset(ALL_TOOL_NAMES) | custom

    def _spawn_command(self, workspace: str) -> list[str]:
        """The agent's argv for a room's workspace."""
        return list(self.config.command)

    def _spawn_cwd(self, workspace: str) -> str | None:
        """The directory the agent process starts in (None: ours)."""
        return workspace

    def _credential_env(self) -> dict[str, str]:
        """Environment a profile derives from its credentials (``env`` wins over it)."""
        return {}

    def _elicitation_handler(
        self, client: RoomClient, emitter: RoomTurnEmitter, session_id: str
    ) -> ElicitationHandler | None:
        """A turn's elicitation handler (None: elicitations are declined)."""
        return None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        require_acp()
        await super().on_started(agent_name, agent_description)

    async def start_process(self, room_id: str, reporter: Reporter) -> ACPProcess:
        if self.config.inject_band_tools:
            await self.mcp.start()
        workspace = self.room_folder(room_id)
        proc = ACPProcess(room_id, workspace, lambda: self.room_client(room_id))
        env = {**self._credential_env(), **(self.config.env or {})}
        try:
            await proc.start(
                self.config,
                self.client_capabilities,
                command=self._spawn_command(str(workspace)),
                cwd=self._spawn_cwd(str(workspace)),
                env=env,
            )
        except BaseException:
            await proc.close()
            raise
        return proc

    async def forget_room(self, room_id: str) -> None:
        self._sessions.pop(room_id, None)
        self._selections.pop(room_id, None)

    def status_lines(self, room_id: str) -> list[str]:
        proc = self.processes.current(room_id)
        session = self._sessions.get(room_id)
        lines = [
            f"ACP agent `{' '.join(self.config.command)}`: {self.processes.running(room_id)}.",
            f"Session: `{session}`." if session else "Session: none yet.",
        ]
        if proc is not None and session_config.select(proc.config_options, MODEL) is not None:
            lines.append(session_config.describe(proc.config_options))
        return lines

    # -- model selection ------------------------------------------------------------------------

    @property
    def model_selection(self) -> Mapping[str, Any]:
        model = self._session_model(self.config)
        wanted = {"model": model, "reasoning_effort": self.config.reasoning_effort}
        return {k: v for k, v in wanted.items() if v is not None}

    def _wanted(self, room_id: str) -> dict[str, str | None]:
        chosen = {MODEL: self._session_model(self.config), EFFORT: self.config.reasoning_effort}
        return {**chosen, **self._selections.get(room_id, {})}

    async def apply_model_selection(self, selection: Mapping[str, Any], *, room_id: str) -> None:
        """Switch ``room_id``'s live session (``{"model": ..., "reasoning_effort": ...}``);
        later sessions of the room start there. ACPConfigError names what is offered."""
        if self.resolve_session_config is not None:
            raise BandConfigError(
                "a runtime model switch cannot be combined with resolve_session_config"
            )
        given = {MODEL: selection.get("model"), EFFORT: selection.get("reasoning_effort")}
        wanted = {k: str(v) for k, v in given.items() if v is not None}
        if not wanted:
            return
        proc = self.processes.current(room_id)
        if proc is None or not proc.alive or proc.session_id is None:
            raise ACPConfigError(
                session_id="",
                option_id=MODEL,
                selected_value=str(wanted.get(MODEL, "")),
                message=f"room {room_id} has no live ACP session to switch",
            )
        proc.config_options = await session_config.apply(
            proc.conn, proc.session_id, proc.config_options, dict(wanted)
        )
        self._selections.setdefault(room_id, {}).update(wanted)

    async def model_command(self, room_id: str, args: tuple[str, ...]) -> str:
        proc = self.processes.current(room_id)
        if proc is None or not proc.alive or proc.session_id is None:
            return "The ACP agent has no session in this room yet; mention me once, then ask again."
        if not args or args[0].lower() in ("list", "ls"):
            return session_config.describe(proc.config_options)
        try:
            await self.apply_model_selection({"model": args[0]}, room_id=room_id)
        except BandConfigError as exc:
            return f"Could not switch the model: {exc}."
        return f"Model in this room is now `{args[0]}`."

    async def _configure(self, proc: ACPProcess, room_id: str) -> None:
        """Apply the wanted model/effort (or the resolver's picks) to a fresh session."""
        assert proc.session_id is not None  # nosec B101 # narrows for mypy: a started process has a session
        try:
            if self.resolve_session_config is not None:
                request = ACPConfigRequest(room_id, proc.session_id, tuple(proc.config_options))
                picked = await self.resolve_session_config(request)
                if picked is not None:
                    proc.config_options = await session_config.set_options(
                        proc.conn, proc.session_id, proc.config_options, picked
                    )
            else:
                proc.config_options = await session_config.apply(
                    proc.conn, proc.session_id, proc.config_options, self._wanted(room_id)
                )
        except ACPConfigError:
            await self._close_session(proc, SessionCloseReason.UNCONFIGURED)  # next message retries
            raise

    async def _close_session(self, proc: ACPProcess, reason: SessionCloseReason) -> None:
        """Drop the room's session from its process (closed on the agent, best effort)."""
        session_id, proc.session = proc.session_id, None
        if session_id is None:
            return
        logger.info("Room %s: closing ACP session %s (%s)", proc.room_id, session_id, reason)
        try:
            await proc.call(proc.conn.close_session(session_id), SESSION_CLOSE_TIMEOUT_S)
        except Exception as exc:
            logger.info("Room %s: closing session %s failed: %s", proc.room_id, session_id, exc)

    # -- one prompt -----------------------------------------------------------------------------

    def _mcp_servers(self, room_id: str) -> SessionMcpServers:
        from acp.schema import HttpMcpServer, McpServerStdio

        servers: list[object] = []
        url = self.mcp.url(room_id) if self.config.inject_band_tools else None
        if url is not None:
            servers.append(HttpMcpServer(type="http", name=SERVER_NAME, url=url, headers=[]))
        for raw in self.config.mcp_servers:
            model = HttpMcpServer if raw.get("type") == "http" else McpServerStdio
            servers.append(model.model_validate(raw))
        return SessionMcpServers(servers, url)

    async def _ensure_session(self, proc: ACPProcess, prompt: Prompt) -> list[str]:
        """Reuse, load or create the room's session; the context it still needs first."""
        wanted = self._mcp_servers(prompt.room_id)
        if proc.session is None or proc.session.band_url != wanted.band_url:
            await self._close_session(proc, SessionCloseReason.STALE_BAND_MCP_URL)
            runtime, cwd, servers = proc.conn, str(proc.workspace), wanted.servers
            known = self._sessions.get(prompt.room_id) or prompt.history.session_id
            if known is not None and proc.can_load:
                load = runtime.load_session_response(cwd=cwd, session_id=known, mcp_servers=servers)
                if await proc.call(load) is not None:  # it has its context already
                    proc.session = RoomSession(known, wanted.band_url, False, False)
            if proc.session is None:
                created = await proc.call(
                    runtime.create_session_response(cwd=cwd, mcp_servers=servers)
                )
                proc.session = RoomSession(str(created.session_id), wanted.band_url)
            await self._configure(proc, prompt.room_id)
        session = proc.session
        assert session is not None  # nosec B101 # narrows for mypy: set above or kept
        context = [self._system_context(prompt)] if session.bootstrap_pending else []
        block = history_block(prompt.history.transcript, self.config.max_history_messages)
        if session.replay_pending and block:
            marker = new_message_marker()  # where the replay ends and the live message starts
            context += [f"{block}\nAnswer only the new message, after {marker}.", marker]
        return context

    def _system_context(self, prompt: Prompt) -> str:
        msg = prompt.msg
        who = f"{msg.sender_name or msg.sender_type} (id {msg.sender_id})"
        room = f"\n\nRoom id: {prompt.room_id}" if not self.config.inject_band_tools else ""
        return (
            f"[System Context]\n{self.system_prompt}\n\n## Room Context\n\nReply in the room "
            "with the band_send_message tool (from the `band` MCP server), or call "
            f"band_no_reply when nothing needs saying. This request is from {who}.{room}"
        )

    async def run_prompt(self, proc: ACPProcess, prompt: Prompt) -> None:
        from acp import text_block

        self.mcp.bindings[prompt.room_id] = RoomBinding(prompt.tools)
        client: RoomClient = proc.client
        client.prompt = prompt
        try:
            try:
                extra = await self._ensure_session(proc, prompt)
            except ACPConfigError as exc:
                await self.fail(prompt.tools, f"{CONFIG_FAILURE_PREFIX}{exc}", exc)
            assert proc.session_id is not None  # nosec B101 # narrows for mypy: _ensure_session set it
            session_id, runtime = proc.session_id, proc.conn
            texts = [*extra, *prompt.updates, prompt.msg.format_for_llm()]
            blocks = [text_block(t) for t in texts if t.strip()]
            runtime.reset_session(session_id)
            async with TurnEmitter(
                prompt.tools,
                session_id=session_id,
                room_id=prompt.room_id,
                emit=self.features.emit,
                records_tool_effects=not self.config.inject_band_tools,
            ) as emitter:
                runtime.set_permission_handler(session_id, client.permission_handler(emitter))
                elicit = self._elicitation_handler(client, emitter, session_id)
                if elicit is not None:
                    runtime.set_elicitation_handler(session_id, elicit)
                work = runtime.prompt_blocks(
                    session_id=session_id, blocks=blocks, on_chunk=emitter.emit
                )
                proc.turn = ACPTurn(runtime, session_id)
                response = await proc.call(work, self.config.turn_timeout_s)
                if response is None:
                    await self._timed_out(proc, prompt)
                if proc.session is not None:  # the context is in the session now
                    proc.session.bootstrap_pending = proc.session.replay_pending = False
                prompt.reporter.final_text = emitter.held_text
        finally:
            client.prompt, proc.turn = None, None
            self.mcp.bindings.pop(prompt.room_id, None)
        self._sessions[prompt.room_id] = session_id
        usage = response.usage
        if usage is not None:
            await prompt.reporter.usage(
                TurnUsage(
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    cache_read_tokens=usage.cached_read_tokens or 0,
                    cache_write_tokens=usage.cached_write_tokens or 0,
                )
            )
        if response.stop_reason not in ("end_turn", None):
            await prompt.reporter.notice(f"The agent stopped early ({response.stop_reason}).")
            prompt.tools.turn.settle()

    async def _timed_out(self, proc: ACPProcess, prompt: Prompt) -> None:
        turn = proc.turn
        if turn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    turn.runtime.cancel_turn(turn.session_id), self.config.turn_settle_timeout_s
                )
        # Recover: an agent that overran may ignore the cancel; the next message starts a new
        # process, which loads the session.
        if proc.session_id is not None:
            self._sessions[prompt.room_id] = proc.session_id
        await self.processes.discard(prompt.room_id)
        limit = self.config.turn_timeout_s
        message = f"The ACP agent did not finish within {limit:g} s; the prompt was cancelled."
        failure = AgentFailure("acp", message, FAILURE_CODE_TIMEOUT)
        await self.fail(prompt.tools, failure, ACPTurnTimeoutError(message))
