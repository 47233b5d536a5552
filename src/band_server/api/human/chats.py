"""Human surface: the caller's chat rooms."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter

from band_protocol import (
    ChatCreateBody,
    ChatRenameBody,
    ChatRoom,
    MeChatRoomDetail,
    MeChatRoomListItem,
)

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.rooms import listing as room_listing
from ...services.rooms import membership as rooms
from ...services.unit import write
from ...services.views import room_view
from ..answers import many, one
from ..listing import (
    IncludeQuery,
    Limit,
    OffsetPage,
    OffsetPageSize,
    SortedCursor,
    data,
    listed_values,
)

router = APIRouter(route_class=JsonRoute)


@router.get("/chats", responses=many(MeChatRoomListItem))
async def list_chats(
    platform: PlatformDep,
    me: UserDep,
    cursor: SortedCursor = None,
    limit: Limit = 20,
    page: OffsetPage = None,
    page_size: OffsetPageSize = None,
    status: Literal["active", "archived", "closed"] | None = None,
    type: Literal["direct", "group", "task"] | None = None,
    sort_by: Literal["inserted_at", "updated_at"] = "inserted_at",
    order: Literal["asc", "desc"] = "desc",
    include: IncludeQuery = None,
) -> dict[str, Any]:
    """Rooms the caller participates in, newest first by default: keyset-paged by
    ``cursor``/``limit`` (or the deprecated ``page``/``page_size``), filtered by ``status``
    and ``type``; ``include`` adds ``participants``, ``last_message``, ``membership`` to
    each row and ``total_count`` to the first page's metadata."""
    query = room_listing.RoomQuery(
        status=status,
        type=type,
        sort_by=sort_by,
        order=order,
        cursor=cursor,
        limit=limit,
        page=page,
        page_size=page_size,
        include=listed_values(include, room_listing.ROOM_INCLUDES, "include") or frozenset(),
    )
    async with platform.db.read() as session:
        found, meta = await room_listing.list_my_rooms(
            session, me, query, online=platform.presence.is_online
        )
    return {
        "data": [
            r.model_dump(mode="json", exclude=room_listing.omitted(query.include)) for r in found
        ],
        "metadata": meta,
    }


@router.post("/chats", status_code=201, responses=one(ChatRoom, 201))
async def create_chat(
    platform: PlatformDep, me: UserDep, body: ChatCreateBody | None = None
) -> dict[str, Any]:
    """Create a room owned by the caller."""
    fields = (body or ChatCreateBody()).chat
    async with write(platform) as uow:
        room, broadcasts = await rooms.create_room(
            uow.session, me, title=fields.title, task_id=fields.task_id
        )
        uow.emit(*broadcasts)
    return data(room_view(room))


@router.get("/chats/{chat_id}", responses=one(MeChatRoomDetail))
async def get_chat(
    platform: PlatformDep, me: UserDep, chat_id: str, include: IncludeQuery = None
) -> dict[str, Any]:
    """One room the caller is in (404 otherwise, whether or not it exists);
    ``include=message_counts`` adds its messages per type."""
    wanted = listed_values(include, ("message_counts",), "include") or frozenset()
    async with platform.db.read() as session:
        room = await rooms.room_for(session, me, chat_id)
        detail = await room_listing.my_room(session, room, include=wanted)
    return {"data": detail.model_dump(mode="json", exclude=room_listing.omitted(wanted))}


@router.patch("/chats/{chat_id}", responses=one(ChatRoom))
async def rename_chat(
    platform: PlatformDep, me: UserDep, chat_id: str, body: ChatRenameBody
) -> dict[str, Any]:
    """Rename a room the caller owns: 403 for another participant, 404 for anyone else;
    the title is trimmed, 1..120 characters, no line break or NUL."""
    async with write(platform) as uow:
        room = await rooms.room_for(uow.session, me, chat_id)
        room, broadcasts = await rooms.rename_room(uow.session, me, room, body.chat.title)
        uow.emit(*broadcasts)
    return data(room_view(room))
