"""``ClaudeSDKAdapter``: each room talks to its own Claude Code CLI through the Claude Agent SDK.

One CLI per room, in the room's workspace (or the configured ``cwd``); one Claude session
per room, its id posted as a ``task`` event "Claude SDK session" (always: it is the resume
state) and resumed by the next CLI, also after a restart. When it cannot be resumed, a new
session starts with the room's history. Band's tools reach Claude through the loopback MCP
server ``band`` (never gated); Claude's own tools (Bash, Write, ...) follow
``permission_mode``, or, with ``approvals``, the room decides (``/approve``, ``/decline``).
Claude's text is never a reply: it becomes a thought when the turn did not answer.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Unpack

from band.adapters._coding.approvals import ApprovalMode, ApprovalRelay
from band.adapters._coding.band_tools import SERVER_NAME, RoomBinding
from band.adapters._coding.base import Prompt
from band.adapters._coding.events import Reporter
from band.adapters._coding.history import history_block
from band.adapters._coding.mcp_adapter import McpCodingAgentAdapter
from band.adapters._tool_events import anthropic_usage
from band.converters.claude_sdk import SESSION_ID_METADATA_KEY, ClaudeSDKHistoryConverter
from band.core.exceptions import BandConfigError
from band.core.protocols import FAILURE_CODE_TIMEOUT
from band.core.types import FeatureKwargs
from band.integrations.claude_sdk.dedup_tools import DedupingAgentTools
from band.integrations.claude_sdk.prompts import ROOM_CONTEXT, generate_claude_sdk_agent_prompt
from band.runtime.custom_tools import CustomToolDef
from band.workspaces import WorkspaceResolver
from band_protocol import AgentFailure

from .approvals import PendingApproval, ask_room, pending_lines
from .config import DEFAULT_MODEL, INSTALL_COMMAND, ClaudeSDKAdapterConfig
from .process import INSTALL_HINT, ClaudeProcess, require_claude_sdk

__all__ = ["INSTALL_HINT", "SESSION_KEY", "ClaudeSDKAdapter"]

logger = logging.getLogger("band.adapters.claude_sdk")
PROVIDER = "claude_sdk"
SESSION_KEY = SESSION_ID_METADATA_KEY
MCP_PREFIX = f"mcp__{SERVER_NAME}__"
# Claude Code's lookup of deferred tool definitions only reads them: never ask the room.
TOOL_SEARCH = "ToolSearch"
NATIVE_TOOLS = rf"^(?!{re.escape(MCP_PREFIX)}|{TOOL_SEARCH}$).+"
DRAIN_S = 10.0
_SECRET = re.compile(r"(?i)((?:key|token|secret|password|passwd|auth|bearer)\s*[=:]\s*)\S+")


def _summary(tool: str, args: dict[str, Any]) -> str:
    """One line for an approval notice: the command (secrets masked), the file, or the tool."""
    command = args.get("command")
    if isinstance(command, str) and command:
        return _SECRET.sub(r"\1***", command)[:200]
    path = args.get("file_path") or args.get("path")
    return str(path) if isinstance(path, str) and path else tool


async def _ask(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
    """PreToolUse hook: send each native tool call to ``can_use_tool`` (the room), whatever
    ``permission_mode`` would have decided alone."""
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}


class ClaudeSDKAdapter(McpCodingAgentAdapter[ClaudeProcess]):
    """Band rooms on Claude Code: one CLI and one Claude session per room."""

    PROVIDER = PROVIDER
    LABEL = "Claude Code CLI"

    def __init__(
        self,
        config: ClaudeSDKAdapterConfig | None = None,
        *,
        history_converter: Any = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or ClaudeSDKAdapterConfig()
        if config.cwd is not None and workspace_for_room is not None:
            raise ValueError("set either cwd or workspace_for_room, not both")
        approvals = config.approvals
        relay = (
            ApprovalRelay(
                approvals.mode,
                wait_timeout_s=approvals.wait_timeout_s,
                timeout_decision=approvals.timeout_decision,
                text_notifications=approvals.text_notifications,
                max_pending=approvals.max_pending_per_room,
                authorized_senders=approvals.authorized_senders,
            )
            if approvals is not None
            else ApprovalRelay(ApprovalMode.AUTO_ACCEPT, text_notifications=False)
        )
        super().__init__(
            relay=relay,
            session_key=SESSION_KEY,
            custom_section=config.custom_section or "",
            system_prompt=config.system_prompt,
            additional_tools=additional_tools or (),
            history_converter=history_converter or ClaudeSDKHistoryConverter(),
            start_timeout_s=config.retention.transition_timeout_s,
            workspace_for_room=workspace_for_room,
            turn_settle_s=config.turn_settle_timeout_s,
            **features,
        )
        self.config = config
        self.cli_path: str | None = None
        self._recorded: dict[str, str] = {}
        self._models: dict[str, str] = {}
        self._prompts: dict[str, Prompt] = {}
        self._dedup: dict[str, DedupingAgentTools] = {}  # room -> its recent sends
        self.pending_approvals: dict[str, list[PendingApproval]] = {}  # room -> tool calls

    # -- lifecycle ------------------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        require_claude_sdk()
        await super().on_started(agent_name, agent_description)
        path = self.config.cli.cli_path
        if path is not None:
            found = shutil.which(path)
            if found is None:
                raise BandConfigError(
                    f"Claude Code CLI {path!r} not found; install it with `{INSTALL_COMMAND}` "
                    "or fix cli.cli_path"
                )
            self.cli_path = found

    async def forget_room(self, room_id: str) -> None:
        for state in (self._recorded, self._models):
            state.pop(room_id, None)
        self._prompts.pop(room_id, None)
        self._dedup.pop(room_id, None)
        for pending in self.pending_approvals.pop(room_id, []):
            pending.answer(None)

    async def start_process(self, room_id: str, reporter: Reporter) -> ClaudeProcess:
        await self.mcp.start()
        # ``cwd`` is one folder the rooms share; without it each room holds its own.
        workspace = Path(self.config.cwd) if self.config.cwd else self.room_folder(room_id)
        proc = ClaudeProcess(room_id, workspace)
        resume = self.known_sessions.get(room_id)
        try:
            await proc.start(self._options(room_id, workspace, resume))
        except BaseException as exc:
            await proc.close()
            if isinstance(exc, Exception) and not isinstance(exc, BandConfigError):
                raise BandConfigError(f"{exc} ({proc.exit_description})") from exc
            raise
        proc.session_id, proc.resumed = resume, resume is not None
        return proc

    def _options(self, room_id: str, workspace: Path, resume: str | None) -> Any:
        from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
        from claude_agent_sdk.types import McpHttpServerConfig, SdkPluginConfig

        config, cli = self.config, self.config.cli
        # Band's tools in the model's own tool list, not behind a ToolSearch step.
        env = {"ENABLE_TOOL_SEARCH": "false", **cli.env}
        options = ClaudeAgentOptions(
            model=self._models.get(room_id) or config.model or DEFAULT_MODEL,
            fallback_model=config.fallback_model,
            system_prompt=self._system_prompt(),
            mcp_servers={SERVER_NAME: McpHttpServerConfig(type="http", url=self.mcp.url(room_id))},
            # With room approvals, can_use_tool lets these through itself (an allow rule would
            # shadow the callback).
            allowed_tools=[] if config.approvals else [f"{MCP_PREFIX}*", TOOL_SEARCH],
            permission_mode=str(config.permission_mode),
            effort=config.effort,
            setting_sources=list(config.setting_sources),
            cwd=str(workspace),
            cli_path=self.cli_path,
            resume=resume,
            env=env,
            add_dirs=list(cli.add_dirs),
            plugins=[SdkPluginConfig(type="local", path=p) for p in cli.plugin_dirs],
            extra_args=dict(cli.extra_args),
        )
        if config.max_thinking_tokens:
            options.max_thinking_tokens = config.max_thinking_tokens
        if config.approvals is not None:
            options.can_use_tool = self._can_use_tool(room_id)
            options.hooks = {"PreToolUse": [HookMatcher(matcher=NATIVE_TOOLS, hooks=[_ask])]}
        return options

    def _system_prompt(self) -> Any:
        """A configured ``system_prompt`` replaces Claude Code's own (the room context is
        added to it); otherwise Band's instructions are appended to Claude Code's preset."""
        if self.config.system_prompt is not None:
            return f"{self.system_prompt}\n\n{ROOM_CONTEXT}"
        return generate_claude_sdk_agent_prompt(
            self.agent_name or "Agent",
            self.agent_description or "An AI assistant",
            self.config.custom_section,
            self.features,
        )

    # -- one prompt -----------------------------------------------------------------------------

    async def run_prompt(self, proc: ClaudeProcess, prompt: Prompt) -> None:
        room = prompt.room_id
        tools = prompt.tools
        ttl = self.config.send_message_dedup_ttl_seconds
        if ttl > 0:
            dedup = self._dedup.get(room) or DedupingAgentTools(
                tools, ttl_seconds=ttl, label=f"Room {room}"
            )
            tools = self._dedup.setdefault(room, dedup).bound(tools)
        self.mcp.bindings[room] = RoomBinding(tools)
        self._prompts[room] = prompt
        texts = [*prompt.updates, prompt.msg.format_for_llm()]
        if not proc.resumed and proc.session_id is None:
            block = history_block(self.transcripts.pop(room, ()), self.config.max_history_messages)
            if block:
                texts.insert(0, block)
        names: dict[str, str] = {}
        result: Any = None
        try:
            limit = self.config.turn_timeout_s
            try:
                async with asyncio.timeout(limit):
                    async for message in proc.turn("\n\n".join(texts)):
                        result = await self._on_message(message, prompt.reporter, names) or result
            except TimeoutError:
                await self._timed_out(proc, prompt)
        finally:
            self._prompts.pop(room, None)
            self.mcp.bindings.pop(room, None)
            await prompt.reporter.finish_text()
        if result is not None:
            await self._finish(proc, prompt, result)

    async def _on_message(self, message: Any, reporter: Reporter, names: dict[str, str]) -> Any:
        """Report one CLI message; returns the ``ResultMessage`` that ends the turn."""
        from claude_agent_sdk import AssistantMessage, ResultMessage, UserMessage

        if isinstance(message, ResultMessage):
            return message
        if isinstance(message, AssistantMessage) and getattr(message, "error", None):
            return None  # the CLI's own text about a failed request; the result reports it
        if isinstance(message, AssistantMessage | UserMessage) and isinstance(
            message.content, list
        ):
            for block in message.content:
                # A user message's text is the CLI's (reminders), never the agent's.
                if isinstance(message, AssistantMessage) or hasattr(block, "tool_use_id"):
                    await self._on_block(block, reporter, names)
        return None

    async def _on_block(self, block: Any, reporter: Reporter, names: dict[str, str]) -> None:
        from claude_agent_sdk import TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

        if isinstance(block, TextBlock):
            reporter.hold_text(block.text)
        elif isinstance(block, ThinkingBlock):
            await reporter.thought(block.thinking)
        elif isinstance(block, ToolUseBlock):
            name = names[block.id] = block.name.removeprefix(MCP_PREFIX)
            await reporter.tool_call(name, dict(block.input), block.id)
        elif isinstance(block, ToolResultBlock):
            name = names.pop(block.tool_use_id, "tool")
            await reporter.tool_result(
                name, block.content or "", block.tool_use_id, is_error=bool(block.is_error)
            )

    async def _finish(self, proc: ClaudeProcess, prompt: Prompt, result: Any) -> None:
        """Record the session, report usage, and a failed result in words."""
        room = prompt.room_id
        if result.session_id:
            proc.session_id = self.known_sessions[room] = result.session_id
            if self._recorded.get(room) != result.session_id:
                self._recorded[room] = result.session_id
                metadata = {SESSION_KEY: result.session_id, "claude_sdk_room_id": room}
                await prompt.reporter.task("Claude SDK session", metadata, always=True)
        await prompt.reporter.usage(anthropic_usage(result.usage))
        if result.is_error:
            detail = (
                result.result
                or "; ".join(getattr(result, "errors", None) or [])
                or ("the Claude CLI gave no detail")
            )
            status = getattr(result, "api_error_status", None)
            message = f"Claude turn failed: {detail}"
            if status:
                message += f" (API status {status})"
            code = str(status) if status else None
            await self.fail(prompt.tools, AgentFailure(PROVIDER, message, code))

    async def _timed_out(self, proc: ClaudeProcess, prompt: Prompt) -> None:
        try:
            await proc.client.interrupt()
            await proc.drain(DRAIN_S)
        except Exception as exc:  # a CLI that will not stop is replaced
            logger.warning("Room %s: interrupting Claude failed: %s", prompt.room_id, exc)
            await self.processes.discard(prompt.room_id)
        message = f"Claude did not finish within {self.config.turn_timeout_s:g} s; it was stopped."
        await self.fail(prompt.tools, AgentFailure(PROVIDER, message, FAILURE_CODE_TIMEOUT))

    # -- approvals ------------------------------------------------------------------------------

    def _can_use_tool(self, room_id: str) -> Any:
        from claude_agent_sdk.types import PermissionResultAllow, PermissionResultDeny

        async def decide(tool: str, args: dict[str, Any], context: Any) -> Any:
            if tool.startswith(MCP_PREFIX) or tool == TOOL_SEARCH:  # never gated
                return PermissionResultAllow()
            prompt = self._prompts.get(room_id)
            if prompt is None:  # no turn of this room is running: nobody to ask
                return PermissionResultDeny(message="No Band turn is running in this room")
            allowed, why = await self.ask_room(room_id, prompt, tool, args)
            return PermissionResultAllow() if allowed else PermissionResultDeny(message=why)

        return decide

    async def ask_room(
        self, room_id: str, prompt: Prompt, tool: str, args: dict[str, Any]
    ) -> tuple[bool, str]:
        """Let the room decide one of Claude's tool calls: allowed, else what Claude is told."""
        waiting = self.pending_approvals.setdefault(room_id, [])
        return await ask_room(self.relay, waiting, prompt, tool, args, _summary(tool, args))

    def approval_lines(self, room_id: str) -> list[str]:
        return pending_lines(self.pending_approvals.get(room_id, []))

    # -- room commands --------------------------------------------------------------------------

    def status_lines(self, room_id: str) -> list[str]:
        running = self.processes.running(room_id)
        session = self.known_sessions.get(room_id)
        model = self._models.get(room_id) or self.config.model or DEFAULT_MODEL
        return [
            f"Claude Code CLI `{self.cli_path or 'bundled with claude-agent-sdk'}`: {running}.",
            f"Session: `{session}`." if session else "Session: none yet.",
            f"Model: `{model}`. Permission mode: `{self.config.permission_mode}`.",
        ]

    def permission_lines(self, room_id: str) -> list[str]:
        mode = self.config.permission_mode
        if self.config.approvals is None:
            return [f"Claude's own tools follow permission mode `{mode}`; the room is not asked."]
        return [f"Permission mode `{mode}`; Claude's own tools are decided by the room."]

    async def model_command(self, room_id: str, args: tuple[str, ...]) -> str:
        current = self._models.get(room_id) or self.config.model or DEFAULT_MODEL
        if not args or args[0].lower() in ("list", "ls"):
            return f"Model in this room: `{current}`. Send `/model <id>` to use another one."
        proc = self.processes.current(room_id)
        if proc is not None and proc.alive:
            try:
                await proc.client.set_model(args[0])
            except Exception as exc:
                return f"Could not switch the model: {exc}."
        self._models[room_id] = args[0]
        return f"Model in this room is now `{args[0]}`."
