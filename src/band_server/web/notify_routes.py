"""Notifications: what the page's script needs to decide (each room's level, whether it is
direct, its title) and the level a person chooses for a room."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..services.identity.web_sessions import SignedIn
from ..services.rooms import notify_levels
from ..services.unit import write
from .respond import Form, action, field, json, platform_of, view

router = APIRouter()


@router.get("/notify")
async def levels(request: Request) -> Response:
    """``{"rooms": {id: {"level", "direct", "title"}}}`` for the signed-in person's rooms."""

    async def run(me: SignedIn) -> Response:
        async with platform_of(request).db.read() as session:
            rooms = await notify_levels.for_person(session, me.person)
        return json(
            {
                "rooms": {
                    room_id: {"level": n.level, "direct": n.direct, "title": n.title}
                    for room_id, n in rooms.items()
                }
            }
        )

    return await view(request, run)


@router.post("/rooms/{room_id}/notify")
async def choose(request: Request, room_id: str) -> Response:
    """Set the person's level for the room: all, mentions or none."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            level = await notify_levels.set_level(
                uow.session, me.person, room_id, field(form, "level")
            )
        return json({"level": level})

    return await action(request, run)
