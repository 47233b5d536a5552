"""Typed platform events: one dataclass per event type, as ``async for event in link`` yields.

Every event has ``type`` (the wire event name), ``room_id`` (None for agent-wide events),
``payload`` (a model from ``band_protocol.pushes`` read by attribute, e.g.
``event.payload.content``) and ``raw`` (the validated payload dict). ``PlatformEvent`` is the
union of the classes; ``event_from_push`` builds the right one from a push.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from band_protocol.pushes import (
    ContactAddedPayload,
    ContactRemovedPayload,
    ContactRequestReceivedPayload,
    ContactRequestUpdatedPayload,
    MessageCreatedPayload,
    ParticipantAddedPayload,
    ParticipantRemovedPayload,
    RoomAddedPayload,
    RoomDeletedPayload,
    RoomRemovedPayload,
)
from band_protocol.socket import AgentControl, Supersede

__all__ = [
    "AgentControlEvent",
    "ContactAddedEvent",
    "ContactAddedPayload",
    "ContactEvent",
    "ContactRemovedEvent",
    "ContactRemovedPayload",
    "ContactRequestReceivedEvent",
    "ContactRequestReceivedPayload",
    "ContactRequestUpdatedEvent",
    "ContactRequestUpdatedPayload",
    "MessageCreatedPayload",
    "MessageEvent",
    "ParticipantAddedEvent",
    "ParticipantAddedPayload",
    "ParticipantRemovedEvent",
    "ParticipantRemovedPayload",
    "PlatformEvent",
    "ReconnectedEvent",
    "RoomAddedEvent",
    "RoomAddedPayload",
    "RoomDeletedEvent",
    "RoomDeletedPayload",
    "RoomRemovedEvent",
    "RoomRemovedPayload",
    "SupersedeEvent",
    "WebSocketDisconnectReason",
    "WebSocketDisconnectedEvent",
    "event_from_push",
]

log = logging.getLogger("band.platform.event")


@dataclass(slots=True)
class WebSocketDisconnectReason:
    """Why the socket dropped: a close code's reason and whether a reconnect follows."""

    reason: str
    message: str
    retryable: bool
    retry_after: int | None = None
    target_socket_id: str | None = None
    correlation_id: str | None = None
    dead_reason: str | None = None
    stale_reason: str | None = None


@dataclass(slots=True)
class MessageEvent:
    """A message that mentions the agent (``message_created``)."""

    type: Literal["message_created"] = "message_created"
    room_id: str | None = None
    payload: MessageCreatedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class RoomAddedEvent:
    """The agent was added to a room."""

    type: Literal["room_added"] = "room_added"
    room_id: str | None = None
    payload: RoomAddedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class RoomRemovedEvent:
    """The agent was removed from a room."""

    type: Literal["room_removed"] = "room_removed"
    room_id: str | None = None
    payload: RoomRemovedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class RoomDeletedEvent:
    """A room the agent was in was deleted."""

    type: Literal["room_deleted"] = "room_deleted"
    room_id: str | None = None
    payload: RoomDeletedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ParticipantAddedEvent:
    """Someone joined a room of the agent."""

    type: Literal["participant_added"] = "participant_added"
    room_id: str | None = None
    payload: ParticipantAddedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ParticipantRemovedEvent:
    """Someone left a room of the agent."""

    type: Literal["participant_removed"] = "participant_removed"
    room_id: str | None = None
    payload: ParticipantRemovedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ContactRequestReceivedEvent:
    """Someone asked to become the agent's contact."""

    type: Literal["contact_request_received"] = "contact_request_received"
    room_id: str | None = None
    payload: ContactRequestReceivedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ContactRequestUpdatedEvent:
    """A contact request changed status."""

    type: Literal["contact_request_updated"] = "contact_request_updated"
    room_id: str | None = None
    payload: ContactRequestUpdatedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ContactAddedEvent:
    """A contact was added."""

    type: Literal["contact_added"] = "contact_added"
    room_id: str | None = None
    payload: ContactAddedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ContactRemovedEvent:
    """A contact was removed."""

    type: Literal["contact_removed"] = "contact_removed"
    room_id: str | None = None
    payload: ContactRemovedPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class WebSocketDisconnectedEvent:
    """The socket dropped; the link reconnects unless ``payload.retryable`` is False."""

    type: Literal["websocket_disconnected"] = "websocket_disconnected"
    room_id: str | None = None
    payload: WebSocketDisconnectReason | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class ReconnectedEvent:
    """The socket is back, topics rejoined and rooms reconciled: drain ``/next`` now."""

    type: Literal["reconnected"] = "reconnected"
    room_id: str | None = None
    payload: None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class AgentControlEvent:
    """An ``agent.control`` push (interrupt / stop / play) for the agent or one room."""

    type: Literal["agent.control"] = "agent.control"
    room_id: str | None = None
    payload: AgentControl | None = None
    raw: dict[str, Any] | None = None


@dataclass(slots=True)
class SupersedeEvent:
    """Another connection of this agent took over; a non-retryable one ends the link."""

    type: Literal["supersede"] = "supersede"
    room_id: str | None = None
    payload: Supersede | None = None
    raw: dict[str, Any] | None = None


ContactEvent = (
    ContactRequestReceivedEvent
    | ContactRequestUpdatedEvent
    | ContactAddedEvent
    | ContactRemovedEvent
)
PlatformEvent = (
    MessageEvent
    | RoomAddedEvent
    | RoomRemovedEvent
    | RoomDeletedEvent
    | ParticipantAddedEvent
    | ParticipantRemovedEvent
    | ContactRequestReceivedEvent
    | ContactRequestUpdatedEvent
    | ContactAddedEvent
    | ContactRemovedEvent
    | WebSocketDisconnectedEvent
    | ReconnectedEvent
    | AgentControlEvent
    | SupersedeEvent
)

_PUSHED: dict[str, tuple[type[Any], type[BaseModel]]] = {
    "message_created": (MessageEvent, MessageCreatedPayload),
    "room_added": (RoomAddedEvent, RoomAddedPayload),
    "room_removed": (RoomRemovedEvent, RoomRemovedPayload),
    "room_deleted": (RoomDeletedEvent, RoomDeletedPayload),
    "participant_added": (ParticipantAddedEvent, ParticipantAddedPayload),
    "participant_removed": (ParticipantRemovedEvent, ParticipantRemovedPayload),
    "contact_request_received": (ContactRequestReceivedEvent, ContactRequestReceivedPayload),
    "contact_request_updated": (ContactRequestUpdatedEvent, ContactRequestUpdatedPayload),
    "contact_added": (ContactAddedEvent, ContactAddedPayload),
    "contact_removed": (ContactRemovedEvent, ContactRemovedPayload),
    "agent.control": (AgentControlEvent, AgentControl),
    "supersede": (SupersedeEvent, Supersede),
}


def event_from_push(event: str, room_id: str | None, raw: dict[str, Any]) -> PlatformEvent | None:
    """The typed event for a validated push, or None for an event type we do not model."""
    spec = _PUSHED.get(event)
    if spec is None:
        return None
    cls, model = spec
    try:
        payload: Any = model.model_validate(raw)
    except ValidationError as exc:
        log.warning("Pushed %s does not fit its model: %s", event, exc.errors()[:1])
        payload = None
    built: PlatformEvent = cls(room_id=room_id, payload=payload, raw=raw)
    return built
