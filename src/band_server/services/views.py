"""Rows to wire models: the one place that shapes what clients see."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from band.protocol import ChatMessage, ChatParticipant, ChatRoom, RoomEvent, iso

from ..store.models import Room


class MessageRow(Protocol):
    """What a message view reads: a loaded ``Message`` or a just-written ``messages.Posted``."""

    @property
    def id(self) -> str: ...
    @property
    def room_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def sender_id(self) -> str: ...
    @property
    def sender_type(self) -> str: ...
    @property
    def sender_name(self) -> str | None: ...
    @property
    def message_type(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def attachments(self) -> list[dict[str, Any]] | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...


def room_view(room: Room) -> ChatRoom:
    return ChatRoom(
        id=room.id,
        title=room.title,
        task_id=room.task_id,
        owner_id=room.owner_id,
        inserted_at=iso(room.created_at),
        updated_at=iso(room.updated_at),
    )


def room_event(room: Room) -> RoomEvent:
    return RoomEvent(
        id=room.id,
        title=room.title,
        task_id=room.task_id,
        inserted_at=iso(room.created_at),
        updated_at=iso(room.updated_at),
    )


def message_view(msg: MessageRow) -> ChatMessage:
    return ChatMessage(
        id=msg.id,
        chat_room_id=msg.room_id,
        content=msg.content,
        message_type=msg.message_type,
        sender_id=msg.sender_id,
        sender_type=msg.sender_type,
        sender_name=msg.sender_name,
        metadata=dict(msg.meta or {}),
        attachments=list(msg.attachments or ()),
        seq=msg.seq,
        inserted_at=iso(msg.created_at),
        updated_at=iso(msg.updated_at),
    )


__all__ = ["ChatParticipant", "MessageRow", "message_view", "room_event", "room_view"]
