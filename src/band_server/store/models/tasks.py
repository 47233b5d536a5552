"""A room's board: its tasks, their assignees, its goal, and the audit trail of both."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Audit, Base, Timestamps, new_id


class RoomTask(Timestamps, Base):
    """A task on a room's board; ``number`` is its per-room handle (#1, #2, ...)."""

    __tablename__ = "tasks"
    __table_args__ = (UniqueConstraint("room_id", "number"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"))
    number: Mapped[int] = mapped_column(Integer)
    subject: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[str] = mapped_column(String(12), default="active")
    overall_status: Mapped[str] = mapped_column(String(12), default="pending")
    superseded_by_id: Mapped[str | None] = mapped_column(String(36), default=None)
    created_by: Mapped[dict[str, Any]] = mapped_column(JSON)  # actor at write time
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)


class TaskAssignee(Base):
    """One participant's work on a task (joined by their first status)."""

    __tablename__ = "task_assignments"
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id"), primary_key=True)
    assignee_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    assignee: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(12), default="pending")
    active_form: Mapped[str] = mapped_column(Text, default="")
    linked_native_id: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class TaskHistory(Audit, Base):
    """A row of a task's history (never updated, never deleted alone)."""

    __tablename__ = "task_events"
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id"), index=True)


class RoomBoard(Base):
    """A room's goal (one per room)."""

    __tablename__ = "boards"
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    goal_title: Mapped[str | None] = mapped_column(Text, default=None)
    goal_summary: Mapped[str | None] = mapped_column(Text, default=None)
    created_by: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_by: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class BoardHistory(Audit, Base):
    """A row of a room goal's audit trail."""

    __tablename__ = "board_events"
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), index=True)
