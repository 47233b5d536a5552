"""Stored answers replayed for a repeated ``Idempotency-Key``."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base


class IdempotencyRecord(Base):
    """A stored answer for an ``Idempotency-Key``: same key and body replay it.

    ``key`` is the hash of the client's key and ``sealed_body`` the answer encrypted with a key
    derived from it (``services.idempotency.replay_seal``): neither is readable from the
    database alone.
    """

    __tablename__ = "idempotency_keys"
    principal_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    method: Mapped[str] = mapped_column(String(8))
    path: Mapped[str] = mapped_column(String(500))
    body_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    sealed_body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
