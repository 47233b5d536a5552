"""Messages, events and the delivery lifecycle."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool

from ._base import RequestModel, WireModel
from .files import MAX_ATTACHMENTS, Attachment

__all__ = [
    "EVENT_TYPES",
    "MAX_EVENT_CHARS",
    "MAX_MESSAGE_CHARS",
    "WORKING_HEADER",
    "ActivityBody",
    "ActivityResponse",
    "ChatMessage",
    "EventCreateBody",
    "EventCreatedResponse",
    "FailedBody",
    "Mention",
    "MentionRef",
    "MessageCreateBody",
    "MessageSentResponse",
    "MessageStatusResponse",
    "Recipient",
    "says_true",
]

SenderType = Literal["User", "Agent", "System"]
EventType = Literal["tool_call", "tool_result", "thought", "error", "task", "attention"]
DeliveryStatus = Literal["delivered", "processing", "processed", "failed"]

EVENT_TYPES: tuple[str, ...] = ("tool_call", "tool_result", "thought", "error", "task", "attention")
MAX_EVENT_CHARS = 16_384
MAX_MESSAGE_CHARS = 32_768


class Mention(WireModel):
    id: str
    handle: str | None = None
    name: str | None = None
    username: str | None = None


class ChatMessage(WireModel):
    id: str
    chat_room_id: str
    content: str
    message_type: str
    sender_id: str
    sender_type: SenderType
    sender_name: str | None = None
    metadata: dict[str, Any] = {}
    attachments: list[Attachment] = []
    seq: int | None = None
    inserted_at: str
    updated_at: str


class MentionRef(RequestModel):
    """An outbound mention: by ``id``, by ``handle``, or both."""

    id: str | None = Field(default=None, max_length=200)
    handle: str | None = Field(default=None, max_length=200)
    name: str | None = Field(default=None, max_length=200)
    kind: Literal["mention", "reference"] = "mention"


class MessageCreateFields(RequestModel):
    content: str = Field(max_length=MAX_MESSAGE_CHARS)
    mentions: list[MentionRef] = Field(default_factory=list, max_length=50)
    attachment_ids: list[str] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)
    turn_id: str | None = Field(
        default=None,
        max_length=64,
        description="openband extension: the id of the message whose turn an agent's reply "
        "answers (kept as `metadata.turn_id`; our SDK sends it, others may leave it out)",
    )


class MessageCreateBody(RequestModel):
    message: MessageCreateFields


class Recipient(WireModel):
    id: str
    handle: str
    name: str | None = None


class MessageSentResponse(WireModel):
    id: str
    success: bool = True
    recipients: list[Recipient]


class EventCreateFields(RequestModel):
    content: str = Field(max_length=MAX_EVENT_CHARS)
    message_type: EventType
    metadata: dict[str, Any] | None = None


class EventCreateBody(RequestModel):
    event: EventCreateFields


class EventCreatedResponse(WireModel):
    id: str
    message_type: str
    success: bool = True


WORKING_HEADER = "Band-Working"
"""Sent ``true`` on a claim (``/processing``): start the working indicator with it. A platform
that did answers with the same header; its ``/processed`` and ``/failed`` of that message then
end it. One that does not know it ignores it (docs/protocol-decisions.md)."""


def says_true(header: str | None) -> bool:
    """Whether a ``Band-Working`` header (request or answer) says ``true``."""
    return header is not None and header.strip().lower() == "true"


class MessageStatusResponse(WireModel):
    id: str
    status: Literal["processing", "processed", "failed"]
    attempt_number: int
    success: bool = True


class FailedBody(RequestModel):
    # Not bounded here: an over-long error is cut by the server, never refused (a refused
    # /failed would leave the client's ack unconfirmed).
    error: str | None = None


class ActivityBody(RequestModel):
    working: StrictBool  # a JSON boolean: 0 or "true" is refused


class ActivityResponse(WireModel):
    working: bool
