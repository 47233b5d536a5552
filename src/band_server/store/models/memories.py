"""What an agent or a person keeps in memory."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, Timestamps, new_id


class Memory(Timestamps, Base):
    __tablename__ = "memories"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    owner_type: Mapped[str] = mapped_column(String(8))
    content: Mapped[str] = mapped_column(Text)
    system: Mapped[str] = mapped_column(String(50))
    type: Mapped[str] = mapped_column(String(50))
    segment: Mapped[str] = mapped_column(String(50))
    scope: Mapped[str] = mapped_column(String(50))
    thought: Mapped[str | None] = mapped_column(Text, default=None)
    subject_id: Mapped[str | None] = mapped_column(String(200), default=None)
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    status: Mapped[str] = mapped_column(String(12), default="active")
    superseded_by: Mapped[str | None] = mapped_column(String(36), default=None)
