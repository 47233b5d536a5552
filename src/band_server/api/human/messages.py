"""Human surface: reading and posting a room's messages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from band.protocol import MessageCreateBody

from ...services import messages, posting, rooms
from ...services.messages import SortOrder
from ...services.unit import write
from ..agent.messages import Cursor, Limit, Page, PageSize, page_response
from ..deps import PlatformDep, UserDep
from ..listing import data

router = APIRouter()


@router.get("/chats/{chat_id}/messages")
async def list_messages(
    platform: PlatformDep,
    me: UserDep,
    chat_id: str,
    sort_order: SortOrder = "asc",
    limit: Limit = messages.DEFAULT_LIMIT,
    cursor: Cursor = None,
    page: Page = None,
    page_size: PageSize = None,
) -> JSONResponse:
    """Every message and event of the room in order, keyset-paged by ``cursor``/``limit``."""
    async with platform.db.read() as session:
        room = await rooms.room_for(session, me, chat_id)
        found = await messages.list_messages(
            session,
            room,
            sort_order=sort_order,
            limit=limit,
            cursor=cursor,
            page=page,
            page_size=page_size,
        )
    return page_response(found)


@router.post("/chats/{chat_id}/messages", status_code=201)
async def post_message(
    platform: PlatformDep, me: UserDep, chat_id: str, body: MessageCreateBody
) -> dict[str, Any]:
    """Post a text message; mentions are optional, and ``@handle`` in the text counts."""
    snap = await platform.rosters.room_for(platform.db, me, chat_id)
    async with write(platform) as uow:
        sent = await posting.post_as_person(uow, me, snap.room, body.message, roster=snap.roster)
    return data(sent)
