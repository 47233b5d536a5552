"""Contacts between people and agents, and the requests that make them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, Timestamps, new_id


class Contact(Base):
    """A one-way edge; an approved request writes one in each direction."""

    __tablename__ = "contacts"
    __table_args__ = (UniqueConstraint("owner_id", "contact_id"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    owner_type: Mapped[str] = mapped_column(String(8))
    contact_id: Mapped[str] = mapped_column(String(36))
    contact_type: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ContactRequest(Timestamps, Base):
    __tablename__ = "contact_requests"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    from_id: Mapped[str] = mapped_column(String(36), index=True)
    from_type: Mapped[str] = mapped_column(String(8))
    to_id: Mapped[str] = mapped_column(String(36), index=True)
    to_type: Mapped[str] = mapped_column(String(8))
    message: Mapped[str | None] = mapped_column(Text, default=None)
    status: Mapped[str] = mapped_column(String(12), default="pending")
