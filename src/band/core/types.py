"""The vocabulary adapters speak: messages, features, capabilities, emit kinds, input."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
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
    "ContactRequestAction",
    "ContactRequestStatus",
    "Emit",
    "FeatureKwargs",
    "HistoryProvider",
    "MessageType",
    "PlatformConnection",
    "PlatformMessage",
    "ToolEventKey",
    "TurnUsage",
    "delivery_status_for_agent",
    "is_contact_hub_turn",
    "is_usage_event",
    "metadata_to_dict",
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


class ContactRequestStatus(StrEnum):
    """A contact request's lifecycle status."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    CANCELLED = "cancelled"


class ContactRequestAction(StrEnum):
    """What ``band_respond_contact_request`` can do with a request."""

    APPROVE = "approve"
    REJECT = "reject"
    CANCEL = "cancel"


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


@dataclass(frozen=True, init=False)
class AdapterFeatures:
    """The resolved features of an adapter (``adapter.features``); any iterables are frozen."""

    capabilities: frozenset[Capability]
    emit: frozenset[Emit]
    include_tools: tuple[str, ...] | None
    exclude_tools: tuple[str, ...] | None
    include_categories: tuple[str, ...] | None

    def __init__(
        self,
        *,
        capabilities: Iterable[Capability] = (),
        emit: Iterable[Emit] = (),
        include_tools: Iterable[str] | None = None,
        exclude_tools: Iterable[str] | None = None,
        include_categories: Iterable[str] | None = None,
    ) -> None:
        def names(value: Iterable[str] | None) -> tuple[str, ...] | None:
            return None if value is None else tuple(value)

        object.__setattr__(self, "capabilities", frozenset(capabilities))
        object.__setattr__(self, "emit", frozenset(emit))
        object.__setattr__(self, "include_tools", names(include_tools))
        object.__setattr__(self, "exclude_tools", names(exclude_tools))
        object.__setattr__(self, "include_categories", names(include_categories))


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

    def __add__(self, other: TurnUsage) -> TurnUsage:
        """Both counts together (a turn's model calls summed)."""
        return TurnUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


def metadata_to_dict(metadata: object, *, exclude_none: bool = False) -> dict[str, Any]:
    """Message or event metadata as a plain dict, whether a dict or a pydantic model came."""
    if isinstance(metadata, dict):
        return metadata
    dump = getattr(metadata, "model_dump", None)
    if callable(dump):
        dumped = dump(exclude_none=exclude_none)
        return dumped if isinstance(dumped, dict) else {}
    return {}


def is_usage_event(metadata: object) -> bool:
    """Whether an event's metadata marks it as a usage record (``band_usage``), not a task."""
    return USAGE_METADATA_KEY in metadata_to_dict(metadata)


def delivery_status_for_agent(metadata: Any, agent_id: str | None) -> str | None:
    """This agent's delivery status as the message's ``delivery_status`` metadata says."""
    statuses = metadata_to_dict(metadata).get("delivery_status")
    entry = statuses.get(agent_id) if isinstance(statuses, dict) else None
    status = entry.get("status") if isinstance(entry, dict) else None
    return status if isinstance(status, str) else None


# The sender of the contact notes the SDK writes into a hub room itself.
SYNTHETIC_SENDER_TYPE = "System"
SYNTHETIC_CONTACT_EVENTS_SENDER_ID = "contact-events"
SYNTHETIC_CONTACT_EVENTS_SENDER_NAME = "Contact Events"


def is_contact_hub_turn(*, sender_type: str | None, sender_id: str | None) -> bool:
    """Whether a message is a contact note the SDK injected into the hub room."""
    return sender_type == SYNTHETIC_SENDER_TYPE and sender_id == SYNTHETIC_CONTACT_EVENTS_SENDER_ID


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

    raw: list[dict[str, Any]]

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
