"""How a person wants to hear about each of their rooms: ``all`` messages, only ``mentions``
(the default), or ``none``; and which rooms are direct (the person and one other), where every
message counts as addressed to them unless they chose ``none``. The browser decides when to
show a notification (web/static/notify.js); this is what it reads and writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.errors import ValidationFailed
from band_server.services.identity.principals import Principal
from band_server.services.rooms.membership import room_for
from band_server.store.models import Participant, Room, RoomNotify

Level = Literal["all", "mentions", "none"]
LEVELS: tuple[Level, ...] = ("all", "mentions", "none")
DEFAULT: Level = "mentions"


@dataclass(frozen=True)
class Notify:
    level: Level
    direct: bool
    title: str = ""


async def for_person(session: AsyncSession, person: Principal) -> dict[str, Notify]:
    """Every room of the person with its title, level and whether it is direct."""
    rows = (
        await session.execute(
            select(Room.id, Room.title, Room.task_id)
            .join(Participant, Participant.room_id == Room.id)
            .where(
                Participant.participant_id == person.id,
                Participant.status == "active",
                Room.deleted_at.is_(None),
            )
        )
    ).all()
    found = await of_rooms(session, person, [r.id for r in rows])
    return {
        r.id: Notify(
            found[r.id].level, found[r.id].direct, r.title or r.task_id or f"Room {r.id[:8]}"
        )
        for r in rows
    }


async def of_rooms(
    session: AsyncSession, person: Principal, room_ids: Sequence[str]
) -> dict[str, Notify]:
    """Each room's level (chosen or the default) and whether it is direct (two queries)."""
    if not room_ids:
        return {}
    chosen = {
        room_id: level
        for room_id, level in await session.execute(
            select(RoomNotify.room_id, RoomNotify.level).where(
                RoomNotify.user_id == person.id, RoomNotify.room_id.in_(room_ids)
            )
        )
    }
    sizes = {
        room_id: int(count)
        for room_id, count in await session.execute(
            select(Participant.room_id, func.count())
            .where(Participant.room_id.in_(room_ids), Participant.status == "active")
            .group_by(Participant.room_id)
        )
    }
    return {
        room_id: Notify(cast(Level, chosen.get(room_id, DEFAULT)), sizes.get(room_id, 0) == 2)
        for room_id in room_ids
    }


async def set_level(session: AsyncSession, person: Principal, room_id: str, level: str) -> Level:
    """Choose the level for one of the person's rooms (404 for a room they are not in)."""
    if level not in LEVELS:
        raise ValidationFailed(
            "level must be all, mentions or none", {"/level": ["is not a level"]}
        )
    await room_for(session, person, room_id)
    await session.execute(
        delete(RoomNotify).where(RoomNotify.user_id == person.id, RoomNotify.room_id == room_id)
    )
    if level != DEFAULT:
        session.add(RoomNotify(user_id=person.id, room_id=room_id, level=level))
    await session.flush()
    return level
