"""Rooms (chats) and their participants."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import RequestModel, WireModel
from .messages import ChatMessage

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


RoomType = Literal["direct", "group", "task"]
RoomStatus = Literal["active", "archived", "closed"]


class MeChatRoom(ChatRoom):
    """A room as a person sees it (``/me/chats``): the agent's ``ChatRoom`` plus its kind,
    state and the time of its newest message."""

    type: RoomType | None = None
    status: RoomStatus | None = None
    last_message_at: str | None = None


class MessageCounts(WireModel):
    """Messages in a room per ``message_type``; a type with none is absent (read it as 0)."""

    text: int | None = None
    tool_call: int | None = None
    tool_result: int | None = None
    thought: int | None = None
    error: int | None = None
    task: int | None = None
    attention: int | None = None
    system: int | None = None
    participant: int | None = None


class MeChatRoomDetail(MeChatRoom):
    """``GET /me/chats/{id}``; ``message_counts`` only with ``include=message_counts``."""

    message_counts: MessageCounts | None = None


class RosterFields(WireModel):
    """What ``include=participants`` adds to a room row (omitted without it)."""

    participants: list[ChatParticipant] | None = None
    participant_count: int | None = None
    participants_truncated: bool | None = None


class AgentChatRoomListItem(ChatRoom, RosterFields):
    """A ``GET /agent/chats`` row."""


class MeChatRoomListItem(MeChatRoom, RosterFields):
    """A ``GET /me/chats`` row; each include's fields are omitted, never null, without it."""

    last_message: ChatMessage | None = None
    membership: Literal["participant", "via_agent"] | None = None
    my_role: Role | None = None
    my_status: str | None = None
    via_agent_ids: list[str] | None = None
