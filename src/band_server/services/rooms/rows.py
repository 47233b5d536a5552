"""What a page of room rows can carry beyond the room itself, read for the whole page at once.

How it works: docs/internals/server.md, "Room rows for a page".

Each reader runs a fixed number of queries whatever the page or roster size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

from sqlalchemy import ColumnElement, func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from band_protocol import ChatMessage, ChatParticipant, MessageCounts, iso
from band_server.services.deliveries.wire import chat_messages
from band_server.services.rooms.membership import Member, members_where
from band_server.store.models import Agent, Message, Participant, Room

ROSTER_ROWS = 100
"""A row carries at most this many participants (by participant id); the rest is paged."""

Online = Callable[[str], bool]

TEXT: ColumnElement[str] = literal_column("'text'")
"""``'text'`` written into the statement, not bound: the partial index on texts applies to a
literal (a PostgreSQL generic plan of a bound value could not use it)."""


async def rosters(session: AsyncSession, room_ids: Sequence[str]) -> dict[str, list[Member]]:
    """Every room's active participants, ordered by participant id (one query)."""
    out: dict[str, list[Member]] = {room_id: [] for room_id in room_ids}
    if not room_ids:
        return out
    found = await members_where(
        session,
        Participant.room_id.in_(list(room_ids)),
        order_by=(Participant.room_id, Participant.participant_id),
    )
    for member in found:
        out[member.participant.room_id].append(member)
    return out


def roster_fields(members: list[Member], online: Online) -> dict[str, object]:
    """``participants`` (the first ``ROSTER_ROWS``), ``participant_count`` and
    ``participants_truncated`` for one row."""
    shown: list[ChatParticipant] = [m.view(online(m.id)) for m in members[:ROSTER_ROWS]]
    return {
        "participants": shown,
        "participant_count": len(members),
        "participants_truncated": len(members) > ROSTER_ROWS,
    }


def room_type(room: Room, participant_count: int) -> Literal["direct", "group", "task"]:
    """``task`` for a room made for a task, ``direct`` for two participants, else ``group``
    (derived, never stored: it follows the roster)."""
    if room.task_id:
        return "task"
    return "direct" if participant_count == 2 else "group"


async def last_activity(session: AsyncSession, room_ids: Sequence[str]) -> dict[str, datetime]:
    """When each room's newest message was written (rooms without one are absent): the
    maximum ``created_at`` of its messages, kept on its row (``rooms.last_message_at``)."""
    if not room_ids:
        return {}
    rows = await session.execute(
        select(Room.id, Room.last_message_at).where(Room.id.in_(list(room_ids)))
    )
    return {room_id: at for room_id, at in rows if at is not None}


async def last_message_times(session: AsyncSession, room_ids: Sequence[str]) -> dict[str, str]:
    """:func:`last_activity` as ISO-8601 text."""
    return {room_id: iso(at) for room_id, at in (await last_activity(session, room_ids)).items()}


async def newest_messages(
    session: AsyncSession, room_ids: Sequence[str], message_type: str | None = None
) -> list[Message]:
    """Each room's newest message (a text when ``message_type`` is ``"text"``, else of any
    type); one query, an index lookup a room."""
    if not room_ids:
        return []
    inner = aliased(Message)
    where: list[ColumnElement[bool]] = [inner.room_id == Room.id]
    if message_type == "text":
        where.append(inner.message_type == TEXT)
    elif message_type is not None:
        where.append(inner.message_type == message_type)
    top = select(func.max(inner.seq)).where(*where).correlate(Room).scalar_subquery()
    newest = (
        select(Room.id.label("room_id"), top.label("seq"))
        .where(Room.id.in_(list(room_ids)))
        .subquery()
    )
    return list(
        await session.scalars(
            select(Message).join(
                newest, (Message.room_id == newest.c.room_id) & (Message.seq == newest.c.seq)
            )
        )
    )


async def unread_counts(
    session: AsyncSession, person_id: str, room_ids: Sequence[str]
) -> dict[str, int]:
    """The texts from others after ``person_id``'s read marker, in each room where they are an
    active participant (others absent). Reads the index entries after the marker only."""
    if not room_ids:
        return {}
    inner = aliased(Message)
    count = (
        select(func.count())
        .select_from(inner)
        .where(
            inner.room_id == Participant.room_id,
            inner.message_type == TEXT,
            inner.seq > Participant.last_read_seq,
            inner.sender_id != person_id,
        )
        .correlate(Participant)
        .scalar_subquery()
    )
    rows = await session.execute(
        select(Participant.room_id, count).where(
            Participant.participant_id == person_id,
            Participant.status == "active",
            Participant.room_id.in_(list(room_ids)),
        )
    )
    return {room_id: int(n) for room_id, n in rows}


async def last_messages(session: AsyncSession, room_ids: Sequence[str]) -> dict[str, ChatMessage]:
    """Each room's newest message, in the row shape of the room's message list."""
    rows = await newest_messages(session, room_ids)
    return {m.chat_room_id: m for m in await chat_messages(session, rows)}


async def owned_agents(
    session: AsyncSession, owner_id: str, room_ids: Sequence[str]
) -> dict[str, list[str]]:
    """The agents of ``owner_id`` that take part in each room, ordered by id."""
    out: dict[str, list[str]] = {room_id: [] for room_id in room_ids}
    if not room_ids:
        return out
    rows = await session.execute(
        select(Participant.room_id, Agent.id)
        .join(Agent, Agent.id == Participant.participant_id)
        .where(
            Participant.room_id.in_(list(room_ids)),
            Participant.status == "active",
            Agent.owner_id == owner_id,
            Agent.deleted_at.is_(None),
        )
        .order_by(Participant.room_id, Agent.id)
    )
    for room_id, agent_id in rows:
        out[room_id].append(agent_id)
    return out


async def message_counts(session: AsyncSession, room_id: str) -> MessageCounts:
    """The room's messages per type; a type with none is absent."""
    rows = await session.execute(
        select(Message.message_type, func.count())
        .where(Message.room_id == room_id)
        .group_by(Message.message_type)
    )
    known = set(MessageCounts.model_fields)
    return MessageCounts(**{kind: int(n) for kind, n in rows if kind in known})
