"""Deliveries, attempts and messages as plain rows: what the marks and ``/next`` read.

Core rows, not ORM objects: loading entities cost more than the reads themselves on these
paths (docs/decisions.md, "Delivery marks and `/next`: one read each").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from band_server.services.views import Posted
from band_server.store.models import Base, Delivery, DeliveryAttempt, Message

DELIVERIES = Base.metadata.tables[Delivery.__tablename__]
ATTEMPTS = Base.metadata.tables[DeliveryAttempt.__tablename__]
MESSAGES = Base.metadata.tables[Message.__tablename__]
DELIVERY_COLUMNS = (
    "id",
    "agent_id",
    "status",
    "attempt_number",
    "delivered_at",
    "processed_at",
    "updated_at",
)
ATTEMPT_COLUMNS = ("id", "attempt_number", "status", "error", "started_at", "completed_at")
MESSAGE_COLUMNS = (
    "id",
    "room_id",
    "seq",
    "sender_id",
    "sender_type",
    "sender_name",
    "message_type",
    "content",
    "metadata",
    "created_at",
    "updated_at",
    "attachments",
)


@dataclass(slots=True)
class DeliveryRow:
    """A delivery as read (a mark then changes it)."""

    id: str
    agent_id: str
    status: str
    attempt_number: int
    delivered_at: datetime
    processed_at: datetime | None
    updated_at: datetime  # moved by every write: a mark, a sign of life, the sweep


@dataclass(slots=True)
class AttemptRow:
    id: str
    attempt_number: int
    status: str
    error: str | None
    started_at: datetime
    completed_at: datetime | None


def attempt_values(delivery_id: str, a: AttemptRow) -> dict[str, Any]:
    """The attempt's row for an insert into ``delivery_attempts``."""
    return {
        "id": a.id,
        "delivery_id": delivery_id,
        "attempt_number": a.attempt_number,
        "status": a.status,
        "error": a.error,
        "started_at": a.started_at,
        "completed_at": a.completed_at,
    }


def message_of(values: Sequence[Any]) -> Posted:
    """A message from its ``MESSAGE_COLUMNS`` values, in that order."""
    fields = dict(zip(MESSAGE_COLUMNS, values, strict=True))
    fields["meta"] = fields.pop("metadata") or {}
    return Posted(**fields)
