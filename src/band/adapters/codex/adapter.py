"""``CodexAdapter``: each room drives its own ``codex app-server`` over stdio.

One process per room, started in the room's workspace folder; one Codex thread per room,
its id posted as a ``task`` event (the resume state, with a fingerprint of the thread's
tools) and resumed after a restart, with the room's history injected into a new thread
when resuming fails. Band's room tools are Codex dynamic tools; approvals are relayed to
the room. A resumed thread keeps the tools it was started with (``thread/resume`` takes
none), so a room whose tools have changed since is refused until ``/thread archive``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, ClassVar, NoReturn, Unpack

from band.adapters._coding.approvals import ApprovalRelay
from band.adapters._coding.base import CodingAgentAdapter, Prompt
from band.adapters._coding.commands import RoomCommand
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.core.exceptions import (
    BandConfigError,
    ProviderRunError,
    TurnResultAlreadyReported,
)
from band.core.protocols import FAILURE_CODE_TIMEOUT, AgentToolsProtocol
from band.core.types import Emit, FeatureKwargs
from band.integrations.codex.types import build_agent_failure
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band.workspaces import WorkspaceResolver
from band_protocol import AgentFailure

from . import commands
from .config import DEFAULT_MODEL, INSTALL_COMMAND, CodexAdapterConfig
from .native import NativeTurn
from .process import CodexProcess
from .room import (
    DIGEST_KEY,
    NAMES_KEY,
    SETTINGS_KEY,
    THREAD_KEY,
    CodexContinuityError,
    RoomCodexClient,
    ThreadSettings,
)
from .rpc import CodexJsonRpcError, TransportClosed
from .self_config import dynamic_tool_specs, self_config_specs
from .turn import CodexTurnRun

__all__ = ["CodexAdapter", "CodexContinuityError", "CodexProcess"]

logger = logging.getLogger("band.adapters.codex")
_SANDBOX_POLICY = {
    "read-only": "readOnly",
    "workspace-write": "workspaceWrite",
    "danger-full-access": "dangerFullAccess",
}


class CodexAdapter(CodingAgentAdapter[CodexProcess]):
    """Band rooms on the Codex CLI's app-server: one process and one thread per room."""

    PROVIDER = "codex"
    LABEL = "Codex app-server"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(Emit)

    def __init__(
        self,
        config: CodexAdapterConfig | None = None,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        history_converter: Any = None,
        client_factory: Callable[..., Any] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or CodexAdapterConfig()
        if config.cwd is not None:
            raise ValueError("cwd is not supported; use workspace_for_room or the default")
        if config.transport != "stdio":
            raise ValueError(
                "only stdio Codex transport guarantees room process isolation: a shared "
                f"app-server at {config.codex_ws_url} (codex_ws_url) is not used"
            )
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
            start_timeout_s=config.retention.transition_timeout_s,
            workspace_for_room=workspace_for_room or config.workspace_for_room,
            turn_settle_s=config.turn_settle_timeout_s,
            **features,
        )
        self.config = config
        self.argv: list[str] = []
        self.model = config.model
        self.rooms: dict[str, RoomCodexClient] = {}

    def room(self, room_id: str) -> RoomCodexClient:
        """The room's Codex state (made, with its workspace claimed, on first use)."""
        room = self.rooms.get(room_id)
        if room is None:
            room = self.rooms[room_id] = RoomCodexClient(room_id, str(self.room_folder(room_id)))
        return room

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
        proc = CodexProcess(self.room(room_id), close_timeout_s=self.config.client_close_timeout_s)
        env = {**os.environ, **(self.config.codex_env or {})}
        try:
            await proc.start(
                self.argv,
                env,
                self.config.skill_roots,
                client_info=self.config.client_info,
                experimental_api=self.config.experimental_api,
            )
            if self.model is None:
                self.model = await commands.first_model(proc)
        except BaseException:
            await proc.close()
            raise
        return proc

    async def forget_room(self, room_id: str) -> None:
        room = self.rooms.pop(room_id, None)
        if room is not None:
            room.decline_approvals()
            await room.stop_reader()

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        proc = self.processes.current(room_id)
        running = proc.running_turn() if proc is not None else None
        if running is not None:
            try:
                await running.interrupt()
            except (CodexJsonRpcError, TransportClosed, RuntimeError) as exc:
                logger.info("Room %s: turn/interrupt failed: %s", room_id, exc)

    # -- one prompt -----------------------------------------------------------------------------

    def room_model(self, room_id: str) -> str:
        return self.room(room_id).selected_model or self.model or DEFAULT_MODEL

    def room_sandbox(self, room_id: str) -> str | None:
        return self.room(room_id).sandbox or self.config.thread_sandbox

    def dynamic_tools(self, tools: AgentToolsProtocol) -> list[dict[str, Any]]:
        """Band's room tools, custom tools, the self-config tools and the configured
        additional specs, as Codex dynamic tools (first of each name wins)."""
        schemas = tools.get_tool_schemas("openai", capabilities=self.features.capabilities)
        schemas += custom_tools_to_schemas(self.additional_tools, "openai")
        specs = dynamic_tool_specs(schemas)
        if self.config.enable_self_config_tools:
            specs += self_config_specs()
        specs += self.config.additional_dynamic_tools
        seen: set[str] = set()
        unique = []
        for spec in specs:
            if spec["name"] not in seen:
                seen.add(spec["name"])
                unique.append(spec)
        return unique

    def _thread_params(self, proc: CodexProcess) -> dict[str, Any]:
        params: dict[str, Any] = {
            "cwd": str(proc.workspace),
            "approvalPolicy": self.config.approval_policy,
            "personality": self.config.personality,
            "model": self.room_model(proc.room_id),
        }
        sandbox = self.room_sandbox(proc.room_id)
        if sandbox is not None:
            params["sandbox"] = sandbox
        return params

    async def _ensure_thread(self, proc: CodexProcess, prompt: Prompt) -> list[str]:
        """Map the room to a thread (resume, else start); the extra input a new one needs."""
        room = self.room(prompt.room_id)
        async with room.rpc_lock:
            return await self._map_thread(room, proc, prompt)

    async def _map_thread(
        self, room: RoomCodexClient, proc: CodexProcess, prompt: Prompt
    ) -> list[str]:
        if prompt.history.session_id is not None and room.thread_id is None:
            room.thread_id = prompt.history.session_id
            saved = prompt.history.session_metadata.get(SETTINGS_KEY)
            settings = ThreadSettings.reported_by(saved) if isinstance(saved, dict) else None
            room.bind_thread(registration=None, settings=settings or ThreadSettings())
            room.tools_digest = prompt.history.session_metadata.get(DIGEST_KEY)
            room.tool_names = tuple(prompt.history.session_metadata.get(NAMES_KEY) or ())
        if prompt.history.transcript:
            room.transcript = prompt.history.transcript
        specs = self.dynamic_tools(prompt.tools)
        if proc.thread_id is not None:
            room.check_tools(proc.thread_id, specs)
            return []
        rpc, common = proc.channel, self._thread_params(proc)
        state, extra = "resumed", []
        if room.thread_id is not None:
            room.check_tools(room.thread_id, specs)
            try:
                resumed = await rpc.request("thread/resume", {"threadId": room.thread_id, **common})
            except CodexJsonRpcError as exc:
                logger.warning("Room %s: thread/resume failed: %s", room.room_id, exc)
            else:
                room.check_settings(room.thread_id, resumed)
                proc.thread_id, room.restored = room.thread_id, True
        if proc.thread_id is None:
            started = await rpc.request("thread/start", {**common, "dynamicTools": specs})
            proc.thread_id = str(started["thread"]["id"])
            room.bind_thread(registration=specs, settings=ThreadSettings.reported_by(started))
            state, extra = "mapped", [f"[System Instructions]\n{self.system_prompt}"]
            block = history_block(room.transcript, self.config.max_history_messages)
            if block and self.config.inject_history_on_resume_failure:
                extra.append(block)
        room.thread_id, room.transcript = proc.thread_id, ()
        metadata: dict[str, Any] = {
            THREAD_KEY: proc.thread_id,
            "codex_room_id": room.room_id,
            "codex_created_at": datetime.now(UTC).isoformat(),
            "codex_transport": "stdio",
        }
        if room.tools_digest is not None:
            metadata |= {DIGEST_KEY: room.tools_digest, NAMES_KEY: list(room.tool_names)}
        if room.settings != ThreadSettings():
            metadata[SETTINGS_KEY] = asdict(room.settings)
        await prompt.reporter.task(f"Codex thread {state}", metadata, always=True)
        return extra

    async def run_prompt(self, proc: CodexProcess, prompt: Prompt) -> None:
        try:
            extra = await self._ensure_thread(proc, prompt)
        except CodexContinuityError as exc:
            await self.fail(prompt.tools, exc.message, exc)
        assert proc.thread_id is not None  # nosec B101 # narrows for mypy: _ensure_thread set it
        texts = [*extra, *prompt.updates, prompt.msg.format_for_llm()]
        room = self.room(prompt.room_id)
        native = NativeTurn(proc.channel.client, proc.generation, thread_id=proc.thread_id)
        room.turn = native
        turn = CodexTurnRun(self, prompt, room, native)
        consuming = asyncio.create_task(turn.consume())
        result, failure = turn.result, None
        try:
            await self._start_native_turn(proc, native, texts)
            await turn.extras.started()
            completed = await proc.wait(turn, self.config.turn_timeout_s)
            if completed is None:
                result.turn_status = "timed_out"
                await self._timed_out(proc, turn)
            result.turn_status = str(completed.get("status") or "completed")
            if isinstance(completed.get("error"), dict):
                failure = build_agent_failure(
                    completed["error"],
                    thread_id=proc.thread_id,
                    turn_id=native.turn_id,
                    room_id=prompt.room_id,
                )
                result.turn_error = failure.message
        finally:
            room.turn = None
            consuming.cancel()
            await asyncio.wait({consuming})
            await turn.close()
            await proc.refuse_undelivered(native, self.config.turn_settle_timeout_s)
            await prompt.reporter.finish_text()
            await prompt.reporter.usage(turn.usage.total())
            await turn.extras.finished(result.turn_status, result.turn_error or None)
        status = result.turn_status
        if status == "failed" and failure is not None:
            await prompt.tools.send_failure(failure)
            raise TurnResultAlreadyReported(failure.message)
        if status == "failed":
            raise ProviderRunError("turn_failed", "Codex turn failed")
        if status == "interrupted":
            await prompt.reporter.notice("I couldn't complete this request: it was interrupted.")
            prompt.tools.turn.settle()

    async def _start_native_turn(
        self, proc: CodexProcess, native: NativeTurn, texts: list[str]
    ) -> None:
        """``turn/start``, then claim what arrived before Codex named the turn."""
        started = await proc.channel.request("turn/start", self._turn_params(proc, texts))
        turn = (started or {}).get("turn")
        turn_id = str(turn.get("id") or "") if isinstance(turn, dict) else ""
        if not turn_id:
            raise ProviderRunError("turn_failed", "Codex turn/start returned no turn id")
        native.turn_id = turn_id
        early, native.early = native.early, []
        # Claimed before any await, so the reader cannot queue newer events ahead of them.
        refused = [event for event in early if not native.claim(event)]
        for event in refused:
            await proc.refuse(event)

    def _turn_params(self, proc: CodexProcess, texts: list[str]) -> dict[str, Any]:
        config, room = self.config, self.room(proc.room_id)
        params: dict[str, Any] = {
            "threadId": proc.thread_id,
            "input": [{"type": "text", "text": t} for t in texts if t.strip()],
            "cwd": str(proc.workspace),
            "approvalPolicy": config.approval_policy,
            "personality": config.personality,
            "model": self.room_model(proc.room_id),
        }
        if config.sandbox_policy is not None:
            params["sandboxPolicy"] = dict(config.sandbox_policy)
        elif (mode := self.room_sandbox(proc.room_id)) is not None:  # else the thread's own
            params["sandboxPolicy"] = {"type": _SANDBOX_POLICY[mode]}
        effort = room.reasoning_effort or config.reasoning_effort
        if effort is not None:
            params["effort"] = effort
        summary = room.reasoning_summary or config.reasoning_summary
        if summary is not None:
            params["summary"] = summary
        return params

    async def _timed_out(self, proc: CodexProcess, turn: CodexTurnRun) -> NoReturn:
        limit = self.config.turn_timeout_s
        await self.on_interrupt(turn.prompt.room_id, "interrupt")
        message = f"Codex did not finish within {limit:g} s; the turn was interrupted."
        await self.fail(turn.prompt.tools, AgentFailure("codex", message, FAILURE_CODE_TIMEOUT))

    # -- room commands (codex/commands.py) ------------------------------------------------------

    def status_lines(self, room_id: str) -> list[str]:
        return commands.status_lines(self, room_id)

    def permission_lines(self, room_id: str) -> list[str]:
        return commands.permission_lines(self, room_id)

    async def model_command(self, room_id: str, args: tuple[str, ...]) -> str:
        return await commands.model(self, room_id, args)

    async def room_command(
        self, command: RoomCommand, room_id: str, reporter: Reporter
    ) -> str | None:
        return await commands.dispatch(self, command, room_id, reporter)

    def command_help(self) -> list[str]:
        return commands.HELP
