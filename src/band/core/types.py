"""The vocabulary adapters speak: messages, features, capabilities, emit kinds, input."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, TypedDict, TypeVar

from ._flags import ALL_CAPABILITIES, Capability, Emit
from ._tool_protocols import AgentToolsProtocol, HistoryConverter

__all__ = [
    "ALL_CAPABILITIES",
    "USAGE_EVENT_TYPE",
    "USAGE_METADATA_KEY",
    "AdapterFeatures",
    "AgentInput",
    "Capability",
    "ConflictPolicy",
    "Emit",
    "FeatureKwargs",
    "HistoryProvider",
    "MessageType",
    "PlatformConnection",
    "PlatformMessage",
    "ToolEventKey",
    "TurnUsage",
]

USAGE_EVENT_TYPE = "task"
USAGE_METADATA_KEY = "band_usage"

_T = TypeVar("_T")


class MessageType(StrEnum):
    """Kinds of room entries: text messages and the event types."""

    TEXT = "text"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    THOUGHT = "thought"
    ERROR = "error"
    TASK = "task"
    USAGE = "usage"


class ToolEventKey(StrEnum):
    """JSON keys of tool_call / tool_result event content."""

    NAME = "name"
    ARGS = "args"
    OUTPUT = "output"
    TOOL_CALL_ID = "tool_call_id"
    IS_ERROR = "is_error"


class ConflictPolicy(StrEnum):
    """What the platform does when a second connection of the same agent arrives."""

    SUPERSEDE = "supersede"
    REJECT = "reject"


class FeatureKwargs(TypedDict, total=False):
    """Feature keywords every ``SimpleAdapter`` constructor accepts."""

    emit: Emit | Iterable[Emit]
    capabilities: Capability | Iterable[Capability]
    include_tools: Iterable[str]
    exclude_tools: Iterable[str]
    include_categories: Iterable[str]


@dataclass(frozen=True)
class AdapterFeatures:
    """The resolved features of an adapter (``adapter.features``)."""

    capabilities: frozenset[Capability] = frozenset()
    emit: frozenset[Emit] = frozenset()
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] | None = None
    include_categories: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TurnUsage:
    """Token usage of one turn."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __bool__(self) -> bool:
        return any(
            (self.input_tokens, self.output_tokens, self.cache_read_tokens, self.cache_write_tokens)
        )


@dataclass(frozen=True)
class PlatformConnection:
    """How to reach the platform; the runtime injects it as ``adapter.platform``."""

    agent_id: str
    api_key: str
    rest_url: str
    ws_url: str


@dataclass(frozen=True)
class PlatformMessage:
    """The message that triggered a turn, as an adapter receives it."""

    id: str
    room_id: str
    content: str
    sender_id: str
    sender_type: str
    sender_name: str | None
    message_type: str
    metadata: Any
    created_at: datetime

    def format_for_llm(self) -> str:
        """``[<name>]: <content>``; the name falls back to sender_type, then ``Unknown``."""
        name = self.sender_name or self.sender_type or "Unknown"
        return f"[{name}]: {self.content}"


@dataclass(frozen=True)
class HistoryProvider:
    """Raw room history (list of dicts) handed to adapters without a converter."""

    raw: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.raw)

    def __bool__(self) -> bool:
        return bool(self.raw)

    def convert(self, converter: HistoryConverter[_T]) -> _T:
        """Run a converter over the raw items."""
        return converter.convert(self.raw)


@dataclass(frozen=True)
class AgentInput:
    """Everything one turn needs; what the runtime hands to ``adapter.on_event``."""

    msg: PlatformMessage
    tools: AgentToolsProtocol
    history: HistoryProvider
    participants_msg: str | None
    contacts_msg: str | None
    is_session_bootstrap: bool
    room_id: str
    commit_context: Any = None
