"""The room list's reads as they were before issue 26's soak: scans of every message of the
rooms. Kept as the definitions the bounded reads (``services.rooms.rows``) must agree with
(``test_room_list_queries``) and as the "before" of ``bench.room_list_plans``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.store.models import Message, Participant


async def old_last_activity(session: AsyncSession, ids: list[str]) -> dict[str, datetime]:
    found = await session.execute(
        select(Message.room_id, func.max(Message.created_at))
        .where(Message.room_id.in_(ids))
        .group_by(Message.room_id)
    )
    return {room_id: at for room_id, at in found}


async def old_unread(session: AsyncSession, person_id: str, ids: list[str]) -> dict[str, int]:
    found = await session.execute(
        select(Message.room_id, func.count())
        .join(
            Participant,
            (Participant.room_id == Message.room_id) & (Participant.participant_id == person_id),
        )
        .where(
            Message.room_id.in_(ids),
            Participant.status == "active",
            Message.seq > Participant.last_read_seq,
            Message.sender_id != person_id,
            Message.message_type == "text",
        )
        .group_by(Message.room_id)
    )
    return {room_id: int(n) for room_id, n in found}


async def old_newest(session: AsyncSession, ids: list[str], kind: str | None) -> set[str]:
    where: list[Any] = [Message.room_id.in_(ids)]
    if kind is not None:
        where.append(Message.message_type == kind)
    newest = (
        select(Message.room_id, func.max(Message.seq).label("seq"))
        .where(*where)
        .group_by(Message.room_id)
        .subquery()
    )
    found = await session.scalars(
        select(Message.id).join(
            newest, (Message.room_id == newest.c.room_id) & (Message.seq == newest.c.seq)
        )
    )
    return set(found)
