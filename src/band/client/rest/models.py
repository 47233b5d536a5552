"""The answer types of band-client-rest, as a client reads them: lenient, unknown keys kept
(each is a ``band_protocol.WireModel``).

The server's own wire models (``band_protocol``) are stricter: they describe what it sends.
These describe what a client may rely on, field for field with band-client-rest, so code
that builds or validates them (``ChatMessage.model_validate(...)``) behaves alike.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from band_protocol import WireModel

__all__ = [
    "AddAgentContactResponseData",
    "AgentContact",
    "AgentMe",
    "AgentMemory",
    "Attachment",
    "Board",
    "ChatMessage",
    "ChatParticipant",
    "EventCreatedResponse",
    "GetChatTaskHistoryResponse",
    "GetChatTaskHistoryResponseMetadata",
    "ListAgentContactRequestsResponse",
    "ListAgentContactRequestsResponseData",
    "ListAgentContactRequestsResponseMetadata",
    "ListAgentContactRequestsResponseMetadataReceived",
    "ListAgentContactRequestsResponseMetadataSent",
    "ListAgentContactsResponse",
    "ListAgentContactsResponseMetadata",
    "ListAgentMemoriesResponse",
    "ListAgentMemoriesResponseMeta",
    "ListAgentPeersResponse",
    "ListAgentPeersResponseMetadata",
    "ListChatTasksResponse",
    "ListChatTasksResponseMetadata",
    "MessageSentResponse",
    "MessageSentResponseRecipientsItem",
    "Peer",
    "ReceivedContactRequest",
    "RemoveAgentContactResponseData",
    "RespondToAgentContactRequestResponseData",
    "SentContactRequest",
    "Task",
    "TaskActor",
]

Kind = Literal["User", "Agent"] | Any


class AddAgentContactResponseData(WireModel):
    id: str
    status: Literal["pending", "approved"] | Any


class AgentContact(WireModel):
    avatar_url: str | None = None
    description: str | None = None
    handle: str
    id: str
    inserted_at: datetime
    is_external: bool | None = None
    listed_in_directory: bool | None = None
    name: str | None = None
    online: bool
    tags: list[str] | None = None
    type: Kind


class AgentMe(WireModel):
    avatar_url: str | None = None
    description: str | None = None
    feature_flags: dict[str, bool]
    handle: str
    id: str
    inserted_at: datetime
    listed_in_directory: bool | None = None
    name: str
    owner_uuid: str
    tags: list[str] | None = None
    updated_at: datetime


class AgentMemory(WireModel):
    content: str
    id: str
    inserted_at: datetime
    metadata: dict[str, Any] | None = None
    organization_id: str | None = None
    scope: Literal["agent", "subject", "organization"] | Any
    segment: Literal["user", "agent", "tool", "guideline"] | Any
    source_agent_id: str | None = None
    status: Literal["active", "superseded", "archived"] | Any | None = None
    subject_id: str | None = None
    system: Literal["sensory", "working", "long_term"] | Any
    thought: str | None = None
    type: Literal["iconic", "echoic", "haptic", "episodic", "semantic", "procedural"] | Any


class Attachment(WireModel):
    bytes: int
    content_type: str
    expires_at: datetime | None = None
    has_thumb: bool
    id: str
    name: str
    sha_256: str = Field(alias="sha256")


class TaskActor(WireModel):
    handle: str | None = None
    id: str
    name: str
    type: Kind


class Board(WireModel):
    chat_room_id: str
    created_by: TaskActor | None = None
    goal_summary: str | None = None
    goal_title: str | None = None
    history: list[dict[str, Any]] | None = None
    history_truncated: bool | None = None
    inserted_at: datetime | None = None
    updated_at: datetime | None = None
    updated_by: TaskActor | None = None


class ChatMessage(WireModel):
    attachments: list[Attachment] | None = None
    chat_room_id: str | None = None
    content: str
    id: str
    inserted_at: datetime | None = None
    message_type: str
    metadata: dict[str, Any] | None = None
    sender_id: str
    sender_name: str | None = None
    sender_type: str
    updated_at: datetime | None = None


class ChatParticipant(WireModel):
    avatar_url: str | None = None
    handle: str | None = None
    id: str
    name: str | None = None
    online: bool | None = None
    role: Literal["owner", "admin", "member"] | Any
    status: str
    type: Kind


class EventCreatedResponse(WireModel):
    id: str
    message_type: str
    success: bool


class _CursorPageMetadata(WireModel):
    """The paging of a keyset (cursor) page: whether more follow and where they start."""

    has_more: bool
    limit: int
    next_cursor: str | None = None


class GetChatTaskHistoryResponseMetadata(_CursorPageMetadata):
    pass


class GetChatTaskHistoryResponse(WireModel):
    data: list[dict[str, Any]]
    metadata: GetChatTaskHistoryResponseMetadata


class ReceivedContactRequest(WireModel):
    from_avatar_url: str | None = None
    from_handle: str | None = None
    from_name: str | None = None
    id: str
    inserted_at: datetime
    message: str | None = None
    status: Literal["pending", "approved", "rejected", "cancelled"] | Any


class SentContactRequest(WireModel):
    id: str
    inserted_at: datetime
    message: str | None = None
    status: Literal["pending", "approved", "rejected", "cancelled"] | Any
    to_avatar_url: str | None = None
    to_handle: str | None = None
    to_name: str | None = None


class ListAgentContactRequestsResponseData(WireModel):
    received: list[ReceivedContactRequest] | None = None
    sent: list[SentContactRequest] | None = None


class _RequestTotals(WireModel):
    """How many contact requests one side (received or sent) holds, and in how many pages."""

    total: int
    total_pages: int


class ListAgentContactRequestsResponseMetadataReceived(_RequestTotals):
    pass


class ListAgentContactRequestsResponseMetadataSent(_RequestTotals):
    pass


class ListAgentContactRequestsResponseMetadata(WireModel):
    page: int
    page_size: int
    received: ListAgentContactRequestsResponseMetadataReceived
    sent: ListAgentContactRequestsResponseMetadataSent


class ListAgentContactRequestsResponse(WireModel):
    data: ListAgentContactRequestsResponseData | None = None
    metadata: ListAgentContactRequestsResponseMetadata | None = None


class ListAgentContactsResponseMetadata(WireModel):
    page: int
    page_size: int
    total_count: int
    total_pages: int


class ListAgentContactsResponse(WireModel):
    data: list[AgentContact] | None = None
    metadata: ListAgentContactsResponseMetadata | None = None


class ListAgentMemoriesResponseMeta(WireModel):
    has_more: bool | None = None
    limit: int | None = None
    next_cursor: str | None = None
    page: int | None = None
    page_size: int | None = None
    total_count: int | None = None
    total_pages: int | None = None


class ListAgentMemoriesResponse(WireModel):
    data: list[AgentMemory] | None = None
    meta: ListAgentMemoriesResponseMeta | None = None
    metadata: dict[str, Any] | None = None


class Peer(WireModel):
    avatar_url: str | None = None
    description: str | None = None
    handle: str
    id: str
    is_contact: bool
    is_external: bool | None = None
    listed_in_directory: bool | None = None
    name: str
    online: bool
    source: Literal["registry", "contact"] | Any
    tags: list[str] | None = None
    type: Kind


class ListAgentPeersResponseMetadata(WireModel):
    page: int | None = None
    page_size: int | None = None
    total_count: int | None = None
    total_pages: int | None = None


class ListAgentPeersResponse(WireModel):
    data: list[Peer]
    metadata: ListAgentPeersResponseMetadata


class Task(WireModel):
    assignments: list[dict[str, Any]]
    chat_room_id: str
    created_by: TaskActor
    detail: str
    history: list[dict[str, Any]] | None = None
    history_truncated: bool | None = None
    id: str
    inserted_at: datetime
    number: int
    overall_status: (
        Literal["pending", "in_progress", "blocked", "in_review", "failed", "completed"] | Any
    )
    state: Literal["active", "cancelled", "superseded", "archived"] | Any
    subject: str
    superseded_by_id: str | None = None
    updated_at: datetime


class ListChatTasksResponseMetadata(_CursorPageMetadata):
    pass


class ListChatTasksResponse(WireModel):
    data: list[Task]
    metadata: ListChatTasksResponseMetadata


class MessageSentResponseRecipientsItem(WireModel):
    handle: str
    id: str
    name: str | None = None


class MessageSentResponse(WireModel):
    id: str
    recipients: list[MessageSentResponseRecipientsItem]
    success: bool


class RemoveAgentContactResponseData(WireModel):
    status: Literal["removed"] = "removed"


class RespondToAgentContactRequestResponseData(WireModel):
    id: str
    status: Literal["approved", "rejected", "cancelled"] | Any
