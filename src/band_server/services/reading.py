"""A person's room list: last activity and unread counts, and the read marker behind them.

Unread counts text messages from others after the person's ``last_read_seq`` in that room;
events (tool calls, thoughts) never count. The web app moves the marker as the person reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ..store.models import Message, Participant, Room
from .principals import Principal
from .rooms import room_for


@dataclass(frozen=True)
class RoomSummary:
    """One row of a person's room list."""

    room: Room
    last_activity: datetime
    unread: int


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def room_summaries(session: AsyncSession, person: Principal) -> list[RoomSummary]:
    """The person's rooms, most recently active first (three grouped queries in all)."""
    mine = (
        (Participant.participant_id == person.id)
        & (Participant.status == "active")
        & Room.deleted_at.is_(None)
    )
    rooms = list(
        await session.scalars(
            select(Room).join(Participant, Participant.room_id == Room.id).where(mine)
        )
    )
    if not rooms:
        return []
    ids = [r.id for r in rooms]
    last: dict[str, datetime] = {
        room_id: moment
        for room_id, moment in await session.execute(
            select(Message.room_id, func.max(Message.created_at))
            .where(Message.room_id.in_(ids))
            .group_by(Message.room_id)
        )
    }
    unread: dict[str, int] = {
        room_id: int(count)
        for room_id, count in await session.execute(
            select(Message.room_id, func.count())
            .join(
                Participant,
                (Participant.room_id == Message.room_id)
                & (Participant.participant_id == person.id),
            )
            .where(
                Message.room_id.in_(ids),
                Participant.status == "active",
                Message.seq > Participant.last_read_seq,
                Message.sender_id != person.id,
                Message.message_type == "text",
            )
            .group_by(Message.room_id)
        )
    }
    out = [
        RoomSummary(r, _aware(last.get(r.id) or r.updated_at), unread.get(r.id, 0)) for r in rooms
    ]
    out.sort(key=lambda s: (s.last_activity, s.room.id), reverse=True)
    return out


async def mark_read(session: AsyncSession, person: Principal, room_id: str, seq: int) -> int:
    """Move the person's read marker forward to ``seq`` (never back, never past the end)."""
    room = await room_for(session, person, room_id)
    target = max(0, min(seq, room.last_seq))
    await session.execute(
        update(Participant)
        .where(
            Participant.room_id == room.id,
            Participant.participant_id == person.id,
            Participant.last_read_seq < target,
        )
        .values(last_read_seq=target)
    )
    return target
