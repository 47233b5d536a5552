"""Inviting someone into a room: only the caller's peers, named by id or handle."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import NotFound, ValidationFailed
from ..store.models import Room
from .parties import party_by_handle, party_by_id
from .peers import can_reach
from .principals import Principal
from .rooms import Member, add_participant, create_room, room_for
from .unit import UnitOfWork


async def invite(
    uow: UnitOfWork, actor: Principal, room_id: str, who: str, role: str = "member"
) -> Member:
    """Add a peer of the caller to a room the caller is in.

    Someone who is not the caller's peer is reported as not found, exactly like an unknown id,
    so the answer never reveals who exists on the platform.
    """
    room = await room_for(uow.session, actor, room_id)
    return await invite_member(uow, actor, room, who, role)


async def invite_member(
    uow: UnitOfWork, actor: Principal, room: Room, who: str, role: str = "member"
) -> Member:
    """Add a peer of the caller (an id or a handle) to ``room``; 404 for anyone else."""
    session = uow.session
    party = await party_by_id(session, who) or await party_by_handle(session, who)
    if party is None or not await can_reach(session, actor, party.id):
        raise NotFound("Participant not found")
    member, broadcasts = await add_participant(session, actor, room, party.id, role)
    uow.emit(*broadcasts)
    return member


async def create_room_with(
    uow: UnitOfWork, owner: Principal, *, title: str | None, invite: Sequence[str]
) -> Room:
    """A new room owned by ``owner`` with the given peers in it (all or nothing). Without a
    title the room is named after the others in it."""
    title = (title or "").strip() or None
    if title is not None and len(title) > 200:
        raise ValidationFailed("title is too long", {"/chat/title": ["is too long (max 200)"]})
    room, broadcasts = await create_room(uow.session, owner, title=title, task_id=None)
    uow.emit(*broadcasts)
    names = [
        (await invite_member(uow, owner, room, who)).name
        for who in dict.fromkeys(invite)
        if who != owner.id
    ]
    if title is None and names:
        room.title = ", ".join(names)[:200]
        await uow.session.flush()
    return room
