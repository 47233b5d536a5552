"""Rooms and their participants: membership is the root of every authorisation decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from band_protocol import ChatParticipant, ParticipantEvent, topic, utcnow
from band_server.errors import Conflict, Forbidden, NotFound, ValidationFailed
from band_server.fanout.bus import Broadcast
from band_server.services.identity.principals import Principal
from band_server.services.keyset import offset_page
from band_server.services.views import from_row, room_event
from band_server.store.models import Agent, Participant, Room, User


@dataclass(frozen=True)
class Member:
    """A participant joined with the identity it stands for."""

    participant: Participant
    name: str
    handle: str
    description: str | None
    owner_id: str | None = None  # an agent's owner (None for a person)
    # The participant's identity, read once: each read of an ORM attribute is a descriptor
    # call, and a post reads a member's id a dozen times (mentions, rows, answer, pushes).
    id: str = field(init=False, compare=False, repr=False)
    type: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", self.participant.participant_id)
        object.__setattr__(self, "type", self.participant.participant_type)

    def view(self, online: bool = False) -> ChatParticipant:
        part = self.participant
        return from_row(ChatParticipant, self, role=part.role, status=part.status, online=online)

    def event(self) -> ParticipantEvent:
        return from_row(ParticipantEvent, self)


async def get_room(session: AsyncSession, room_id: str) -> Room:
    room = await session.get(Room, room_id)
    if room is None or room.deleted_at is not None:
        raise NotFound("Chat room not found")
    return room


async def membership(session: AsyncSession, room_id: str, principal_id: str) -> Participant | None:
    result: Participant | None = await session.scalar(
        select(Participant).filter_by(room_id=room_id, participant_id=principal_id, status="active")
    )
    return result


async def is_member(session: AsyncSession, room_id: str, principal_id: str) -> bool:
    return await membership(session, room_id, principal_id) is not None


async def room_for(session: AsyncSession, principal: Principal, room_id: str) -> Room:
    """The room if the caller participates in it; otherwise 404 (never reveal it exists)."""
    room: Room | None = await session.scalar(
        select(Room)
        .join(Participant, Participant.room_id == Room.id)
        .where(
            Room.id == room_id,
            Room.deleted_at.is_(None),
            Participant.participant_id == principal.id,
            Participant.status == "active",
        )
    )
    if room is None:
        raise NotFound("Chat room not found")
    return room


def joined_rooms(participant_id: str) -> Select[Room]:
    """The live rooms ``participant_id`` takes part in (as an active participant)."""
    return (
        select(Room)
        .join(Participant, Participant.room_id == Room.id)
        .where(
            Participant.participant_id == participant_id,
            Participant.status == "active",
            Room.deleted_at.is_(None),
        )
    )


async def list_rooms(
    session: AsyncSession, principal: Principal, *, page: int = 1, page_size: int = 50
) -> tuple[list[Room], int]:
    base = joined_rooms(principal.id)
    return await offset_page(
        session, base, Room.created_at, Room.id, page=page, page_size=page_size
    )


async def resolve_identity(
    session: AsyncSession, principal_id: str
) -> tuple[str, str, str, str | None]:
    """(type, name, handle, description) for a person or agent id, or 404."""
    agent = await session.get(Agent, principal_id)
    if agent is not None and agent.deleted_at is None:
        return "Agent", agent.name, agent.handle, agent.description
    user = await session.get(User, principal_id)
    if user is not None:
        return "User", user.name, user.handle, None
    raise NotFound("Participant not found")


async def members(session: AsyncSession, room_id: str) -> list[Member]:
    """Active participants with the identity each stands for, in joining order (one query)."""
    return await members_where(
        session,
        Participant.room_id == room_id,
        order_by=(Participant.created_at, Participant.id),
    )


async def members_where(
    session: AsyncSession,
    *where: ColumnElement[bool],
    order_by: tuple[ColumnElement[Any] | InstrumentedAttribute[Any], ...],
) -> list[Member]:
    """Active participants matching ``where``, with their identities, in ``order_by``."""
    rows = await session.execute(
        select(Participant, Agent, User)
        .outerjoin(
            Agent,
            (Participant.participant_type == "Agent") & (Agent.id == Participant.participant_id),
        )
        .outerjoin(
            User, (Participant.participant_type == "User") & (User.id == Participant.participant_id)
        )
        .where(*where, Participant.status == "active")
        .order_by(*order_by)
    )
    out: list[Member] = []
    for p, agent, user in rows:
        if agent is not None:
            out.append(Member(p, agent.name, agent.handle, agent.description, agent.owner_id))
        elif user is not None:
            out.append(Member(p, user.name, user.handle, None))
    return out


async def create_room(
    session: AsyncSession, owner: Principal, *, title: str | None, task_id: str | None
) -> tuple[Room, list[Broadcast]]:
    room = Room(title=title, task_id=task_id, owner_id=owner.id, owner_type=owner.sender_type)
    session.add(room)
    await session.flush()
    session.add(
        Participant(
            room_id=room.id,
            participant_id=owner.id,
            participant_type=owner.sender_type,
            role="owner",
        )
    )
    await session.flush()
    return room, [_room_membership_broadcast(owner.id, owner.sender_type, room, added=True)]


def _room_membership_broadcast(
    principal_id: str, ptype: str, room: Room, *, added: bool
) -> Broadcast:
    kind = "agent_rooms" if ptype == "Agent" else "user_rooms"
    meta: dict[str, object] = {}
    if not added:
        meta = {
            "principal": principal_id,
            "revoke": [topic("chat_room", room.id), topic("room_participants", room.id)],
        }
    return Broadcast(
        topic=topic(kind, principal_id),
        event="room_added" if added else "room_removed",
        payload=room_event(room).model_dump(mode="json"),
        meta=meta,
    )


def _roster_change(room: Room, member: Member, *, added: bool) -> list[Broadcast]:
    """The pushes of a participant joining or leaving: the room's roster hears who (with handle
    and description on joining), and the participant hears of the room."""
    if added:
        payload = member.event().model_dump(mode="json", exclude_none=True)
    else:
        payload = {"id": member.id, "name": member.name, "type": member.type}
    roster = Broadcast(
        topic=topic("room_participants", room.id),
        event="participant_added" if added else "participant_removed",
        payload=payload,
    )
    return [roster, _room_membership_broadcast(member.id, member.type, room, added=added)]


async def add_participant(
    session: AsyncSession, actor: Principal, room: Room, participant_id: str, role: str = "member"
) -> tuple[Member, list[Broadcast]]:
    actor_part = await membership(session, room.id, actor.id)
    if actor_part is None:
        raise NotFound("Chat room not found")
    if role == "owner":
        raise ValidationFailed("role can't be owner", {"/participant/role": ["can't be owner"]})
    ptype, name, handle, description = await resolve_identity(session, participant_id)
    existing = await session.scalar(
        select(Participant).filter_by(room_id=room.id, participant_id=participant_id)
    )
    if existing is not None and existing.status == "active":
        raise Conflict("Participant is already in the room", code="already_participant")
    if existing is not None:
        existing.status = "active"
        existing.role = role
        existing.created_at = utcnow()
        part = existing
    else:
        part = Participant(
            room_id=room.id, participant_id=participant_id, participant_type=ptype, role=role
        )
        session.add(part)
    room.updated_at = utcnow()
    await session.flush()
    member = Member(part, name, handle, description)
    return member, _roster_change(room, member, added=True)


def removal_refusal(
    actor: Principal, actor_role: str, participant_id: str, target_role: str
) -> str | None:
    """Why ``actor`` (with ``actor_role`` in the room) may not remove someone, or None."""
    if participant_id == actor.id:
        return None
    if actor_role == "member" and actor.kind == "user":
        return "Only the room's owner or an admin can remove others"
    if target_role == "owner":
        return "The room's owner can't be removed"
    return None


async def remove_participant(
    session: AsyncSession, actor: Principal, room: Room, participant_id: str
) -> tuple[Member, list[Broadcast]]:
    actor_part = await membership(session, room.id, actor.id)
    if actor_part is None:
        raise NotFound("Chat room not found")
    target = await membership(session, room.id, participant_id)
    if target is None:
        raise NotFound("Participant not found")
    refusal = removal_refusal(actor, actor_part.role, participant_id, target.role)
    if refusal is not None:
        raise Forbidden(refusal)
    _, name, handle, description = await resolve_identity(session, participant_id)
    target.status = "removed"
    room.updated_at = utcnow()
    await session.flush()
    member = Member(target, name, handle, description)
    return member, _roster_change(room, member, added=False)


TITLE_MAX = 120


def clean_title(title: str) -> str:
    """A room title trimmed, 1..120 characters, with no line break or NUL (else 422)."""
    if any(ch in title for ch in "\n\r\x00"):
        raise ValidationFailed(
            "title can't hold a line break or NUL", {"/chat/title": ["has a forbidden character"]}
        )
    cleaned = title.strip()
    if not 1 <= len(cleaned) <= TITLE_MAX:
        raise ValidationFailed(
            f"title must be 1 to {TITLE_MAX} characters", {"/chat/title": ["has a bad length"]}
        )
    return cleaned


async def rename_room(
    session: AsyncSession, actor: Principal, room: Room, title: str
) -> tuple[Room, list[Broadcast]]:
    """Rename a room the caller owns (403 for another participant). The same title again is a
    no-op; a new one is pushed to the room's people as ``room_updated``."""
    cleaned = clean_title(title)
    part = await membership(session, room.id, actor.id)
    if part is None:
        raise NotFound("Chat room not found")
    if part.role != "owner":
        raise Forbidden("Only the room's owner can rename it", code="not_room_owner")
    if room.title == cleaned:
        return room, []
    room.title = cleaned
    room.updated_at = utcnow()
    await session.flush()
    update = Broadcast(
        topic=topic("chat_room", room.id),
        event="room_updated",
        payload=room_event(room).model_dump(mode="json"),
        agents=frozenset(),  # agents' clients have no handler for it; they read the room
    )
    return room, [update]


async def delete_room(session: AsyncSession, room: Room) -> list[Broadcast]:
    """Soft-delete a room: it leaves every participant's list and their sockets are revoked."""
    parts = list(
        await session.scalars(
            select(Participant).where(
                Participant.room_id == room.id, Participant.status == "active"
            )
        )
    )
    room.deleted_at = utcnow()
    room.updated_at = room.deleted_at
    await session.flush()
    return [
        _room_membership_broadcast(p.participant_id, p.participant_type, room, added=False)
        for p in parts
    ]
