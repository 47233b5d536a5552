"""ACP's vocabulary on both sides: the server's (stop reasons, the sessions kept in history, a
prompt in flight) and the client's (parsed update chunks, tool calls and their results)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

from band.runtime.tools.registry import mcp_tool_spelling
from band_sdk_core import AgentFailure

__all__ = [
    "ACPServerUpdate",
    "ACPSessionState",
    "ACPStopReason",
    "ACPToolCall",
    "ACPToolResult",
    "ChunkType",
    "CollectedChunk",
    "ConcurrentPromptError",
    "PendingACPPrompt",
    "PromptOutcome",
    "ToolCallRoomEvent",
    "ToolResultRoomEvent",
    "ToolStatus",
]


class ACPStopReason(StrEnum):
    """How a prompt ended, as ``session/prompt`` answers it."""

    END_TURN = "end_turn"
    CANCELLED = "cancelled"


class ACPServerUpdate(StrEnum):
    """The session update kinds the Band ACP server builds itself."""

    AGENT_MESSAGE_CHUNK = "agent_message_chunk"


PromptOutcome = ACPStopReason | AgentFailure


class ConcurrentPromptError(ValueError):
    """The session's room already has a prompt waiting for its peers."""


@dataclass
class ACPSessionState:
    """The editor sessions a room's history names (its ``ACP session context`` events)."""

    session_to_room: dict[str, str] = field(default_factory=dict)
    session_cwd: dict[str, str] = field(default_factory=dict)
    session_mcp_servers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class PendingACPPrompt:
    """One editor prompt waiting in its room.

    ``waiting_for``: the peers asked (ids) that have not replied yet; once it is empty (and a
    short quiet period passed) the prompt ends ``end_turn``; ``reply_started`` is set when
    that quiet period opens. ``outcome`` is the first
    terminal result; ``done_event`` is set with it.
    """

    session_id: str
    done_event: asyncio.Event = field(default_factory=asyncio.Event)
    outcome: PromptOutcome | None = None
    completion_task: asyncio.Task[None] | None = None
    posted: bool = False
    reply_started: bool = False
    waiting_for: set[str] = field(default_factory=set, kw_only=True)

    def finish(self, outcome: PromptOutcome | None) -> None:
        """Settle once (a later outcome is ignored) and stop a scheduled completion."""
        if self.outcome is None and outcome is not None:
            self.outcome = outcome
        if self.completion_task is not None and self.completion_task is not asyncio.current_task():
            self.completion_task.cancel()
        self.done_event.set()


class ChunkType(StrEnum):
    """What a parsed ACP ``session/update`` is, for whoever passes it on to a room."""

    TEXT = "text"
    THOUGHT = "thought"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    PLAN = "plan"


class ToolStatus(StrEnum):
    """A tool call's status as ACP ``tool_call`` / ``tool_call_update`` report it."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"


class ToolCallRoomEvent(BaseModel):
    """A tool call as a room's ``tool_call`` event carries it."""

    model_config = ConfigDict(frozen=True)

    name: str
    args: dict[str, JsonValue]
    tool_call_id: str


class ToolResultRoomEvent(BaseModel):
    """A tool's result as a room's ``tool_result`` event carries it."""

    model_config = ConfigDict(frozen=True)

    name: str
    output: str
    tool_call_id: str
    is_error: bool


# The ``rawInput`` keys under which agents report an MCP call: codex-acp's, then Cursor's.
MCP_INVOCATION_KEYS = (("server", "tool", "arguments"), ("providerIdentifier", "toolName", "args"))


def mcp_invocation(raw_input: object) -> tuple[str, str, dict[str, JsonValue]] | None:
    """``(server, tool, arguments)`` of an MCP call an agent reports in ``rawInput``."""
    if not isinstance(raw_input, dict):
        return None
    for server_key, tool_key, args_key in MCP_INVOCATION_KEYS:
        server, tool = raw_input.get(server_key), raw_input.get(tool_key)
        if isinstance(server, str) and isinstance(tool, str) and tool:
            args = raw_input.get(args_key)
            return server, tool, args if isinstance(args, dict) else {}
    return None


@dataclass(frozen=True)
class ACPToolCall:
    """A tool call an agent reported, its name as the room should see it."""

    tool_call_id: str
    name: str
    arguments: dict[str, JsonValue]
    mcp_server: str | None = None
    title: str | None = None

    @classmethod
    def from_acp(
        cls, tool_call: object, canonicalize: Callable[[str], str] | None = None
    ) -> ACPToolCall:
        """Read an ACP tool call (``tool_call`` update or permission request's call).

        An MCP call reported in ``rawInput`` is named ``<server>-<tool>`` with its
        arguments; otherwise the title (or ``name``) and the raw input are taken.
        ``canonicalize`` then rewrites the name (an agent's spelling of a Band tool).
        """
        raw = getattr(tool_call, "raw_input", None)
        title = getattr(tool_call, "title", None)
        call = mcp_invocation(raw)
        if call is not None:
            server, tool, arguments = call
            name = mcp_tool_spelling(server, tool)
        else:
            server = None
            name = str(title or getattr(tool_call, "name", None) or "unknown")
            arguments = raw if isinstance(raw, dict) else {}
        return cls(
            tool_call_id=str(getattr(tool_call, "tool_call_id", "") or ""),
            name=canonicalize(name) if canonicalize is not None else name,
            arguments=arguments,
            mcp_server=server,
            title=title if isinstance(title, str) else None,
        )

    def room_event(self) -> ToolCallRoomEvent:
        return ToolCallRoomEvent(
            name=self.name, args=self.arguments, tool_call_id=self.tool_call_id
        )


@dataclass
class ACPToolResult:
    """How an ``ACPToolCall`` ended: its output text and final status."""

    call: ACPToolCall
    output: str
    status: ToolStatus | str | None

    @property
    def is_error(self) -> bool:
        return self.status == ToolStatus.FAILED

    def room_event(self) -> ToolResultRoomEvent:
        return ToolResultRoomEvent(
            name=self.call.name,
            output=self.output,
            tool_call_id=self.call.tool_call_id,
            is_error=self.is_error,
        )


@dataclass
class CollectedChunk:
    """One parsed ``session/update`` of a remote agent, kept for the room.

    ``chunk_type`` is a ``ChunkType``; ``content`` the readable text; ``metadata`` extra
    facts (tool call id, status). For tool results, ``from_raw`` says the text is a
    stringified ``rawOutput`` rather than content blocks, and ``echo`` holds structured
    content found repeated in (and removed from) the text. ``tool`` is the call or result
    itself, for tool chunks.
    """

    chunk_type: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    from_raw: bool = False
    echo: dict[str, Any] | None = None
    tool: ACPToolCall | ACPToolResult | None = None
