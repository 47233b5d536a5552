"""``CodexAdapter``: each room drives its own ``codex app-server`` over stdio.

One process per room, started in the room's workspace folder; one Codex thread per room,
its id posted as a ``task`` event (the resume state) and resumed after a restart, with the
room's history injected into a new thread when resuming fails. Band's room tools are
Codex dynamic tools; approvals are relayed to the room.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, NoReturn, Unpack

from band.adapters._coding.approvals import ApprovalRelay
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.workspace import WorkspaceForRoom, room_workspace
from band.core.exceptions import BandConfigError, ProviderRunError, TurnResultAlreadyReported
from band.core.protocols import FAILURE_CODE_TIMEOUT, AgentToolsProtocol
from band.core.types import Capability, Emit, FeatureKwargs
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band_sdk_core import AgentFailure

from .config import DEFAULT_MODEL, INSTALL_COMMAND, CodexAdapterConfig
from .rpc import RpcError, StdioRpc, TransportClosed
from .turn import CodexTurn

__all__ = ["CodexAdapter", "CodexProcess"]

logger = logging.getLogger("band.adapters.codex")
THREAD_KEY = "codex_thread_id"
_SANDBOX_POLICY = {
    "read-only": "readOnly",
    "workspace-write": "workspaceWrite",
    "danger-full-access": "dangerFullAccess",
}


class CodexProcess:
    """A room's ``codex app-server``: the RPC channel, its thread and the active turn."""

    def __init__(self, room_id: str, workspace: Path) -> None:
        self.room_id = room_id
        self.workspace = workspace
        self.rpc: StdioRpc | None = None
        self.thread_id: str | None = None
        self.active: CodexTurn | None = None

    @property
    def alive(self) -> bool:
        return self.rpc is not None and self.rpc.alive

    @property
    def exit_description(self) -> str:
        return self.rpc.exit_description if self.rpc is not None else "not started"

    @property
    def channel(self) -> StdioRpc:
        if self.rpc is None:
            raise TransportClosed("codex app-server is not running")
        return self.rpc

    async def start(self, argv: Sequence[str], env: dict[str, str]) -> None:
        self.rpc = await StdioRpc.spawn(
            argv,
            cwd=str(self.workspace),
            env=env,
            on_notification=self._notification,
            on_request=self._request,
            label="codex app-server",
        )
        await self.rpc.request(
            "initialize",
            {
                "clientInfo": {"name": "band", "title": "Band", "version": "0.1.0"},
                "capabilities": {"experimentalApi": True},
            },
        )
        await self.rpc.notify("initialized")

    async def _notification(self, method: str, params: dict[str, Any]) -> None:
        if self.active is not None:
            await self.active.on_notification(method, params)

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        if self.active is None:
            raise ValueError(f"no turn is running to answer {method}")
        return await self.active.on_request(method, params)

    async def wait(self, turn: CodexTurn, limit: float) -> dict[str, Any] | None:
        """The completed turn; None on timeout (time spent on approvals is not counted)."""
        closed = asyncio.create_task(self.channel.closed.wait())
        waiters: set[asyncio.Future[Any]] = {turn.done, closed}
        try:
            while True:
                done, _ = await asyncio.wait(
                    waiters, timeout=limit, return_when=asyncio.FIRST_COMPLETED
                )
                if turn.done in done:
                    return turn.done.result()
                if closed in done:
                    raise TransportClosed(f"codex app-server exited ({self.exit_description})")
                if not turn.awaiting_approval:
                    return None
        finally:
            closed.cancel()

    async def close(self) -> None:
        if self.rpc is not None:
            await self.rpc.close()


class CodexAdapter(CodingAgentAdapter[CodexProcess]):
    """Band rooms on the Codex CLI's app-server: one process and one thread per room."""

    PROVIDER = "codex"
    LABEL = "Codex app-server"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(Emit)
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: CodexAdapterConfig | None = None,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        history_converter: Any = None,
        client_factory: Callable[..., Any] | None = None,
        workspace_for_room: WorkspaceForRoom | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or CodexAdapterConfig()
        if config.cwd is not None:
            raise ValueError("cwd is not supported; use workspace_for_room or the default")
        if config.transport != "stdio":
            raise ValueError("only stdio Codex transport guarantees room process isolation")
        if client_factory is not None:
            raise ValueError("custom Codex clients cannot guarantee room process isolation")
        super().__init__(
            relay=ApprovalRelay.from_config(config),
            session_key=THREAD_KEY,
            custom_section=config.custom_section,
            system_prompt=config.system_prompt,
            include_base_instructions=config.include_base_instructions,
            additional_tools=additional_tools or (),
            history_converter=history_converter,
            **features,
        )
        self.config = config
        self.workspace_for_room = workspace_for_room
        self.argv: list[str] = []
        self.model = config.model
        self._threads: dict[str, str] = {}
        self._room_models: dict[str, str] = {}

    # -- lifecycle ------------------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self.argv = self._resolve_argv()

    def _resolve_argv(self) -> list[str]:
        if self.config.codex_command:
            argv = list(self.config.codex_command)
            if shutil.which(argv[0]) is None:
                raise BandConfigError(
                    f"codex command {argv[0]!r} not found; install the Codex CLI with "
                    f"`{INSTALL_COMMAND}` or fix codex_command"
                )
            return argv
        binary = shutil.which("codex") or shutil.which("codex-cli")
        if binary is None:
            raise BandConfigError(
                f"CodexAdapter needs the codex CLI on PATH: install it with `{INSTALL_COMMAND}` "
                "(or set codex_command)"
            )
        return [binary, "app-server", "--listen", "stdio://"]

    async def start_process(self, room_id: str, reporter: Reporter) -> CodexProcess:
        proc = CodexProcess(room_id, room_workspace(room_id, self.workspace_for_room))
        env = {**os.environ, **self.config.codex_env}
        try:
            await proc.start(self.argv, env)
        except BaseException:
            await proc.close()
            raise
        if self.model is None:
            self.model = await self._first_model(proc)
        return proc

    async def _first_model(self, proc: CodexProcess) -> str:
        try:
            listing = await proc.channel.request("model/list", {})
        except RpcError as exc:
            logger.info("model/list failed (%s); using %s", exc, DEFAULT_MODEL)
            return DEFAULT_MODEL
        for entry in (listing or {}).get("data") or []:
            if isinstance(entry, dict) and not entry.get("hidden") and entry.get("id"):
                return str(entry.get("model") or entry["id"])
        return DEFAULT_MODEL

    async def forget_room(self, room_id: str) -> None:
        self._threads.pop(room_id, None)
        self._room_models.pop(room_id, None)

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        proc = self.processes.current(room_id)
        turn = proc.active if proc is not None else None
        if proc is not None and turn is not None and turn.turn_id is not None:
            params = {"threadId": turn.thread_id, "turnId": turn.turn_id}
            try:
                await proc.channel.request("turn/interrupt", params)
            except (RpcError, TransportClosed) as exc:
                logger.info("Room %s: turn/interrupt failed: %s", room_id, exc)

    # -- one prompt -----------------------------------------------------------------------------

    def _room_model(self, room_id: str) -> str:
        return self._room_models.get(room_id) or self.model or DEFAULT_MODEL

    def _dynamic_tools(self, tools: AgentToolsProtocol) -> list[dict[str, Any]]:
        schemas = tools.get_tool_schemas("openai", capabilities=self.features.capabilities)
        schemas += custom_tools_to_schemas(self.additional_tools, "openai")
        return [
            {
                "type": "function",
                "name": s["function"]["name"],
                "description": s["function"].get("description", ""),
                "inputSchema": s["function"].get("parameters") or {"type": "object"},
            }
            for s in schemas
        ]

    async def _ensure_thread(self, proc: CodexProcess, prompt: Prompt) -> list[str]:
        """Map the room to a thread (resume, else start); the extra input a new one needs."""
        if proc.thread_id is not None:
            return []
        rpc, room_id, config = proc.channel, prompt.room_id, self.config
        known = self._threads.get(room_id) or prompt.history.session_id
        common = {
            "cwd": str(proc.workspace),
            "approvalPolicy": config.approval_policy,
            "personality": config.personality,
            "sandbox": config.sandbox,
            "model": self._room_model(room_id),
        }
        state, extra = "resumed", []
        if known is not None:
            try:
                await rpc.request("thread/resume", {"threadId": known, **common})
                proc.thread_id = known
            except RpcError as exc:
                logger.warning("Room %s: thread/resume %s failed: %s", room_id, known, exc)
        if proc.thread_id is None:
            started = await rpc.request(
                "thread/start", {**common, "dynamicTools": self._dynamic_tools(prompt.tools)}
            )
            proc.thread_id = str(started["thread"]["id"])
            state, extra = "mapped", [f"[System Instructions]\n{self.system_prompt}"]
            block = history_block(prompt.history.transcript, config.max_history_messages)
            if block and config.inject_history_on_resume_failure:
                extra.append(block)
        self._threads[room_id] = proc.thread_id
        await prompt.reporter.task(
            f"Codex thread {state}",
            {
                THREAD_KEY: proc.thread_id,
                "codex_room_id": room_id,
                "codex_created_at": int(time.time()),
                "codex_transport": "stdio",
            },
            always=True,
        )
        return extra

    async def run_prompt(self, proc: CodexProcess, prompt: Prompt) -> None:
        extra = await self._ensure_thread(proc, prompt)
        assert proc.thread_id is not None
        texts = [*extra, *prompt.updates, prompt.msg.format_for_llm()]
        turn = CodexTurn(self, prompt, proc.thread_id)
        proc.active = turn
        try:
            started = await proc.channel.request("turn/start", self._turn_params(proc, texts))
            turn.turn_id = str((started or {}).get("turn", {}).get("id") or "") or None
            completed = await proc.wait(turn, self.config.turn_timeout_s)
            if completed is None:
                await self._timed_out(proc, turn)
        finally:
            proc.active = None
            await prompt.reporter.finish_text()
            await prompt.reporter.usage(turn.usage.total())
        status = completed.get("status")
        if status == "failed":
            error = completed.get("error") or {}
            raise ProviderRunError("turn_failed", str(error.get("message") or "Codex turn failed"))
        if status == "interrupted":
            await prompt.reporter.notice("I couldn't complete this request: it was interrupted.")
            prompt.tools.turn.settle()

    def _turn_params(self, proc: CodexProcess, texts: list[str]) -> dict[str, Any]:
        config = self.config
        params: dict[str, Any] = {
            "threadId": proc.thread_id,
            "input": [{"type": "text", "text": t} for t in texts if t.strip()],
            "cwd": str(proc.workspace),
            "approvalPolicy": config.approval_policy,
            "personality": config.personality,
            "sandboxPolicy": {"type": _SANDBOX_POLICY[config.sandbox]},
            "model": self._room_model(proc.room_id),
        }
        if config.reasoning_effort is not None:
            params["effort"] = config.reasoning_effort
        if config.reasoning_summary is not None:
            params["summary"] = config.reasoning_summary
        return params

    async def _timed_out(self, proc: CodexProcess, turn: CodexTurn) -> NoReturn:
        limit = self.config.turn_timeout_s
        await self.on_interrupt(turn.prompt.room_id, "interrupt")
        message = f"Codex did not finish within {limit:g} s; the turn was interrupted."
        await turn.prompt.tools.send_failure(AgentFailure("codex", message, FAILURE_CODE_TIMEOUT))
        raise TurnResultAlreadyReported(message)

    # -- room commands --------------------------------------------------------------------------

    def status_lines(self, room_id: str) -> list[str]:
        proc = self.processes.current(room_id)
        if proc is None or not proc.alive:
            running = "not running (it starts with the next message)"
        else:
            running = f"running (pid {proc.channel.proc.pid})"
        thread = self._threads.get(room_id)
        return [
            f"Codex app-server: {running}.",
            f"Thread: `{thread}`." if thread else "Thread: none yet.",
            f"Model: `{self._room_model(room_id)}`; approval policy "
            f"`{self.config.approval_policy}`; sandbox `{self.config.sandbox}`.",
        ]

    async def model_command(self, room_id: str, args: tuple[str, ...]) -> str:
        if not args:
            return f"Model in this room: `{self._room_model(room_id)}`."
        if args[0] == "list":
            proc = self.processes.current(room_id)
            if proc is None or not proc.alive:
                return "Codex is not running in this room yet; mention me once, then ask again."
            listing = await proc.channel.request("model/list", {})
            ids = [str(m.get("id")) for m in (listing or {}).get("data") or [] if m.get("id")]
            return "Models: " + (", ".join(f"`{i}`" for i in ids) or "(none listed)")
        self._room_models[room_id] = args[0]
        return f"Model in this room is now `{args[0]}` (from the next message on)."
