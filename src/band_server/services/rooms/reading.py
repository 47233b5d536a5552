"""A person's room list: last activity, unread counts and a preview of the last message,
and the read marker behind them.

Unread counts text messages from others after the person's ``last_read_seq`` in that room;
events (tool calls, thoughts) never count. The web app moves the marker as the person reads.
The preview is the newest text message (events would say little), as plain text: mention
tokens become ``@Name``, whitespace folds, and it is cut at ``PREVIEW_CHARS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.services.identity.principals import Principal
from band_server.services.rooms.membership import room_for
from band_server.services.rooms.rows import last_activity, newest_messages, unread_counts
from band_server.store.models import Message, Participant, Room

PREVIEW_CHARS = 120
_TOKEN = re.compile(r"@\[\[([0-9A-Za-z-]{1,64})\]\]")


@dataclass(frozen=True)
class RoomSummary:
    """One row of a person's room list."""

    room: Room
    last_activity: datetime
    unread: int
    preview: str | None = None  # "Sender: text" of the newest text message


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def preview_of(msg: Message) -> str:
    """``Sender: text`` of a message, mentions named as the message names them, one line."""
    mentions = (msg.meta or {}).get("mentions") or []
    names = {
        str(m.get("id")): str(m.get("name") or m.get("handle") or "someone")
        for m in mentions
        if isinstance(m, dict)
    }
    text = _TOKEN.sub(lambda t: "@" + names.get(t[1], "someone"), msg.content)
    text = " ".join(text.split())
    if len(text) > PREVIEW_CHARS:
        text = text[: PREVIEW_CHARS - 1].rstrip() + "…"
    return f"{msg.sender_name or 'Someone'}: {text}"


async def room_summaries(session: AsyncSession, person: Principal) -> list[RoomSummary]:
    """The person's rooms, most recently active first (four grouped queries in all)."""
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
    last = await last_activity(session, ids)
    unread = await unread_counts(session, person.id, ids)
    previews = {m.room_id: preview_of(m) for m in await newest_messages(session, ids, "text")}
    out = [
        RoomSummary(
            r, _aware(last.get(r.id) or r.updated_at), unread.get(r.id, 0), previews.get(r.id)
        )
        for r in rooms
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
