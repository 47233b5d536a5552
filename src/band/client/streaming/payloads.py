"""The socket's typed payloads and event names: what ``WebSocketClient`` hands its callbacks.

Each payload extends the wire package's push model (``band_protocol.pushes``, and
``band_protocol.socket`` for control and supersede) with ``WirePayload``'s rules;
``PAYLOAD_MODELS`` maps an event name to the model that validates it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from band.platform.event import WebSocketDisconnectReason
from band_protocol import pushes, socket

from .wire import WirePayload

__all__ = [
    "AgentControlPayload",
    "ContactAddedPayload",
    "ContactRemovedPayload",
    "ContactRequestReceivedPayload",
    "ContactRequestUpdatedPayload",
    "ControlMode",
    "DeliveryStatus",
    "Mention",
    "MessageCreatedPayload",
    "MessageMetadata",
    "ParticipantAddedPayload",
    "ParticipantRemovedPayload",
    "RoomAddedPayload",
    "RoomDeletedPayload",
    "RoomRemovedPayload",
    "SupersedePayload",
    "WireEvent",
]


class DeliveryStatus(StrEnum):
    """A recipient's state of a message: delivered, processing, then processed or failed."""

    DELIVERED = "delivered"
    PROCESSING = "processing"
    PROCESSED = "processed"
    FAILED = "failed"


class ControlMode(StrEnum):
    """The modes of an ``agent.control`` signal."""

    INTERRUPT = "interrupt"
    STOP = "stop"
    PLAY = "play"


# The push payloads are ``band_protocol``'s models (one source of push shapes) on the
# ``WirePayload`` base; band-sdk's client requires, loosens or adds a few fields, so each
# class below restates only those.


class Mention(pushes.MessageMention, WirePayload):
    """One participant a message mentions."""


class MessageMetadata(pushes.MessageMetadata, WirePayload):
    """``metadata`` of a pushed message: its mentions and delivery states."""

    mentions: list[Mention] = Field(default_factory=list)  # type: ignore[assignment]  # narrowed


class MessageCreatedPayload(pushes.MessageCreatedPayload, WirePayload):
    """``message_created`` (and ``message_updated``) on ``chat_room:<id>``."""

    metadata: MessageMetadata | None = None


class RoomAddedPayload(pushes.RoomAddedPayload, WirePayload):
    """``room_added`` on ``agent_rooms:<agent>`` and ``user_rooms:<user>``."""

    inserted_at: str
    updated_at: str


class RoomRemovedPayload(RoomAddedPayload):
    """``room_removed`` on ``agent_rooms:<agent>`` and ``user_rooms:<user>``."""


class RoomDeletedPayload(pushes.RoomDeletedPayload, WirePayload):
    """``room_deleted`` on ``room_participants:<room>``."""


class ParticipantAddedPayload(pushes.ParticipantAddedPayload, WirePayload):
    """``participant_added`` on ``room_participants:<room>``."""

    name: str
    type: str


class ParticipantRemovedPayload(pushes.ParticipantRemovedPayload, WirePayload):
    """``participant_removed`` on ``room_participants:<room>``."""

    name: str
    type: str


class ContactRequestReceivedPayload(pushes.ContactRequestReceivedPayload, WirePayload):
    """``contact_request_received`` on ``agent_contacts:<agent>``."""

    status: str
    inserted_at: str


class ContactRequestUpdatedPayload(pushes.ContactRequestUpdatedPayload, WirePayload):
    """``contact_request_updated`` on ``agent_contacts:<agent>``."""

    status: str


class ContactAddedPayload(pushes.ContactAddedPayload, WirePayload):
    """``contact_added`` on ``agent_contacts:<agent>``."""

    type: str
    inserted_at: str


class ContactRemovedPayload(pushes.ContactRemovedPayload, WirePayload):
    """``contact_removed`` on ``agent_contacts:<agent>``."""


class AgentControlPayload(socket.AgentControl, WirePayload):
    """Interrupt, stop or play; ``room_id`` None reaches every room (dedupe on correlation)."""

    mode: ControlMode  # type: ignore[assignment]  # the wire's literals, as an enum
    correlation_id: str | None = None  # type: ignore[assignment]  # loosened
    type: str | None = None
    reason: str | None = None


class SupersedePayload(socket.Supersede, WirePayload):
    """Another connection of this agent took over."""

    reason: str
    message: str
    retryable: bool
    retry_after: int | None = None
    target_socket_id: str | None = None

    def to_disconnect_reason(self, outcome: Any = None) -> WebSocketDisconnectReason:
        return WebSocketDisconnectReason(
            reason=self.reason,
            message=self.message,
            retryable=self.retryable,
            retry_after=self.retry_after,
            target_socket_id=self.target_socket_id,
            correlation_id=self.correlation_id,
            dead_reason=getattr(outcome, "dead_reason", None),
            stale_reason=getattr(outcome, "stale_reason", None),
        )


class WireEvent(StrEnum):
    """The event names pushed over the socket."""

    MESSAGE_CREATED = "message_created"
    MESSAGE_UPDATED = "message_updated"
    ROOM_ADDED = "room_added"
    ROOM_REMOVED = "room_removed"
    ROOM_DELETED = "room_deleted"
    PARTICIPANT_ADDED = "participant_added"
    PARTICIPANT_REMOVED = "participant_removed"
    CONTACT_REQUEST_RECEIVED = "contact_request_received"
    CONTACT_REQUEST_UPDATED = "contact_request_updated"
    CONTACT_ADDED = "contact_added"
    CONTACT_REMOVED = "contact_removed"
    SUPERSEDE = "supersede"
    AGENT_CONTROL = "agent.control"
    EVENT_CREATED = "event_created"
    TASK_CREATED = "task_created"
    TASK_UPDATED = "task_updated"


PAYLOAD_MODELS: dict[str, type[WirePayload]] = {
    WireEvent.MESSAGE_CREATED: MessageCreatedPayload,
    WireEvent.MESSAGE_UPDATED: MessageCreatedPayload,
    WireEvent.ROOM_ADDED: RoomAddedPayload,
    WireEvent.ROOM_REMOVED: RoomRemovedPayload,
    WireEvent.ROOM_DELETED: RoomDeletedPayload,
    WireEvent.PARTICIPANT_ADDED: ParticipantAddedPayload,
    WireEvent.PARTICIPANT_REMOVED: ParticipantRemovedPayload,
    WireEvent.CONTACT_REQUEST_RECEIVED: ContactRequestReceivedPayload,
    WireEvent.CONTACT_REQUEST_UPDATED: ContactRequestUpdatedPayload,
    WireEvent.CONTACT_ADDED: ContactAddedPayload,
    WireEvent.CONTACT_REMOVED: ContactRemovedPayload,
    WireEvent.SUPERSEDE: SupersedePayload,
    WireEvent.AGENT_CONTROL: AgentControlPayload,
}
KNOWN_UNHANDLED_EVENTS = frozenset({WireEvent.EVENT_CREATED})
