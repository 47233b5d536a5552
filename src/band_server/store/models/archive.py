"""The import of an archive into this deployment and its journal."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, new_id


class ImportRun(Base):
    """One archive's import into this deployment (``services.imports``); one per archive id."""

    __tablename__ = "imports"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    archive_id: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[str] = mapped_column(String(36))
    source: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    expected: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # kind -> records
    applied: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # kind -> records
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class ImportedRow(Base):
    """The import journal: what a source id became here, written with the row it made, so
    an import resumed after a crash never makes a row twice."""

    __tablename__ = "import_map"
    import_id: Mapped[str] = mapped_column(ForeignKey("imports.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    source_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    target_id: Mapped[str] = mapped_column(String(36))
