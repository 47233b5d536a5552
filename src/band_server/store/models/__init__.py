"""SQLAlchemy models, one module per domain, all re-exported here: ``Base.metadata`` holds every
table once this package is imported. Every table is created by an Alembic migration, never by
``create_all``."""

from __future__ import annotations

from .archive import ImportedRow, ImportRun
from .base import Audit, Base, Timestamps, new_id, new_ordered_id
from .contacts import Contact, ContactRequest
from .delegation import DelegatedToken, DelegationConsent, TargetSystem
from .deliveries import Delivery, DeliveryAttempt
from .fanout import FanoutGap
from .idempotency import IdempotencyRecord
from .identity import AccountLink, Agent, ApiKey, User, WebSession
from .jobs import BulkDeletion
from .memories import Memory
from .messages import Message
from .rooms import Participant, Room, RoomFile, RoomNotify
from .tasks import BoardHistory, RoomBoard, RoomTask, TaskAssignee, TaskHistory

__all__ = [
    "AccountLink",
    "Agent",
    "ApiKey",
    "Audit",
    "Base",
    "BoardHistory",
    "BulkDeletion",
    "Contact",
    "ContactRequest",
    "DelegatedToken",
    "DelegationConsent",
    "Delivery",
    "DeliveryAttempt",
    "FanoutGap",
    "IdempotencyRecord",
    "ImportRun",
    "ImportedRow",
    "Memory",
    "Message",
    "Participant",
    "Room",
    "RoomBoard",
    "RoomFile",
    "RoomNotify",
    "RoomTask",
    "TargetSystem",
    "TaskAssignee",
    "TaskHistory",
    "Timestamps",
    "User",
    "WebSession",
    "new_id",
    "new_ordered_id",
]
