"""Human surface: reading and posting a room's messages."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from band_protocol import ChatMessage, MessageCreateBody, MessageSentResponse

from ...http.deps import PlatformDep, UserDep
from ...http.idempotency import claims_in_its_unit
from ...http.json_body import JsonRoute
from ...services.messages import person_posts as posting
from ...services.messages import posts as messages
from ...services.messages import timeline
from ...services.messages.posts import SortOrder
from ...services.rooms import membership as rooms
from ...services.unit import write
from ..agent.messages import Limit, PageSize, page_response
from ..answers import many, one
from ..listing import Cursor, IncludeQuery, InstantQuery, OffsetPage, listed_values, parse_instant

router = APIRouter(route_class=JsonRoute)


Anchor = Annotated[str | None, Query(max_length=200)]
"""A message id to read after, before or around."""


@router.get("/chats/{chat_id}/messages", responses=many(ChatMessage))
async def list_messages(
    platform: PlatformDep,
    me: UserDep,
    chat_id: str,
    sort_order: SortOrder = "desc",
    limit: Limit = messages.DEFAULT_LIMIT,
    cursor: Cursor = None,
    page: OffsetPage = None,
    page_size: PageSize = None,
    message_type: timeline.MessageTypeName | None = None,
    message_types: IncludeQuery = None,
    exclude_message_types: IncludeQuery = None,
    since: InstantQuery = None,
    after: Anchor = None,
    before: Anchor = None,
    around: Anchor = None,
) -> JSONResponse:
    """Every message and event of the room, newest first as the contract says
    (``sort_order=asc`` for oldest first), keyset-paged by ``cursor``/``limit``; filtered by
    type (``message_type``, ``message_types`` or ``exclude_message_types``) or by time
    (``since``); or read relative to a message (``after``, ``before``, ``around``)."""
    query = timeline.TimelineQuery(
        sort_order=sort_order,
        limit=limit,
        cursor=cursor,
        page=page,
        page_size=page_size,
        message_type=message_type,
        message_types=listed_values(message_types, timeline.MESSAGE_TYPES, "message_types"),
        exclude_message_types=listed_values(
            exclude_message_types, timeline.MESSAGE_TYPES, "exclude_message_types"
        ),
        since=parse_instant(since, "since"),
        after=after,
        before=before,
        around=around,
    )
    async with platform.db.read() as session:
        room = await rooms.room_for(session, me, chat_id)
        found = await timeline.read(session, room, query)
    return page_response(found)


@router.post("/chats/{chat_id}/messages", status_code=201, responses=one(MessageSentResponse, 201))
@claims_in_its_unit
async def post_message(
    platform: PlatformDep, me: UserDep, chat_id: str, body: MessageCreateBody
) -> dict[str, Any]:
    """Post a text message; mentions are optional, and ``@handle`` in the text counts.

    With an ``Idempotency-Key`` the answer is kept in the message's own transaction: a node
    that dies after the commit leaves a replayable answer, not a claim that blocks retries."""
    snap = platform.rosters.cached_for(me, chat_id) or await platform.rosters.room_for(
        platform.db, me, chat_id
    )
    async with write(platform) as uow:
        fields = posting.person_fields(body.message, snap.roster, me.id)
        sent = await messages.post_message(
            uow, me, snap.room, fields, roster=snap.roster, claims=platform
        )
        return uow.keep_answer(201, {"data": sent}, secret_free=True)
