"""A room's board for the room page's side panel: the goal and the active tasks with their
statuses, read through the same services as ``GET .../chats/{id}/board`` and ``.../tasks``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..services.identity.web_sessions import SignedIn
from ..services.tasks import board
from ..services.tasks import room_tasks as tasks
from .respond import json, platform_of, view

router = APIRouter()

SHOWN = 100
"""Active tasks the panel lists (by number); a longer board says that more exist."""


@router.get("/rooms/{room_id}/board")
async def room_board(request: Request, room_id: str) -> Response:
    """The goal and the active tasks, as JSON; the page asks again on every task event."""

    async def run(me: SignedIn) -> Response:
        platform = platform_of(request)
        snap = await platform.rosters.room_for(platform.db, me.person, room_id)
        async with platform.db.read() as session:
            goal = await board.get_board(session, snap.room)
            page = await tasks.list_tasks(
                session, snap.room, state="active", cursor=None, limit=SHOWN
            )
        return json(
            {
                "board": goal.model_dump(mode="json"),
                "tasks": [t.model_dump(mode="json") for t in page.items],
                "has_more": page.has_more,
            }
        )

    return await view(request, run)
