"""Agent surface: the rooms an agent is in, and creating one."""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Query

from band_protocol import AgentChatRoomListItem, ChatCreateBody, ChatRenameBody, ChatRoom

from ...http.deps import AgentDep, PlatformDep
from ...http.json_body import JsonRoute
from ...services import unit
from ...services.rooms import listing as room_listing
from ...services.rooms import membership as rooms
from ...services.views import room_view
from ..answers import many, one
from ..listing import MAX_PAGE, IncludeQuery, data, listed_values

router = APIRouter(route_class=JsonRoute)


@router.get("/chats", responses=many(AgentChatRoomListItem))
async def list_chats(
    platform: PlatformDep,
    agent: AgentDep,
    page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    page_size: Annotated[int, Query(ge=1, le=200)] = 50,
    include: IncludeQuery = None,
) -> dict[str, Any]:
    """Rooms where the agent is an active participant, offset-paged; ``include=participants``
    adds each room's roster (the first 100 by id), ``participant_count`` and
    ``participants_truncated``."""
    wanted = listed_values(include, ("participants",), "include") or frozenset()
    async with platform.db.read() as session:
        found, total = await room_listing.agent_rooms(
            session,
            agent,
            page=page,
            page_size=page_size,
            include=wanted,
            online=platform.presence.is_online,
        )
    return {
        "data": [r.model_dump(mode="json", exclude=room_listing.omitted(wanted)) for r in found],
        "metadata": {
            "page": page,
            "page_size": page_size,
            "total_count": total,
            "total_pages": math.ceil(total / page_size) if total else 0,
        },
    }


@router.post("/chats", status_code=201, responses=one(ChatRoom, 201))
async def create_chat(
    platform: PlatformDep, agent: AgentDep, body: ChatCreateBody | None = None
) -> dict[str, Any]:
    """Create a room owned by the agent; ``room_added`` is pushed after the commit."""
    fields = (body or ChatCreateBody()).chat
    async with unit.write(platform) as uow:
        room, broadcasts = await rooms.create_room(
            uow.session, agent, title=fields.title, task_id=fields.task_id
        )
        uow.emit(*broadcasts)
    return data(room_view(room))


@router.get("/chats/{chat_id}", responses=one(ChatRoom))
async def get_chat(platform: PlatformDep, agent: AgentDep, chat_id: str) -> dict[str, Any]:
    """One room the agent is in; 404 otherwise (existence is never revealed)."""
    async with platform.db.read() as session:
        room = await rooms.room_for(session, agent, chat_id)
    return data(room_view(room))


@router.patch("/chats/{chat_id}", responses=one(ChatRoom))
async def rename_chat(
    platform: PlatformDep, agent: AgentDep, chat_id: str, body: ChatRenameBody
) -> dict[str, Any]:
    """Rename a room the caller owns: 403 for another participant, 404 for anyone else;
    the title is trimmed, 1..120 characters, no line break or NUL."""
    async with unit.write(platform) as uow:
        room = await rooms.room_for(uow.session, agent, chat_id)
        room, broadcasts = await rooms.rename_room(uow.session, agent, room, body.chat.title)
        uow.emit(*broadcasts)
    return data(room_view(room))
