"""Background jobs that survive a restart: bulk deletions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, String
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, new_id


class BulkDeletion(Base):
    """A background job deleting up to 100 rooms or agents of one person; survives restarts.

    ``results`` holds one ``{"id", "status", "error"?}`` per target in request order; each
    target's deletion and its result are written in one transaction, so a job resumed after a
    crash never deletes a target twice nor skips one.
    """

    __tablename__ = "bulk_deletions"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    resource_type: Mapped[str] = mapped_column(String(8))  # "chat" | "agent"
    force: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(12), default="queued", index=True)
    results: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)
