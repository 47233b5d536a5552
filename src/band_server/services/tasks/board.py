"""A room's board: its goal (one per room), with an append-only audit trail."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import Board, utcnow
from band_protocol.tasks import BoardUpdateBody
from band_server.errors import ValidationFailed
from band_server.services.identity.principals import Principal
from band_server.services.tasks.shared import (
    actor_of,
    board_view,
    post_timeline,
    recent_history,
    snippet,
)
from band_server.services.unit import UnitOfWork
from band_server.store.models import BoardHistory, Room, RoomBoard

__all__ = ["get_board", "set_board"]


async def get_board(session: AsyncSession, room: Room, include: str | None = None) -> Board:
    """The room's goal, or an empty default before anyone set one."""
    row = await session.get(RoomBoard, room.id)
    if include != "history":
        return board_view(room.id, row)
    where = BoardHistory.room_id == room.id
    recent, truncated = await recent_history(session, BoardHistory, where)
    return board_view(room.id, row, recent, truncated)


async def set_board(uow: UnitOfWork, actor: Principal, room: Room, body: BoardUpdateBody) -> Board:
    """Upsert the goal; only the fields sent change, and only a real change is recorded."""
    if body.goal_title is None and body.goal_summary is None:
        raise ValidationFailed(
            "send goal_title, goal_summary or both", {"/": ["at least one field is required"]}
        )
    session = uow.session
    row = await session.get(RoomBoard, room.id)
    before = {
        "goal_title": row.goal_title if row else None,
        "goal_summary": row.goal_summary if row else None,
    }
    wanted = {"goal_title": body.goal_title, "goal_summary": body.goal_summary}
    changes: dict[str, Any] = {
        name: {"from": before[name], "to": value}
        for name, value in wanted.items()
        if value is not None and value != before[name]
    }
    if not changes:
        return board_view(room.id, row)
    who = actor_of(actor)
    now = utcnow()
    first = row is None
    if row is None:
        row = RoomBoard(room_id=room.id, created_by=who, updated_by=who, created_at=now)
        session.add(row)
    for name, change in changes.items():
        setattr(row, name, change["to"])
    row.updated_by, row.updated_at = who, now
    event = "goal_set" if first else "goal_edited"
    session.add(BoardHistory(room_id=room.id, event=event, actor=who, payload=changes))
    await session.flush()
    title = row.goal_title or ""
    verb = "set" if first else "changed"
    content = (
        f'{actor.name} {verb} the room goal: "{snippet(title)}"'
        if title
        else (f"{actor.name} {verb} the room goal")
    )
    meta = {
        "event": event,
        "goal_title": row.goal_title,
        "goal_summary": row.goal_summary,
        "payload": changes,
    }
    await post_timeline(uow, actor, room, content, {"band_board": meta})
    return board_view(room.id, row)
