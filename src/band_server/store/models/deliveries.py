"""What each mentioned agent does with a message: its delivery and the attempts at it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, new_ordered_id


class Delivery(Base):
    """One mentioned agent's view of one message: delivered → processing → processed|failed.

    While ``processing``, ``updated_at`` is the attempt's lease clock: set when the attempt
    opens and moved by every sign of life (``services/deliveries/leases.py``).
    """

    __tablename__ = "deliveries"
    __table_args__ = (
        UniqueConstraint("message_id", "agent_id"),
        Index("ix_deliveries_pending", "agent_id", "room_id", "status", "seq"),
        # The lease sweep's one read: open attempts by their last sign of life (issue 12).
        Index(
            "ix_deliveries_leases",
            "updated_at",
            sqlite_where=text("status = 'processing'"),
            postgresql_where=text("status = 'processing'"),
        ),
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_ordered_id)
    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id"))
    room_id: Mapped[str] = mapped_column(String(36))
    agent_id: Mapped[str] = mapped_column(String(36))
    seq: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), default="delivered")
    attempt_number: Mapped[int] = mapped_column(Integer, default=0)
    delivered_at: Mapped[datetime] = mapped_column(default=utcnow)
    processed_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class DeliveryAttempt(Base):
    __tablename__ = "delivery_attempts"
    __table_args__ = (UniqueConstraint("delivery_id", "attempt_number"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_ordered_id)
    delivery_id: Mapped[str] = mapped_column(ForeignKey("deliveries.id"), index=True)
    attempt_number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))  # processing | success | failed
    error: Mapped[str | None] = mapped_column(Text, default=None)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)
