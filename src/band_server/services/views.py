"""Rows to wire models: the one place that shapes what clients see."""

from __future__ import annotations

from band.protocol import ChatMessage, ChatParticipant, ChatRoom, RoomEvent, iso

from ..store.models import Message, Room


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


def message_view(msg: Message) -> ChatMessage:
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


__all__ = ["ChatParticipant", "message_view", "room_event", "room_view"]
