"""A turn of an agent, opened from a message's delivery status (the room page's panel)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..services.deliveries import turns
from ..services.identity.web_sessions import SignedIn
from .respond import json, platform_of, view

router = APIRouter()


@router.get("/rooms/{room_id}/turns/{message_id}/{agent_id}")
async def turn(request: Request, room_id: str, message_id: str, agent_id: str) -> Response:
    """The agent's turn on the message as JSON: times, steps, errors (services.deliveries.turns)."""

    async def run(me: SignedIn) -> Response:
        async with platform_of(request).db.read() as session:
            return json(await turns.turn_of(session, me.person, room_id, message_id, agent_id))

    return await view(request, run)
