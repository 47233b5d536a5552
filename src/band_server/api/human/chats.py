"""Human surface: the caller's chat rooms."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band.protocol import ChatCreateBody, ChatRenameBody

from ...services import rooms
from ...services.unit import write
from ...services.views import room_view
from ..deps import PlatformDep, UserDep
from ..listing import PagingDep, data, listing

router = APIRouter()


@router.get("/chats")
async def list_chats(platform: PlatformDep, me: UserDep, paging: PagingDep) -> dict[str, Any]:
    """Rooms the caller participates in, oldest first."""
    async with platform.db.read() as session:
        found, total = await rooms.list_rooms(
            session, me, page=paging.page, page_size=paging.page_size
        )
    return listing([room_view(r) for r in found], paging.meta(total))


@router.post("/chats", status_code=201)
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


@router.get("/chats/{chat_id}")
async def get_chat(platform: PlatformDep, me: UserDep, chat_id: str) -> dict[str, Any]:
    """One room the caller is in (404 otherwise, whether or not it exists)."""
    async with platform.db.read() as session:
        room = await rooms.room_for(session, me, chat_id)
    return data(room_view(room))


@router.patch("/chats/{chat_id}")
async def rename_chat(
    platform: PlatformDep, me: UserDep, chat_id: str, body: ChatRenameBody
) -> dict[str, Any]:
    """Rename a room the caller owns: 403 for another participant, 404 for anyone else;
    the title is trimmed, 1..120 characters, no line break or NUL."""
    async with write(platform) as uow:
        room = await rooms.room_for(uow.session, me, chat_id)
        room, broadcasts = await rooms.rename_room(uow.session, me, room, body.chat.title)
        uow.emit(*broadcasts)
    return {"data": room_view(room).model_dump(mode="json")}
