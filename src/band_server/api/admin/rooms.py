"""Admin: any room of the deployment read as its members read it (timeline, roster, tasks,
board, files), for ``band export --all``. Reads only: an admin is not a member."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse, StreamingResponse

from band_protocol import Board, ChatMessage, ChatParticipant
from band_protocol.tasks import Task, TaskEvent

from ...http.deps import PlatformDep
from ...http.json_body import JsonRoute
from ...services.messages import timeline
from ...services.messages.posts import SortOrder
from ...services.rooms import files
from ...services.rooms import membership as rooms
from ...services.tasks import board
from ...services.tasks import room_tasks as tasks
from ..agent.messages import page_response
from ..answers import many, one
from ..listing import Cursor, Limit, data, listing
from ..room_files import BYTES
from ..room_tasks import Include, StateFilter
from .access import AdminDep

router = APIRouter(route_class=JsonRoute)


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


@router.get("/chats/{chat_id}/tasks", responses=many(Task))
async def list_tasks(
    platform: PlatformDep,
    admin: AdminDep,
    chat_id: str,
    state: StateFilter = "all",
    cursor: Cursor = None,
    limit: Limit = 50,
) -> dict[str, Any]:
    """The room's tasks by number (all states unless ``state`` says otherwise)."""
    async with platform.db.read() as session:
        room = await rooms.get_room(session, chat_id)
        page = await tasks.list_tasks(session, room, state=state, cursor=cursor, limit=limit)
    return listing(page.items, page.metadata(limit))


@router.get("/chats/{chat_id}/tasks/{task_id}/history", responses=many(TaskEvent))
async def task_history(
    platform: PlatformDep,
    admin: AdminDep,
    chat_id: str,
    task_id: str,
    cursor: Cursor = None,
    limit: Limit = 50,
) -> dict[str, Any]:
    """A task's append-only history, oldest first."""
    async with platform.db.read() as session:
        room = await rooms.get_room(session, chat_id)
        page = await tasks.task_history(session, room, task_id, cursor=cursor, limit=limit)
    return listing(page.history, page.metadata(limit))


@router.get("/chats/{chat_id}/board", responses=one(Board))
async def get_board(
    platform: PlatformDep,
    admin: AdminDep,
    chat_id: str,
    include: Include = None,
) -> dict[str, Any]:
    """The room's goal (an empty default until one is set)."""
    async with platform.db.read() as session:
        room = await rooms.get_room(session, chat_id)
        return data(await board.get_board(session, room, include))


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
    async with platform.db.read() as session:
        room = await rooms.get_room(session, chat_id)
    opened = await files.open_file(platform, await files.find_file(platform, room, file_id))
    headers = {"Content-Length": str(opened.length), "X-Content-Type-Options": "nosniff"}
    return StreamingResponse(opened.chunks, headers=headers, media_type=opened.file.content_type)
