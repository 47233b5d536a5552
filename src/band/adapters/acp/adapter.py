"""``ACPClientAdapter``: any Agent Client Protocol agent, one process and session per room.

The session id is posted after every clean prompt as a ``task`` event "ACP client session"
(always: it is the resume state); a new process loads it (``session/load``, when the agent
advertises ``loadSession``), else a new session starts and the room's history is replayed.
Band's tools reach the agent through the loopback MCP server ``band``, bound to the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Unpack

from band.adapters._coding.approvals import ApprovalRelay
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.supervisor import TransportClosed
from band.adapters._coding.workspace import WorkspaceForRoom, room_workspace
from band.core.exceptions import TurnResultAlreadyReported
from band.core.protocols import FAILURE_CODE_TIMEOUT
from band.core.types import Capability, Emit, FeatureKwargs, TurnUsage
from band.runtime.custom_tools import CustomToolDef
from band_sdk_core import AgentFailure

from .band_mcp import SERVER_NAME, BandMcpServer, RoomBinding
from .client import PermissionResolver, RoomClient
from .config import ACPClientAdapterConfig

__all__ = ["INSTALL_HINT", "ACPClientAdapter", "ACPProcess"]

logger = logging.getLogger("band.adapters.acp")
INSTALL_HINT = "ACPClientAdapter needs the ACP SDK: pip install 'openband[acp]'"
SESSION_KEY = "acp_client_session_id"
STDIO_LIMIT = 50 * 1024 * 1024


def _require_acp() -> Any:
    try:
        import acp
        import mcp  # noqa: F401  (the Band MCP server needs it)
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    return acp


class ACPProcess:
    """A room's ACP agent: the connection, its child process and the room's session."""

    def __init__(self, room_id: str, workspace: Path, client: RoomClient) -> None:
        self.room_id = room_id
        self.workspace = workspace
        self.client = client
        self.stack = contextlib.AsyncExitStack()
        self.conn: Any = None
        self.proc: asyncio.subprocess.Process | None = None
        self.session_id: str | None = None
        self.mcp_url: str | None = None
        self.can_load = False

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def exit_description(self) -> str:
        if self.proc is None:
            return "not started"
        code = self.proc.returncode
        return "running" if code is None else f"exit code {code}"

    async def start(self, config: ACPClientAdapterConfig) -> None:
        acp = _require_acp()
        argv = config.command
        self.conn, self.proc = await self.stack.enter_async_context(
            acp.spawn_agent_process(
                self.client,
                argv[0],
                *argv[1:],
                env=config.env,
                cwd=self.workspace,
                transport_kwargs={"limit": STDIO_LIMIT, "stderr": asyncio.subprocess.DEVNULL},
                use_unstable_protocol=config.use_unstable_protocol,
            )
        )
        from acp.schema import ClientCapabilities, Implementation

        init = await self.conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="band", version="0.1.0"),
        )
        self.can_load = bool(init.agent_capabilities and init.agent_capabilities.load_session)
        if config.auth_method:
            await self.conn.authenticate(method_id=config.auth_method)

    async def call(self, work: Any, limit: float) -> Any:
        """Await an ACP request; TransportClosed if the process dies first, None on timeout."""
        assert self.proc is not None
        request = asyncio.ensure_future(work)
        exited = asyncio.create_task(self.proc.wait())
        try:
            done, _ = await asyncio.wait(
                {request, exited}, timeout=limit, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            exited.cancel()
        if request in done:
            return request.result()
        request.cancel()
        if exited in done:
            raise TransportClosed(f"the ACP agent exited ({self.exit_description})")
        return None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.stack.aclose()


class ACPClientAdapter(CodingAgentAdapter[ACPProcess]):
    """Band rooms on an ACP agent started over stdio, one process per room."""

    PROVIDER = "acp"
    LABEL = "ACP agent"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.TASK_EVENTS, Emit.USAGE}
    )
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: ACPClientAdapterConfig,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        history_converter: Any = None,
        workspace_for_room: WorkspaceForRoom | None = None,
        resolve_permission: PermissionResolver | None = None,
        spawn_process: Callable[..., Any] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        if spawn_process is not None:
            raise ValueError("custom ACP transports cannot guarantee room process isolation")
        super().__init__(
            relay=ApprovalRelay.from_config(config),
            session_key=SESSION_KEY,
            custom_section=config.custom_section,
            system_prompt=config.system_prompt,
            additional_tools=additional_tools or (),
            history_converter=history_converter,
            **features,
        )
        self.config = config
        self.resolve_permission = resolve_permission
        root = Path(config.cwd) if config.cwd else None
        self.workspace_for_room = workspace_for_room or (
            (lambda room: root / room) if root is not None else None
        )
        self.mcp = BandMcpServer()
        self._sessions: dict[str, str] = {}

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        _require_acp()
        await super().on_started(agent_name, agent_description)

    async def start_process(self, room_id: str, reporter: Reporter) -> ACPProcess:
        if self.config.inject_band_tools:
            await self.mcp.start()
        workspace = room_workspace(room_id, self.workspace_for_room)
        proc = ACPProcess(room_id, workspace, RoomClient(self, room_id))
        try:
            await proc.start(self.config)
        except BaseException:
            await proc.close()
            raise
        return proc

    async def cleanup_all(self) -> None:
        await super().cleanup_all()
        await self.mcp.close()

    async def forget_room(self, room_id: str) -> None:
        self._sessions.pop(room_id, None)
        self.mcp.bindings.pop(room_id, None)

    def status_lines(self, room_id: str) -> list[str]:
        proc = self.processes.current(room_id)
        running = (
            f"running (pid {proc.proc.pid})"
            if proc is not None and proc.alive and proc.proc is not None
            else "not running (it starts with the next message)"
        )
        session = self._sessions.get(room_id)
        return [
            f"ACP agent `{' '.join(self.config.command)}`: {running}.",
            f"Session: `{session}`." if session else "Session: none yet.",
        ]

    # -- one prompt -----------------------------------------------------------------------------

    def _mcp_servers(self, room_id: str) -> list[Any]:
        from acp.schema import HttpMcpServer, McpServerStdio

        servers: list[Any] = []
        if self.config.inject_band_tools:
            servers.append(
                HttpMcpServer(type="http", name=SERVER_NAME, url=self.mcp.url(room_id), headers=[])
            )
        for raw in self.config.mcp_servers:
            model = HttpMcpServer if raw.get("type") == "http" else McpServerStdio
            servers.append(model.model_validate(raw))
        return servers

    async def _ensure_session(self, proc: ACPProcess, prompt: Prompt) -> list[str]:
        """Reuse, load or create the room's session; the context a new one needs first."""
        from acp import RequestError

        url = self.mcp.url(prompt.room_id) if self.config.inject_band_tools else None
        if proc.session_id is not None and proc.mcp_url == url:
            return []
        proc.session_id, proc.mcp_url = None, url
        cwd, servers = str(proc.workspace), self._mcp_servers(prompt.room_id)
        known = self._sessions.get(prompt.room_id) or prompt.history.session_id
        if known is not None and proc.can_load:
            try:
                await proc.conn.load_session(cwd=cwd, session_id=known, mcp_servers=servers)
                proc.session_id = known
                return []
            except RequestError as exc:
                logger.info("Room %s: session/load %s refused: %s", prompt.room_id, known, exc)
        created = await proc.conn.new_session(cwd=cwd, mcp_servers=servers)
        proc.session_id = str(created.session_id)
        context = [self._system_context(prompt)]
        block = history_block(prompt.history.transcript, self.config.max_history_messages)
        return [*context, block] if block else context

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

        self.mcp.bindings[prompt.room_id] = RoomBinding(
            prompt.tools, self.features.capabilities, self.additional_tools
        )
        proc.client.prompt = prompt
        try:
            extra = await self._ensure_session(proc, prompt)
            texts = [*extra, *prompt.updates, prompt.msg.format_for_llm()]
            blocks = [text_block(t) for t in texts if t.strip()]
            work = proc.conn.prompt(session_id=proc.session_id, prompt=blocks)
            response = await proc.call(work, self.config.turn_timeout_s)
            if response is None:
                await self._timed_out(proc, prompt)
        finally:
            await proc.client.flush_thought()
            proc.client.prompt = None
            self.mcp.bindings.pop(prompt.room_id, None)
            await prompt.reporter.finish_text()
        assert proc.session_id is not None
        self._sessions[prompt.room_id] = proc.session_id
        await prompt.reporter.task(
            "ACP client session",
            {SESSION_KEY: proc.session_id, "acp_client_room_id": prompt.room_id},
            always=True,
        )
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
        with contextlib.suppress(Exception):
            await proc.conn.cancel(session_id=proc.session_id)
        limit = self.config.turn_timeout_s
        message = f"The ACP agent did not finish within {limit:g} s; the prompt was cancelled."
        await prompt.tools.send_failure(AgentFailure("acp", message, FAILURE_CODE_TIMEOUT))
        raise TurnResultAlreadyReported(message)
