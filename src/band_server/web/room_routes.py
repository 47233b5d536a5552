"""Rooms: the list with unread counts, creating a room, one room's page and its live data."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError

from band_protocol import MAX_ATTACHMENTS
from band_protocol.messages import MAX_MESSAGE_CHARS, MessageCreateFields

from ..errors import ValidationFailed
from ..services.contacts import peers
from ..services.identity.web_sessions import SignedIn
from ..services.messages import person_posts as posting
from ..services.rooms import invites as participation
from ..services.rooms import membership as rooms
from ..services.rooms import reading
from ..services.unit import write
from .render import page
from .respond import Form, action, done, field, json, platform_of, view, wants_json
from .views import room_state, room_title

router = APIRouter()


def _int(text: str | None, pointer: str) -> int | None:
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise ValidationFailed(f"{pointer[1:]} must be a whole number", {pointer: ["is invalid"]})
    return int(text)


@router.get("/rooms")
async def room_list(request: Request) -> Response:
    """The person's rooms (last activity, unread) and the Create room dialog; as JSON for the
    page's script, which asks again whenever the socket says a room changed."""

    async def run(me: SignedIn) -> Response:
        platform = platform_of(request)
        async with platform.db.read() as session:
            summaries = await reading.room_summaries(session, me.person)
            if wants_json(request):
                return json({"rooms": [_summary(s) for s in summaries]})
            candidates = await peers.all_peers(session, me.person, platform.presence.is_online)
        return page(
            "rooms.html",
            me,
            section="rooms",
            summaries=summaries,
            title_of=room_title,
            follow_max=FOLLOW_MAX,
            agents=[p for p in candidates if p.type == "Agent"],
            people=[p for p in candidates if p.type == "User"],
        )

    return await view(request, run)


FOLLOW_MAX = 100
"""How many rooms (the most recently active) the Rooms page follows message by message. A room
past it moves up when any other change makes the page ask again (a message in a followed
room, a room added or removed, a reconnect), never later than that."""


def _summary(s: reading.RoomSummary) -> dict[str, object]:
    return {
        "id": s.room.id,
        "title": room_title(s.room),
        "unread": s.unread,
        "last_activity": s.last_activity.isoformat(),
        "preview": s.preview,
    }


@router.post("/rooms")
async def create_room(request: Request) -> Response:
    """Create a room with the chosen agents and people, then open it."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            room = await participation.create_room_with(
                uow, me.person, title=field(form, "title"), invite=form.get("participant", [])
            )
        url = f"/rooms/{room.id}"
        return done(request, url, {"id": room.id, "url": url}, 201)

    return await action(request, run)


@router.get("/rooms/{room_id}")
async def room_page(request: Request, room_id: str) -> Response:
    """A room: the live timeline, the composer and the participants panel."""

    async def run(me: SignedIn) -> Response:
        async with platform_of(request).db.read() as session:
            room = await rooms.room_for(session, me.person, room_id)
        return page(
            "room.html",
            me,
            section="rooms",
            room=room,
            title=room_title(room),
            max_file_bytes=platform_of(request).settings.max_file_bytes,
            max_attachments=MAX_ATTACHMENTS,
            trace_url=platform_of(request).settings.trace_url or "",
        )

    return await view(request, run)


@router.get("/rooms/{room_id}/timeline")
async def timeline(request: Request, room_id: str) -> Response:
    """The room's messages after ``after`` (a sequence number), roster and activity, as JSON."""

    async def run(me: SignedIn) -> Response:
        after = _int(request.query_params.get("after"), "/after")
        platform = platform_of(request)
        async with platform.db.read() as session:
            room = await rooms.room_for(session, me.person, room_id)
            state = await room_state(session, platform, me.person, room, after)
        return json(state)

    return await view(request, run)


def _refused(exc: ValidationError) -> ValidationFailed:
    """The composer's message broke a limit: which one, in words."""
    if any(e["loc"][:1] == ("attachment_ids",) for e in exc.errors()):
        return ValidationFailed(
            f"A message can carry at most {MAX_ATTACHMENTS} files",
            {"/message/attachment_ids": [f"at most {MAX_ATTACHMENTS} files"]},
        )
    return ValidationFailed(
        f"The message is too long (at most {MAX_MESSAGE_CHARS} characters)",
        {"/message/content": ["is too long"]},
    )


@router.post("/rooms/{room_id}/messages")
async def post_message(request: Request, room_id: str) -> Response:
    """Post the composer's text as the signed-in person (``@Name`` and ``@handle`` mention),
    with the files it uploaded to the room (``attachment``, one field per file)."""

    async def run(me: SignedIn, form: Form) -> Response:
        try:
            fields = MessageCreateFields(
                content=field(form, "content"), attachment_ids=form.get("attachment", [])
            )
        except ValidationError as exc:
            raise _refused(exc) from None
        platform = platform_of(request)
        snap = await platform.rosters.room_for(platform.db, me.person, room_id)
        async with write(platform) as uow:
            sent = await posting.post_as_person(
                uow, me.person, snap.room, fields, roster=snap.roster, claims=platform
            )
        return done(request, f"/rooms/{room_id}", sent.model_dump(mode="json"), 201)

    return await action(request, run)


@router.post("/rooms/{room_id}/read")
async def mark_read(request: Request, room_id: str) -> Response:
    """Move the person's read marker (what the room list counts as unread)."""

    async def run(me: SignedIn, form: Form) -> Response:
        seq = _int(field(form, "seq"), "/seq") or 0
        async with write(platform_of(request)) as uow:
            marker = await reading.mark_read(uow.session, me.person, room_id, seq)
        return json({"last_read_seq": marker})

    return await action(request, run)


@router.post("/rooms/{room_id}/participants")
async def add_participant(request: Request, room_id: str) -> Response:
    """Add one of the person's agents or contacts to the room."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            member = await participation.invite(uow, me.person, room_id, field(form, "participant"))
        return done(request, f"/rooms/{room_id}", {"id": member.id}, 201)

    return await action(request, run)


@router.post("/rooms/{room_id}/participants/{participant_id}/remove")
async def remove_participant(request: Request, room_id: str, participant_id: str) -> Response:
    """Remove someone from the room (the owner may remove others; anyone may leave)."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            room = await rooms.room_for(uow.session, me.person, room_id)
            member, broadcasts = await rooms.remove_participant(
                uow.session, me.person, room, participant_id
            )
            uow.emit(*broadcasts)
        to = "/rooms" if member.id == me.person.id else f"/rooms/{room_id}"
        return done(request, to, {"id": member.id, "url": to})

    return await action(request, run)
