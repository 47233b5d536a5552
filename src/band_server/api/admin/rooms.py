"""Admin: any room of the deployment read as its members read it (timeline, roster, tasks,
board, files), for ``band export --all``. Reads only: an admin is not a member."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse, StreamingResponse

from band_protocol import ChatMessage, ChatParticipant

from ...context import Platform
from ...http.deps import PlatformDep
from ...http.json_body import JsonRoute
from ...services.identity.principals import Principal
from ...services.messages import timeline
from ...services.messages.posts import SortOrder
from ...services.rooms import files
from ...services.rooms import membership as rooms
from ..agent.messages import page_response
from ..answers import many
from ..listing import Cursor, Limit
from ..room_files import BYTES
from ..room_tasks import task_reads
from .access import AdminDep, current_admin

if TYPE_CHECKING:
    from ...store.models import Room

router = APIRouter(route_class=JsonRoute)


async def any_room(platform: Platform, admin: Principal, chat_id: str) -> Room:
    """Any live room of the deployment (404 when there is none): an admin reads it without
    being a member."""
    async with platform.db.read() as session:
        return await rooms.get_room(session, chat_id)


@router.get("/chats/{chat_id}/messages", responses=many(ChatMessage))
async def list_messages(
    platform: PlatformDep,
    admin: AdminDep,
    chat_id: str,
    sort_order: SortOrder = "asc",
    cursor: Cursor = None,
    limit: Limit = 100,
) -> JSONResponse:
    """Every message and event of the room, oldest first by default, keyset-paged."""
    query = timeline.TimelineQuery(sort_order=sort_order, limit=limit, cursor=cursor)
    async with platform.db.read() as session:
        room = await rooms.get_room(session, chat_id)
        return page_response(await timeline.read(session, room, query))


@router.get("/chats/{chat_id}/participants", responses=many(ChatParticipant))
async def list_participants(platform: PlatformDep, admin: AdminDep, chat_id: str) -> Any:
    """The room's current participants, in joining order."""
    async with platform.db.read() as session:
        await rooms.get_room(session, chat_id)
        found = await rooms.members(session, chat_id)
    online = platform.presence.is_online
    return {"data": [m.view(online(m.id)).model_dump(mode="json") for m in found]}


task_reads(router, current_admin, any_room, "all")


@router.get(
    "/chats/{chat_id}/files/{file_id}",
    response_class=Response,
    responses={
        200: {"content": {"*/*": {"schema": BYTES}}, "description": "File bytes"},
        503: {"description": "The file's bytes can't be read right now; retry"},
    },
)
async def download_file(
    platform: PlatformDep, admin: AdminDep, chat_id: str, file_id: str
) -> Response:
    """The exact bytes of a room's file."""
    room = await any_room(platform, admin, chat_id)
    opened = await files.open_file(platform, await files.find_file(platform, room, file_id))
    headers = {"Content-Length": str(opened.length), "X-Content-Type-Options": "nosniff"}
    return StreamingResponse(opened.chunks, headers=headers, media_type=opened.file.content_type)
