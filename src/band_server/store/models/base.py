"""What every table shares: the declarative base, the id makers, the timestamp and audit
columns."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import uuid_utils
from sqlalchemy import JSON, DateTime, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from band_protocol import utcnow


def new_id() -> str:
    return str(uuid.uuid4())


def new_ordered_id() -> str:
    """A UUIDv7 (RFC 9562) for the rows every message writes (its message, deliveries and
    attempts): the time leads, so their primary keys, and the indexes that lead with a message
    id, grow at the right edge of the B-tree instead of on a random page (a UUIDv4 key made
    the message insert 2-3x dearer, more as the table grows: docs/decisions.md). Still 74
    random bits, and nothing orders by these ids."""
    return str(uuid_utils.uuid7())


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, datetime: DateTime(timezone=True)}


class Timestamps:
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class Audit:
    """An append-only audit row: what happened, who did it (as named then), when."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event: Mapped[str] = mapped_column(String(20))
    actor: Mapped[dict[str, Any]] = mapped_column(JSON)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    at: Mapped[datetime] = mapped_column(default=utcnow)
