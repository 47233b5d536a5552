"""Rooms (chats) and their participants."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import RequestModel, WireModel

Role = Literal["owner", "admin", "member"]
ParticipantType = Literal["User", "Agent"]


class ChatRoom(WireModel):
    id: str
    title: str | None = None
    task_id: str | None = None
    owner_id: str | None = None
    inserted_at: str
    updated_at: str


class ChatParticipant(WireModel):
    id: str
    role: Role
    status: str
    type: ParticipantType
    name: str | None = None
    handle: str | None = None
    description: str | None = None
    online: bool = False


class ChatCreateFields(RequestModel):
    title: str | None = Field(default=None, max_length=200)
    task_id: str | None = Field(default=None, max_length=200)


class ChatCreateBody(RequestModel):
    chat: ChatCreateFields = ChatCreateFields()


class ChatRenameFields(RequestModel):
    title: str = Field(max_length=1000)


class ChatRenameBody(RequestModel):
    """``PATCH /agent/chats/{id}`` and ``PATCH /me/chats/{id}``: ``{"chat": {"title"}}``."""

    chat: ChatRenameFields


class ParticipantAddFields(RequestModel):
    participant_id: str = Field(min_length=1, max_length=200)
    role: Role = "member"


class ParticipantAddBody(RequestModel):
    participant: ParticipantAddFields


class RoomEvent(WireModel):
    """``room_added`` / ``room_removed`` on ``agent_rooms`` and ``user_rooms``."""

    id: str
    title: str | None = None
    task_id: str | None = None
    inserted_at: str
    updated_at: str


class ParticipantEvent(WireModel):
    """``participant_added`` / ``participant_removed`` on ``room_participants``."""

    id: str
    name: str
    type: ParticipantType
    handle: str | None = None
    description: str | None = None
