"""Inviting someone into a room: only the caller's peers, named by id or handle."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from band_server.errors import NotFound, ValidationFailed
from band_server.services.contacts.peers import can_reach
from band_server.services.identity.parties import Party, party_by_handle, party_by_id
from band_server.services.identity.principals import Principal
from band_server.services.rooms.membership import Member, add_participant, create_room, room_for
from band_server.services.unit import UnitOfWork
from band_server.store.models import Room

TITLE_MAX = 200
"""The longest title a room is created with (the web form's limit)."""


async def invite(
    uow: UnitOfWork, actor: Principal, room_id: str, who: str, role: str = "member"
) -> Member:
    """Add a peer of the caller to a room the caller is in.

    Someone who is not the caller's peer is reported as not found, exactly like an unknown id,
    so the answer never reveals who exists on the platform.
    """
    room = await room_for(uow.session, actor, room_id)
    return await invite_member(uow, actor, room, who, role)


async def _reachable(session: AsyncSession, actor: Principal, who: str) -> Party:
    """A peer of the caller named by id or handle; 404 for anyone else (never says who exists)."""
    party = await party_by_id(session, who) or await party_by_handle(session, who)
    if party is None or not await can_reach(session, actor, party.id):
        raise NotFound("Participant not found")
    return party


async def invite_member(
    uow: UnitOfWork, actor: Principal, room: Room, who: str, role: str = "member"
) -> Member:
    """Add a peer of the caller (an id or a handle) to ``room``; 404 for anyone else."""
    party = await _reachable(uow.session, actor, who)
    member, broadcasts = await add_participant(uow.session, actor, room, party.id, role)
    uow.emit(*broadcasts)
    return member


def new_room_title(title: str | None, owner: str, others: Sequence[str]) -> str:
    """The title a new room gets: the one given (trimmed), else the names of the others in
    it in the order chosen, else (a room of one) the owner's name. Too long a title is 422."""
    given = (title or "").strip()
    if len(given) > TITLE_MAX:
        raise ValidationFailed(
            "title is too long", {"/chat/title": [f"is too long (max {TITLE_MAX})"]}
        )
    return given or ", ".join(others)[:TITLE_MAX] or owner[:TITLE_MAX]


async def create_room_with(
    uow: UnitOfWork, owner: Principal, *, title: str | None, invite: Sequence[str]
) -> Room:
    """A new room owned by ``owner`` with the given peers in it (all or nothing). Without a
    title the room is named after the others in it (`new_room_title`), before anything is
    pushed, so every ``room_added`` (the owner's, each guest's) carries the name the room
    list shows."""
    new_room_title(title, owner.name, [])  # a bad title is refused before anything else
    guests: dict[str, Party] = {}
    for who in dict.fromkeys(invite):
        party = await _reachable(uow.session, owner, who)
        if party.id != owner.id:
            guests.setdefault(party.id, party)
    title = new_room_title(title, owner.name, [p.name for p in guests.values()])
    room, broadcasts = await create_room(uow.session, owner, title=title, task_id=None)
    uow.emit(*broadcasts)
    for party in guests.values():
        _, added = await add_participant(uow.session, owner, room, party.id)
        uow.emit(*added)
    return room
