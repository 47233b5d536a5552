"""The room as the room view sees it: who the agent is, who is there, what was said, and
the transcript and events the tools return (their JSON is what the view renders)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from band.core.types import MessageType
from band.integrations.desktop_app.event_relay import RelayStatus
from band.integrations.desktop_app.tools import DEFAULT_ATTENTION, AttentionMode
from band.runtime.formatters import replace_uuid_mentions

__all__ = [
    "EPOCH",
    "AgentIdentity",
    "HostProfile",
    "MonitoringStatus",
    "RoomEvent",
    "RoomMessage",
    "RoomParticipant",
    "RoomParticipantType",
    "RoomTranscript",
    "bare_handle",
    "parse_timestamp",
]

EPOCH = datetime.fromtimestamp(0, tz=UTC)


def bare_handle(value: str | None) -> str:
    """A handle without its leading ``@`` ("" for none)."""
    return (value or "").lstrip("@")


def parse_timestamp(value: str | None) -> datetime | None:
    """An ISO 8601 cursor as an aware datetime (naive means UTC); None when absent or bad."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class RoomParticipantType(StrEnum):
    USER = "user"
    AGENT = "agent"


class _Party(BaseModel):
    """Who someone is (the agent itself, or a member of the room): id, name and handle."""

    model_config = ConfigDict(extra="allow")

    id: str = ""
    name: str | None = None
    handle: str | None = None

    @property
    def bare_handle(self) -> str:
        return bare_handle(self.handle)


class AgentIdentity(_Party):
    """The Band agent this Desktop conversation acts as (``GET /agent/me``)."""

    description: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.bare_handle or self.id or "the connected Band agent"


class RoomParticipant(_Party):
    """One member of the room."""

    type: str | None = None
    role: str | None = None

    @property
    def is_human(self) -> bool:
        return (self.type or "").casefold() == RoomParticipantType.USER

    def describe(self) -> str:
        """``Name (@handle, type, role)``, leaving out what is unknown."""
        traits = [
            t
            for t in (
                f"@{self.bare_handle}" if self.bare_handle else "",
                (self.type or "").casefold(),
                (self.role or "").casefold(),
            )
            if t
        ]
        label = self.name or self.bare_handle or self.id or "unknown"
        return f"{label} ({', '.join(traits)})" if traits else label


class RoomMessage(BaseModel):
    """One message of the agent's context in the room."""

    model_config = ConfigDict(extra="allow")

    id: str = ""
    content: str = ""
    sender_id: str = ""
    sender_type: str = ""
    sender_name: str | None = None
    message_type: str = MessageType.TEXT
    metadata: dict[str, Any] = Field(default_factory=dict)
    inserted_at: datetime | None = None
    addressed_to_viewer: bool = False

    @field_validator("id", "content", "sender_id", "sender_type", mode="before")
    @classmethod
    def _none_is_blank(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("message_type", mode="before")
    @classmethod
    def _text_by_default(cls, value: Any) -> Any:
        return value or MessageType.TEXT

    @field_validator("metadata", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return value or {}

    @field_validator("inserted_at")
    @classmethod
    def _utc_when_naive(cls, value: datetime | None) -> datetime | None:
        return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value

    @property
    def at(self) -> datetime:
        """When it was sent (an undated message sorts first)."""
        return self.inserted_at or EPOCH

    @property
    def is_text(self) -> bool:
        return self.message_type.casefold() == MessageType.TEXT

    def addresses(self, viewer: AgentIdentity) -> bool:
        """Whether the message mentions ``viewer`` (by id or handle, or an ``@[[id]]`` marker)."""
        handle = viewer.bare_handle.casefold()
        for mention in self.metadata.get("mentions") or []:
            if not isinstance(mention, dict):
                continue
            if viewer.id and str(mention.get("id") or "") == viewer.id:
                return True
            named = str(mention.get("handle") or mention.get("username") or "")
            if handle and bare_handle(named).casefold() == handle:
                return True
        return bool(viewer.id and f"@[[{viewer.id}]]" in self.content)

    def truncate(self, limit: int) -> None:
        if len(self.content) > limit:
            self.content = f"{self.content[:limit]}… [truncated]"

    def render_mentions(self, participants: list[RoomParticipant]) -> None:
        """Stored ``@[[id]]`` markers as ``@handle``, so the agent never copies the marker."""
        roster = [p.model_dump() for p in participants]
        self.content = replace_uuid_mentions(self.content, roster)


class HostProfile(BaseModel):
    """What the MCP host (Claude Desktop) declared about itself when it connected."""

    captured: bool = False
    name: str = ""
    version: str = ""
    sampling: bool = False
    elicitation: bool = False
    roots: bool = False
    tasks: bool = False
    experimental: list[str] = Field(default_factory=list)

    @classmethod
    def from_client_params(cls, params: Any) -> HostProfile:
        """From the host's ``initialize`` parameters."""
        caps = params.capabilities
        return cls(
            captured=True,
            name=params.clientInfo.name,
            version=params.clientInfo.version,
            sampling=caps.sampling is not None,
            elicitation=caps.elicitation is not None,
            roots=caps.roots is not None,
            tasks=getattr(caps, "tasks", None) is not None,
            experimental=sorted(caps.experimental or {}),
        )

    @property
    def can_be_woken(self) -> bool:
        """Whether the server could start a model turn itself (sampling)."""
        return self.sampling


class MonitoringStatus(BaseModel):
    """How long since the agent's own monitor loop last called, and whether it stopped."""

    idle_seconds: float | None = None
    stale: bool = False

    @property
    def idle_for(self) -> str:
        seconds = int(self.idle_seconds or 0)
        return f"{seconds // 60}m {seconds % 60}s" if seconds >= 60 else f"{seconds}s"


class RoomTranscript(BaseModel):
    """What the agent sees of a room at one moment."""

    chat_id: str
    viewer: AgentIdentity
    participants: list[RoomParticipant] = Field(default_factory=list)
    messages: list[RoomMessage] = Field(default_factory=list)
    pending_requests: list[RoomMessage] = Field(default_factory=list)
    role_briefing: str = ""
    monitoring_notice: str = ""
    attention: AttentionMode = DEFAULT_ATTENTION
    next_since: datetime = EPOCH
    transport: RelayStatus = Field(default_factory=RelayStatus)
    monitoring: MonitoringStatus = Field(default_factory=MonitoringStatus)
    host: HostProfile = Field(default_factory=HostProfile)
    refreshed_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @property
    def resume_token(self) -> str:
        """``next_since`` as the JSON spells it (``...Z``)."""
        return self.next_since.isoformat().replace("+00:00", "Z")

    @property
    def peers(self) -> list[RoomParticipant]:
        return [p for p in self.participants if p.id != self.viewer.id]

    @property
    def humans(self) -> list[RoomParticipant]:
        return [p for p in self.peers if p.is_human]


class RoomEvent(RoomTranscript):
    """A transcript returned by the monitor: whether the room's socket reported a change, and
    whether a newer view instance took this room's display over."""

    event_received: bool
    superseded: bool = False

    def tick(self) -> RoomEvent:
        """This event without the roster and briefing the caller already has."""
        return self.model_copy(update={"participants": [], "role_briefing": ""})
