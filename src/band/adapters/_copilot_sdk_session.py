"""A room's Copilot session as ``CopilotSDKAdapter`` drives it: the session ids
(``RoomSessionIds``), the running prompt (``SessionTurn``), one turn's findings
(``TurnState``), ``CopilotRoom``, the supervisor's handle on it all, and Band's tools as
the session's native tools (``native_tools``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from band.adapters._coding.events import Reporter
from band.adapters._coding.supervisor import TransportClosed
from band.adapters._tool_events import run_band_tool
from band.core.protocols import AgentToolsProtocol
from band.core.types import TurnUsage
from band.integrations.copilot_sdk import CopilotSessionManager
from band.runtime.custom_tools import CustomToolDef

__all__ = [
    "CopilotRoom",
    "RoomSessionIds",
    "SessionTurn",
    "TurnState",
    "native_tools",
    "turn_incident",
]

logger = logging.getLogger("band.adapters.copilot_sdk")


@dataclass
class RoomSessionIds:
    """A room's Copilot session id: the one in use, and the one last posted to the room
    (its ``task`` event, read back on a restart)."""

    current: str | None = None
    persisted: str | None = None


@dataclass
class TurnState:
    """What one turn gathered from its session's events: whom to mention (the sender of
    the message it answers), reasoning blocks by id (the CLI repeats a block, each is
    reported once), its tokens, and trouble that explains a turn ending without a reply."""

    sender_mention: dict[str, str]
    reasonings: dict[str, str] = field(default_factory=dict)
    usage: TurnUsage = field(default_factory=TurnUsage)
    incidents: list[str] = field(default_factory=list)

    def add_usage(self, data: Any) -> None:
        """One model call's ``assistant.usage``, added to the turn's."""
        self.usage += TurnUsage(
            int(data.input_tokens or 0),
            int(data.output_tokens or 0),
            int(data.cache_read_tokens or 0),
            int(data.cache_write_tokens or 0),
        )


@dataclass
class SessionTurn:
    """The session a stop aborts, and whether its prompt is still running (set when sent,
    cleared when it returned; a prompt cancelled or failed leaves it set)."""

    session: Any
    prompting: bool = False


def turn_incident(kind: str, data: Any) -> str | None:
    """One line on a session event that can explain a silent turn, or None."""
    if kind == "model.call_failure":
        what = data.error_type or getattr(data.failure_kind, "value", None) or "unknown"
        status = f" (status {data.status_code})" if data.status_code is not None else ""
        return f"a model call failed: {what}{status} {data.error_message or ''}".rstrip()
    if kind == "assistant.turn_retry":
        return f"the turn was retried: {data.reason or 'no reason given'}"
    if kind == "session.warning":
        return f"warning {data.warning_type}: {data.message}"
    if kind == "abort":
        return f"aborted: {getattr(data.reason, 'value', data.reason)}"
    if kind == "tool.execution_complete" and data.success is False:
        error = getattr(data.error, "message", None) or "no details"
        return f"tool call {data.tool_call_id} failed: {error}"
    return None


class CopilotRoom:
    """A room's Copilot session on the shared client, kept by the adapter's
    ``CopilotSessionManager`` (which disconnects it and holds the room's turn lock)."""

    def __init__(
        self, room_id: str, session: Any, manager: CopilotSessionManager, created: bool
    ) -> None:
        self.room_id, self.manager, self.created = room_id, manager, created
        self.live = SessionTurn(session)
        self.events: list[Any] = []
        session.on(self.events.append)
        manager.store_session(room_id, session)

    @property
    def session(self) -> Any:
        return self.live.session

    @property
    def client(self) -> Any:
        return self.manager.client

    @property
    def alive(self) -> bool:
        """The client is connected and the CLI it spawned (if any) still runs: the SDK
        notices a dead CLI only at its next request."""
        process = cli_process(self.client)
        exited = process is not None and process.poll() is not None
        return not exited and client_state(self.client) not in ("disconnected", "error")

    @property
    def pid(self) -> int | None:
        pid = getattr(cli_process(self.client), "pid", None)
        return pid if isinstance(pid, int) else None

    @property
    def exit_description(self) -> str:
        process = cli_process(self.client)
        if process is not None and process.poll() is not None:
            return f"the Copilot CLI exited with code {process.returncode}"
        return f"the Copilot runtime is {client_state(self.client)}"

    async def send(self, text: str, limit_s: float) -> None:
        """``send_and_wait``, given up (``TransportClosed``) as soon as the CLI is gone:
        the SDK would wait for an idle event that never comes. Cancelled (a stop), it
        aborts the prompt still running, so its tools do not go on acting."""
        self.live.prompting = True
        work = asyncio.ensure_future(self.session.send_and_wait(text, timeout=limit_s))
        try:
            while not work.done():
                await asyncio.wait({work}, timeout=0.5)
                if not work.done() and not self.alive:
                    work.cancel()
                    await asyncio.gather(work, return_exceptions=True)
                    raise TransportClosed(self.exit_description)
        except asyncio.CancelledError:
            work.cancel()
            await self.abort()
            raise
        work.result()
        self.live.prompting = False

    async def abort(self) -> None:
        """Abort the running prompt, if one is (bounded: the runtime may be dead)."""
        if not self.live.prompting:
            return
        try:
            await asyncio.wait_for(self.session.abort(), 5)
        except Exception as exc:
            logger.info("Room %s: aborting its prompt failed: %s", self.room_id, exc)
        self.live.prompting = False

    async def close(self) -> None:
        if self.manager.get_session(self.room_id) is self.session:
            await self.manager.cleanup_session(self.room_id)


def cli_process(client: Any) -> Any:
    """The CLI process the client spawned (a ``Popen``; private in the SDK), or None."""
    return getattr(client, "_cli_process", None) or getattr(client, "_process", None)


def client_state(client: Any) -> str:
    """The client's connection state (the SDK keeps it private; no accessor in 1.0.27)."""
    return str(getattr(client, "_state", "unknown"))


def native_tools(
    schemas: list[dict[str, Any]],
    current: Callable[[], tuple[AgentToolsProtocol, Reporter] | None],
    custom: Sequence[CustomToolDef],
) -> list[Any]:
    """Band's tools (OpenAI ``schemas``) as Copilot ``Tool`` objects: each call runs on the
    room's turn of the moment (``current()``; None: no turn, the call fails) and is reported
    as a tool call and its result."""
    from copilot.tools import Tool, ToolResult

    def handler_for(name: str) -> Callable[[Any], Any]:
        async def handle(call: Any) -> Any:
            turn = current()
            if turn is None:
                return ToolResult(text_result_for_llm="Error: no turn", result_type="failure")
            tools, reporter = turn
            args = dict(call.arguments or {})
            await reporter.tool_call(name, args, call.tool_call_id)
            output, failed = await run_band_tool(tools, name, args, custom)
            await reporter.tool_result(name, output, call.tool_call_id, is_error=failed)
            return ToolResult(
                text_result_for_llm=output, result_type="failure" if failed else "success"
            )

        return handle

    return [
        Tool(
            name=s["function"]["name"],
            description=s["function"].get("description", ""),
            parameters=s["function"].get("parameters") or {"type": "object"},
            handler=handler_for(s["function"]["name"]),
            skip_permission=True,
        )
        for s in schemas
    ]
