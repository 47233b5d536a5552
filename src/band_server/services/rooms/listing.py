"""Listing and reading rooms with the options ``band-client-rest`` 0.0.51 sends.

``GET /me/chats``: filters (``status``, ``type``), sort (``sort_by`` ``inserted_at`` or
``updated_at``, ``order``), keyset paging (``cursor``/``limit``, the default) or the deprecated
offset (``page``/``page_size``), and the row includes ``participants``, ``last_message``,
``membership`` and ``total_count``. ``GET /agent/chats`` takes ``include=participants``;
``GET /me/chats/{id}`` takes ``include=message_counts``. Includes add fields and never
change the rows, the cursor or the count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, and_, false, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from band_protocol import AgentChatRoomListItem, MeChatRoomDetail, MeChatRoomListItem
from band_server.services import keyset
from band_server.services.identity.principals import Principal
from band_server.services.rooms import rows as room_rows
from band_server.services.rooms.membership import list_rooms
from band_server.services.views import room_view
from band_server.store.models import Participant, Room

Online = Callable[[str], bool]
ROOM_INCLUDES = ("participants", "last_message", "membership", "total_count")
SORT_COLUMNS = {"inserted_at": Room.created_at, "updated_at": Room.updated_at}
INCLUDED_FIELDS = {
    "participants": {"participants", "participant_count", "participants_truncated"},
    "last_message": {"last_message"},
    "membership": {"membership", "my_role", "my_status", "via_agent_ids"},
    "message_counts": {"message_counts"},
}


def omitted(include: frozenset[str]) -> set[str]:
    """The row fields to leave out of the answer: those of every include not asked for
    (an include's field is omitted without it, never null)."""
    return {f for name, fields in INCLUDED_FIELDS.items() if name not in include for f in fields}


@dataclass(frozen=True)
class RoomQuery(keyset.Asked):
    """The options of ``GET /me/chats`` (the router has checked their ranges)."""

    order: Literal["asc", "desc"] = "desc"
    limit: int = 20
    status: Literal["active", "archived", "closed"] | None = None
    type: Literal["direct", "group", "task"] | None = None
    sort_by: Literal["inserted_at", "updated_at"] = "inserted_at"
    include: frozenset[str] = frozenset()


def _roster_size() -> Any:
    # An alias: the outer query joins participants too, which would otherwise correlate away.
    other = aliased(Participant)
    return (
        select(func.count())
        .select_from(other)
        .where(other.room_id == Room.id, other.status == "active")
        .correlate(Room)
        .scalar_subquery()
    )


def _filters(query: RoomQuery) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if query.status in ("archived", "closed"):
        where.append(false())  # rooms are never archived or closed here; deleted ones are gone
    if query.type == "task":
        where.append(Room.task_id.is_not(None))
    elif query.type == "direct":
        where.append(and_(Room.task_id.is_(None), _roster_size() == 2))
    elif query.type == "group":
        where.append(and_(Room.task_id.is_(None), _roster_size() != 2))
    return where


async def list_my_rooms(
    session: AsyncSession, me: Principal, query: RoomQuery, *, online: Online
) -> tuple[list[MeChatRoomListItem], dict[str, Any]]:
    """One page of the rooms the person takes part in, and its metadata."""
    where = [
        Participant.participant_id == me.id,
        Participant.status == "active",
        Room.deleted_at.is_(None),
        *_filters(query),
    ]
    base = select(Room, Participant).join(Participant, Participant.room_id == Room.id).where(*where)
    column = SORT_COLUMNS[query.sort_by]
    stmt, shape = keyset.window(base, column, Room.id, query.sort_by, query)
    found = [(room, part) for room, part in await session.execute(stmt)]
    size, number, offset_mode = shape.size, shape.number, shape.offset_mode
    has_more = len(found) > size
    found = found[:size]
    last = found[-1][0] if found else None
    meta: dict[str, Any] = {
        "has_more": has_more,
        "limit": size,
        "next_cursor": shape.next_cursor(last, has_more),
    }
    counted = offset_mode or ("total_count" in query.include and not query.cursor)
    if counted:
        if not has_more and number == 1:
            total = len(found)  # the first page holds every room
        else:
            count = select(func.count()).select_from(base.subquery())
            total = int(await session.scalar(count) or 0)
        meta["total_count"] = total
        if offset_mode:
            meta.update(page=number, page_size=size, total_pages=(total + size - 1) // size)
    rows = await _decorate(session, me, found, query.include, online)
    return rows, meta


async def _decorate(
    session: AsyncSession,
    me: Principal,
    found: list[tuple[Room, Participant]],
    include: frozenset[str],
    online: Online,
) -> list[MeChatRoomListItem]:
    ids = [room.id for room, _ in found]
    rosters = await room_rows.rosters(session, ids)
    times = await room_rows.last_message_times(session, ids)
    newest = await room_rows.last_messages(session, ids) if "last_message" in include else {}
    mine = await room_rows.owned_agents(session, me.id, ids) if "membership" in include else {}
    rows: list[MeChatRoomListItem] = []
    for room, part in found:
        roster = rosters.get(room.id, [])
        extra: dict[str, Any] = {}
        if "participants" in include:
            extra.update(room_rows.roster_fields(roster, online))
        if "last_message" in include:
            extra["last_message"] = newest.get(room.id)
        if "membership" in include:
            extra.update(
                membership="participant",
                my_role=part.role,
                my_status=part.status,
                via_agent_ids=mine.get(room.id, []),
            )
        rows.append(
            MeChatRoomListItem(
                **room_view(room).model_dump(),
                type=room_rows.room_type(room, len(roster)),
                status="active",
                last_message_at=times.get(room.id),
                **extra,
            )
        )
    return rows


async def my_room(
    session: AsyncSession, room: Room, *, include: frozenset[str]
) -> MeChatRoomDetail:
    """One room the person takes part in (the caller checked), as ``GET /me/chats/{id}``."""
    roster = (await room_rows.rosters(session, [room.id]))[room.id]
    times = await room_rows.last_message_times(session, [room.id])
    extra: dict[str, Any] = {}
    if "message_counts" in include:
        extra["message_counts"] = await room_rows.message_counts(session, room.id)
    return MeChatRoomDetail(
        **room_view(room).model_dump(),
        type=room_rows.room_type(room, len(roster)),
        status="active",
        last_message_at=times.get(room.id),
        **extra,
    )


async def agent_rooms(
    session: AsyncSession,
    agent: Principal,
    *,
    page: int,
    page_size: int,
    include: frozenset[str],
    online: Online,
) -> tuple[list[AgentChatRoomListItem], int]:
    """One offset page of the agent's rooms (``participants`` on each row if asked)."""
    found, total = await list_rooms(session, agent, page=page, page_size=page_size)
    rosters = await room_rows.rosters(session, [r.id for r in found]) if include else {}
    rows = []
    for room in found:
        extra = room_rows.roster_fields(rosters[room.id], online) if include else {}
        rows.append(AgentChatRoomListItem(**room_view(room).model_dump(), **extra))
    return rows, total
