"""Agent surface: posting, reading and acknowledging a room's messages."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Response
from fastapi.responses import JSONResponse

from band_protocol import (
    WORKING_HEADER,
    ActivityBody,
    ActivityResponse,
    ChatMessage,
    EventCreateBody,
    EventCreatedResponse,
    FailedBody,
    MessageCreateBody,
    MessageSentResponse,
    MessageStatusResponse,
    says_true,
)

from ...http.deps import AgentDep, PlatformDep
from ...http.idempotency import claims_in_its_unit
from ...http.json_body import JsonRoute
from ...services import unit
from ...services.deliveries import activity, leases, passing_over, working
from ...services.deliveries import marks as deliveries
from ...services.messages import posts as messages
from ...services.messages.paging import DEFAULT_LIMIT, MAX_LIMIT, MessagePage, SortOrder, Window
from ...services.messages.posts import QueueStatus
from ...services.rooms import membership as rooms
from ..answers import answers, many, one
from ..listing import Cursor, OffsetPage

router = APIRouter(route_class=JsonRoute)

NEXT = {**one(ChatMessage), **answers(None, 204, "No message waits for the agent")}

SUNSET = "Thu, 01 Oct 2026 00:00:00 GMT"
"""When offset paging on messages and context goes away (API 2.0.0)."""

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]
PageSize = Annotated[int | None, Query(ge=1, le=MAX_LIMIT)]


def page_response(page: MessagePage) -> JSONResponse:
    """``{"data", "metadata"}``; offset paging also gets ``Deprecation`` and ``Sunset``."""
    headers = {"Deprecation": "true", "Sunset": SUNSET} if page.deprecated else None
    body = {"data": [m.model_dump(mode="json") for m in page.items], "metadata": page.metadata}
    return JSONResponse(body, headers=headers)


@router.post("/chats/{chat_id}/messages", status_code=201, responses=one(MessageSentResponse, 201))
@claims_in_its_unit
async def post_message(
    platform: PlatformDep, agent: AgentDep, chat_id: str, body: MessageCreateBody
) -> dict[str, Any]:
    """Post a text message that mentions at least one participant."""
    snap = platform.rosters.cached_for(agent, chat_id) or await platform.rosters.room_for(
        platform.db, agent, chat_id
    )
    async with unit.write(platform) as uow:
        await leases.sign_of_life(uow, platform.lease_clock, agent.id, snap.room.id)
        sent = await messages.post_message(
            uow,
            agent,
            snap.room,
            body.message,
            loop_limit=platform.settings.agent_loop_limit,
            roster=snap.roster,
            claims=platform,
        )
        return uow.keep_answer(201, {"data": sent}, secret_free=True)


@router.post("/chats/{chat_id}/events", status_code=201, responses=one(EventCreatedResponse, 201))
@claims_in_its_unit
async def post_event(
    platform: PlatformDep, agent: AgentDep, chat_id: str, body: EventCreateBody
) -> dict[str, Any]:
    """Post an event (thought, tool call, ...); events are never delivered to agents."""
    snap = platform.rosters.cached_for(agent, chat_id) or await platform.rosters.room_for(
        platform.db, agent, chat_id
    )
    async with unit.write(platform) as uow:
        await leases.sign_of_life(uow, platform.lease_clock, agent.id, snap.room.id)
        created = await messages.post_event(uow, agent, snap.room, body.event)
        return uow.keep_answer(201, {"data": created}, secret_free=True)


@router.get("/chats/{chat_id}/messages", responses=many(ChatMessage))
async def list_messages(
    platform: PlatformDep,
    agent: AgentDep,
    chat_id: str,
    status: QueueStatus | None = None,
    sort_order: SortOrder = "asc",
    limit: Limit = messages.QUEUE_LIMIT,
    cursor: Cursor = None,
    page: OffsetPage = None,
    page_size: PageSize = None,
) -> JSONResponse:
    """The agent's work queue in the room: messages addressed to it, by delivery status."""
    window = Window(
        sort_order=sort_order, limit=limit, cursor=cursor, page=page, page_size=page_size
    )
    async with platform.db.read() as session:
        room = await rooms.room_for(session, agent, chat_id)
        found = await messages.agent_queue(session, room, agent.id, window, status=status)
    return page_response(found)


@router.get("/chats/{chat_id}/context", responses=many(ChatMessage))
async def get_context(
    platform: PlatformDep,
    agent: AgentDep,
    chat_id: str,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    page: OffsetPage = None,
    page_size: PageSize = None,
) -> JSONResponse:
    """The agent's history in the room, oldest first."""
    window = Window(limit=limit, cursor=cursor, page=page, page_size=page_size)
    async with platform.db.read() as session:
        room = await rooms.room_for(session, agent, chat_id)
        found = await messages.context_messages(session, room, agent.id, window)
    return page_response(found)


@router.get(
    "/chats/{chat_id}/messages/next",
    response_model=None,
    responses={**one(ChatMessage), **answers(None, 204, "No message waits for the agent")},
)
async def next_message(
    platform: PlatformDep, agent: AgentDep, chat_id: str
) -> JSONResponse | Response:
    """The next message for this agent: the oldest open one, those it failed (or whose
    attempt expired, or that it went past) last; 204 with no body when none is open."""
    snap = platform.rosters.cached_for(agent, chat_id) or await platform.rosters.room_for(
        platform.db, agent, chat_id
    )
    msg = await passing_over.next_for_agent(platform, agent.id, snap.room)
    if msg is None:
        return Response(status_code=204)
    return JSONResponse({"data": msg})


WorkingHeader = Annotated[
    str | None,
    Header(
        alias=WORKING_HEADER,
        description="`true`: also start the working indicator, as `/activity` would",
    ),
]
_ECHO = {WORKING_HEADER: "true"}
_CLAIM = one(MessageStatusResponse)
_CLAIM[200]["headers"] = {
    WORKING_HEADER: {
        "description": "`true` when the claim started the working indicator; the message's "
        "`/processed` or `/failed` ends it",
        "schema": {"type": "string", "enum": ["true"]},
    }
}


@router.post(
    "/chats/{chat_id}/messages/{message_id}/processing", response_model=None, responses=_CLAIM
)
async def mark_processing(
    platform: PlatformDep,
    agent: AgentDep,
    chat_id: str,
    message_id: str,
    band_working: WorkingHeader = None,
) -> dict[str, Any] | JSONResponse:
    """Claim a message (opens an attempt, or returns the live one); with ``Band-Working:
    true`` it also starts the working indicator and says so with the same header."""
    snap = platform.rosters.cached_for(agent, chat_id) or await platform.rosters.room_for(
        platform.db, agent, chat_id
    )
    async with unit.write(platform) as uow:
        status = await deliveries.mark_processing(
            uow, agent, snap.room, message_id, platform.lease_clock
        )
    if not says_true(band_working):
        return {"data": status}
    await working.claimed_working(platform, agent.id, snap.room.id, status["id"])
    return JSONResponse({"data": status}, headers=_ECHO)


@router.post(
    "/chats/{chat_id}/messages/{message_id}/processed", responses=one(MessageStatusResponse)
)
async def mark_processed(
    platform: PlatformDep, agent: AgentDep, chat_id: str, message_id: str
) -> dict[str, Any]:
    """Acknowledge a message as handled (ends the working indicator its claim started)."""
    snap = platform.rosters.cached_for(agent, chat_id) or await platform.rosters.room_for(
        platform.db, agent, chat_id
    )
    async with unit.write(platform) as uow:
        status = await deliveries.mark_processed(uow, agent, snap.room, message_id)
    await working.turn_ended(platform, agent.id, snap.room.id, status["id"])
    return {"data": status}


@router.post("/chats/{chat_id}/messages/{message_id}/failed", responses=one(MessageStatusResponse))
async def mark_failed(
    platform: PlatformDep,
    agent: AgentDep,
    chat_id: str,
    message_id: str,
    body: FailedBody | None = None,
) -> dict[str, Any]:
    """Report a failed attempt; the message will be served again by ``/next`` (ends the
    working indicator its claim started)."""
    snap = platform.rosters.cached_for(agent, chat_id) or await platform.rosters.room_for(
        platform.db, agent, chat_id
    )
    async with unit.write(platform) as uow:
        status = await deliveries.mark_failed(
            uow, agent, snap.room, message_id, body.error if body else None
        )
    await working.turn_ended(platform, agent.id, snap.room.id, status["id"])
    return {"data": status}


@router.post("/chats/{chat_id}/activity", responses=one(ActivityResponse))
async def report_activity(
    platform: PlatformDep, agent: AgentDep, chat_id: str, body: ActivityBody
) -> dict[str, Any]:
    """The "working…" indicator; refreshed every few seconds while a turn runs."""
    return {"data": await activity.report_activity(platform, agent, chat_id, body.working)}
