"""Rooms and what belongs to a room alone: its participants, its files, and each person's
notification level for it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, Timestamps, new_id


class Room(Timestamps, Base):
    __tablename__ = "rooms"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    title: Mapped[str | None] = mapped_column(String(200), default=None)
    task_id: Mapped[str | None] = mapped_column(String(200), default=None)
    owner_id: Mapped[str] = mapped_column(String(36))
    owner_type: Mapped[str] = mapped_column(String(8))  # "User" | "Agent"
    last_seq: Mapped[int] = mapped_column(Integer, default=0)
    # The newest created_at of the room's messages (its last activity; migration 0020): every
    # writer of messages moves it with store.room_seqs.newest.
    last_message_at: Mapped[datetime | None] = mapped_column(default=None)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class Participant(Base):
    __tablename__ = "participants"
    __table_args__ = (UniqueConstraint("room_id", "participant_id"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), index=True)
    participant_id: Mapped[str] = mapped_column(String(36), index=True)
    participant_type: Mapped[str] = mapped_column(String(8))  # "User" | "Agent"
    role: Mapped[str] = mapped_column(String(8), default="member")
    status: Mapped[str] = mapped_column(String(16), default="active")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_read_seq: Mapped[int] = mapped_column(Integer, default=0)  # people's unread counts


class RoomFile(Base):
    """A file uploaded to a room; its bytes live in the file store under ``sha256``."""

    __tablename__ = "room_files"
    __table_args__ = (UniqueConstraint("room_id", "sha256"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"))
    sha256: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(127))
    size: Mapped[int] = mapped_column(Integer)
    uploader_id: Mapped[str] = mapped_column(String(36))
    uploader_type: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RoomNotify(Base):
    """A person's notification level for a room (services.notify_levels); none: the default."""

    __tablename__ = "room_notify"
    user_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    room_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    level: Mapped[str] = mapped_column(String(8))
