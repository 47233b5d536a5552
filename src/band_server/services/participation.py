"""Inviting someone into a room: only the caller's peers, named by id or handle."""

from __future__ import annotations

from ..errors import NotFound
from .parties import party_by_handle, party_by_id
from .peers import can_reach
from .principals import Principal
from .rooms import Member, add_participant, room_for
from .unit import UnitOfWork


async def invite(
    uow: UnitOfWork, actor: Principal, room_id: str, who: str, role: str = "member"
) -> Member:
    """Add a peer of the caller to a room the caller is in.

    Someone who is not the caller's peer is reported as not found, exactly like an unknown id,
    so the answer never reveals who exists on the platform.
    """
    session = uow.session
    room = await room_for(session, actor, room_id)
    party = await party_by_id(session, who) or await party_by_handle(session, who)
    if party is None or not await can_reach(session, actor, party.id):
        raise NotFound("Participant not found")
    member, broadcasts = await add_participant(session, actor, room, party.id, role)
    uow.emit(*broadcasts)
    return member
