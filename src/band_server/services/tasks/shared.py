"""Shared pieces of tasks and the board: actors, wire views, cursors, timeline events."""

from __future__ import annotations

import base64
import binascii
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import (
    Board,
    BoardEvent,
    Task,
    TaskAssignment,
    TaskEvent,
    iso,
)
from band_protocol.messages import MAX_EVENT_CHARS, EventCreateFields
from band_server.errors import ValidationFailed
from band_server.services.identity.principals import Principal
from band_server.services.messages.posts import post_event
from band_server.services.unit import UnitOfWork
from band_server.services.views import from_row
from band_server.store.models import (
    BoardHistory,
    Room,
    RoomBoard,
    RoomTask,
    TaskAssignee,
    TaskHistory,
)

__all__ = [
    "HISTORY_EMBED",
    "actor_of",
    "board_view",
    "decode_cursor",
    "encode_cursor",
    "post_timeline",
    "recent_history",
    "task_view",
]

HISTORY_EMBED = 100  # events embedded by ?include=history
SNIPPET = 300


def actor_of(who: Principal) -> dict[str, Any]:
    """The actor as stored: named as they were at write time."""
    return {"id": who.id, "name": who.name, "handle": who.handle, "type": who.sender_type}


def task_event_view(row: TaskHistory) -> TaskEvent:
    return from_row(TaskEvent, row)


def board_event_view(row: BoardHistory) -> BoardEvent:
    return from_row(BoardEvent, row)


def task_view(
    row: RoomTask,
    assignees: list[TaskAssignee],
    history: list[TaskHistory] | None = None,
    truncated: bool | None = None,
) -> Task:
    ordered = sorted(assignees, key=lambda a: iso(a.created_at))
    return from_row(
        Task,
        row,
        chat_room_id=row.room_id,
        assignments=[from_row(TaskAssignment, a) for a in ordered],
        history=[task_event_view(h) for h in history] if history is not None else None,
        history_truncated=truncated,
    )


def board_view(
    room_id: str,
    row: RoomBoard | None,
    history: list[BoardHistory] | None = None,
    truncated: bool | None = None,
) -> Board:
    embedded = [board_event_view(h) for h in history] if history is not None else None
    if row is None:
        return Board(chat_room_id=room_id, history=embedded, history_truncated=truncated)
    return from_row(Board, row, chat_room_id=room_id, history=embedded, history_truncated=truncated)


def encode_cursor(value: int) -> str:
    return base64.urlsafe_b64encode(f"after:{value}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int | None:
    """The position a cursor continues after; 422 for one we did not hand out."""
    if not cursor:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        prefix, _, number = raw.partition(":")
        if prefix != "after":
            raise ValueError(prefix)
        return int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]}) from exc


AuditRow = TypeVar("AuditRow", TaskHistory, BoardHistory)


async def recent_history(
    session: AsyncSession, model: type[AuditRow], where: ColumnElement[bool]
) -> tuple[list[AuditRow], bool]:
    """The newest ``HISTORY_EMBED`` audit rows, oldest first, and whether older ones exist."""
    query = select(model).where(where).order_by(model.id.desc()).limit(HISTORY_EMBED + 1)
    rows = list(await session.scalars(query))
    return list(reversed(rows[:HISTORY_EMBED])), len(rows) > HISTORY_EMBED


def snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "\u2026"


async def post_timeline(
    uow: UnitOfWork, actor: Principal, room: Room, content: str, metadata: dict[str, Any]
) -> dict[str, Any]:
    """One ``task`` event in the room's timeline (people's sockets; the actor's context)."""
    fields = EventCreateFields(
        content=content[:MAX_EVENT_CHARS], message_type="task", metadata=metadata
    )
    return await post_event(uow, actor, room, fields)
