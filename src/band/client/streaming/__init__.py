"""The platform's socket as typed topic subscriptions: ``WebSocketClient`` and its payloads."""

from band.client.streaming.client import (
    AgentControlPayload,
    ContactAddedPayload,
    ContactRemovedPayload,
    ContactRequestReceivedPayload,
    ContactRequestUpdatedPayload,
    ControlMode,
    DeliveryStatus,
    Mention,
    MessageCreatedPayload,
    MessageMetadata,
    ParticipantAddedPayload,
    ParticipantRemovedPayload,
    RoomAddedPayload,
    RoomDeletedPayload,
    RoomRemovedPayload,
    SupersedePayload,
    WebSocketClient,
    WireEvent,
)
from band.client.streaming.errors import WebSocketUpgradeError
from band.platform.event import WebSocketDisconnectReason

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
    "WebSocketClient",
    "WebSocketDisconnectReason",
    "WebSocketUpgradeError",
    "WireEvent",
]
