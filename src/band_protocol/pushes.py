"""Payloads the platform pushes over the socket, as typed models read by attribute.

One model per pushed event (``message_created``, ``room_added`` ...). They are lenient
(unknown keys kept, optional fields default to None), because the link has already checked
presence and JSON types with ``band_protocol.validate_event_payload``.
"""

from __future__ import annotations

from typing import Any

from ._base import WireModel
from .messages import Mention as MessageMention  # one participant a message mentions
from .rooms import RoomEvent

__all__ = [
    "ContactAddedPayload",
    "ContactRemovedPayload",
    "ContactRequestReceivedPayload",
    "ContactRequestUpdatedPayload",
    "MessageCreatedPayload",
    "MessageMention",
    "MessageMetadata",
    "ParticipantAddedPayload",
    "ParticipantRemovedPayload",
    "RoomAddedPayload",
    "RoomDeletedPayload",
    "RoomRemovedPayload",
]


class MessageMetadata(WireModel):
    """``metadata`` of a pushed message: its mentions and delivery states."""

    mentions: list[MessageMention] = []
    status: str | None = None
    delivery_status: dict[str, Any] | None = None


class MessageCreatedPayload(WireModel):
    """``message_created`` on ``chat_room:<id>``."""

    id: str
    content: str
    message_type: str
    metadata: MessageMetadata | None = None
    sender_id: str
    sender_type: str
    sender_name: str | None = None
    chat_room_id: str | None = None
    thread_id: str | None = None
    inserted_at: str
    updated_at: str


class _RoomPayload(RoomEvent):
    """The platform's ``RoomEvent``, its timestamps optional (the link checked presence)."""

    inserted_at: str | None = None  # type: ignore[assignment]  # lenient
    updated_at: str | None = None  # type: ignore[assignment]  # lenient


class RoomAddedPayload(_RoomPayload):
    """``room_added`` on ``agent_rooms:<agent>``."""


class RoomRemovedPayload(_RoomPayload):
    """``room_removed`` on ``agent_rooms:<agent>``."""


class RoomDeletedPayload(WireModel):
    """``room_deleted`` on ``room_participants:<room>``."""

    id: str


class _PartyPayload(WireModel):
    """A person or an agent as a push names them (a new participant, a new contact)."""

    id: str
    name: str | None = None
    type: str | None = None
    handle: str | None = None
    description: str | None = None
    is_remote: bool | None = None
    is_external: bool | None = None


class ParticipantAddedPayload(_PartyPayload):
    """``participant_added`` on ``room_participants:<room>``."""


class ParticipantRemovedPayload(WireModel):
    """``participant_removed`` on ``room_participants:<room>``."""

    id: str
    name: str | None = None
    type: str | None = None


class ContactRequestReceivedPayload(WireModel):
    """``contact_request_received`` on ``agent_contacts:<agent>``."""

    id: str
    from_handle: str | None = None
    from_name: str | None = None
    message: str | None = None
    status: str | None = None
    inserted_at: str | None = None


class ContactRequestUpdatedPayload(WireModel):
    """``contact_request_updated`` on ``agent_contacts:<agent>``."""

    id: str
    status: str | None = None


class ContactAddedPayload(_PartyPayload):
    """``contact_added`` on ``agent_contacts:<agent>``."""

    inserted_at: str | None = None


class ContactRemovedPayload(WireModel):
    """``contact_removed`` on ``agent_contacts:<agent>``."""

    id: str
