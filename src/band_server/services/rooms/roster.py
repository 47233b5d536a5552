"""A room's active roster as its members read it (``GET …/participants``), in one read.

One select without a session on SQLite (``Database.peek_all``: a plain reader connection,
one statement): the room's active participants with the person or agent each stands for,
provided the room is not deleted and the caller is an active participant (otherwise no row:
404, as ``rooms.membership.room_for`` answers), instead of ``room_for`` and ``members`` through
a read session (two ORM reads, three entities a row).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, bindparam, exists, select

from band_protocol import ChatParticipant
from band_server.errors import NotFound
from band_server.services.identity.principals import Principal
from band_server.store.db import Database
from band_server.store.models import Agent, Base, Participant, Room, User

_P = Base.metadata.tables[Participant.__tablename__]
_A = Base.metadata.tables[Agent.__tablename__]
_U = Base.metadata.tables[User.__tablename__]
_R = Base.metadata.tables[Room.__tablename__]
_ME = _P.alias("me")
# In joining order; a participant whose person or agent row is gone is left out (as
# ``rooms.members_where`` leaves it out).
_ROSTER = (
    select(
        _P.c.participant_id,
        _P.c.participant_type,
        _P.c.role,
        _P.c.status,
        _A.c.name.label("agent_name"),
        _A.c.handle.label("agent_handle"),
        _A.c.description.label("agent_description"),
        _U.c.name.label("user_name"),
        _U.c.handle.label("user_handle"),
    )
    .select_from(
        _P.outerjoin(
            _A, and_(_P.c.participant_type == "Agent", _A.c.id == _P.c.participant_id)
        ).outerjoin(_U, and_(_P.c.participant_type == "User", _U.c.id == _P.c.participant_id))
    )
    .where(
        _P.c.room_id == bindparam("room_id"),
        _P.c.status == "active",
        exists().where(_R.c.id == _P.c.room_id, _R.c.deleted_at.is_(None)),
        exists().where(
            _ME.c.room_id == _P.c.room_id,
            _ME.c.participant_id == bindparam("caller"),
            _ME.c.status == "active",
        ),
    )
    .order_by(_P.c.created_at, _P.c.id)
)


async def roster_views(
    db: Database, caller: Principal, room_id: str, online: Callable[[str], bool]
) -> list[dict[str, Any]]:
    """``ChatParticipant`` dumps of the room's active members, in joining order; 404 unless
    the caller is one of them (and the room exists)."""
    found = await db.peek_all(_ROSTER, {"room_id": room_id, "caller": caller.id})
    if not found:  # the caller's own row is there whenever it may read the roster
        raise NotFound("Chat room not found")
    out: list[dict[str, Any]] = []
    for pid, ptype, role, status, a_name, a_handle, a_description, u_name, u_handle in found:
        if a_name is not None:
            name, handle, description = a_name, a_handle, a_description
        elif u_name is not None:
            name, handle, description = u_name, u_handle, None
        else:
            continue
        view = ChatParticipant(
            id=pid,
            role=role,
            status=status,
            type=ptype,
            name=name,
            handle=handle,
            description=description,
            online=online(pid),
        )
        out.append(view.model_dump(mode="json"))
    return out
