"""The whole deployment, as an admin reads it for an export: people, agents, rooms, contacts.

Keyset pages in id order (``cursor`` is the last id of the previous page); the views are the
archive's records (``band_protocol.archive``), so an export writes them as they come.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import iso
from band_server.services.views import room_view
from band_server.store.models import Agent, Contact, Room, User

__all__ = ["Page", "list_agents", "list_contacts", "list_people", "list_rooms"]

Page = tuple[list[dict[str, Any]], str | None]


def _after(statement: Any, column: Any, cursor: str | None, limit: int) -> Any:
    if cursor:
        statement = statement.where(column > cursor)
    return statement.order_by(column).limit(limit + 1)


def _page(items: list[dict[str, Any]], key: str, limit: int) -> Page:
    more = len(items) > limit
    items = items[:limit]
    return items, (str(items[-1][key]) if more and items else None)


async def list_people(session: AsyncSession, cursor: str | None, limit: int) -> Page:
    rows = await session.scalars(_after(select(User), User.id, cursor, limit))
    items = [
        {
            "id": u.id,
            "name": u.name,
            "handle": u.handle,
            "email": u.email,
            "role": u.role,
            "disabled": u.disabled_at is not None,
            "inserted_at": iso(u.created_at),
        }
        for u in rows
    ]
    return _page(items, "id", limit)


async def list_agents(session: AsyncSession, cursor: str | None, limit: int) -> Page:
    statement = select(Agent, User.handle).join(User, User.id == Agent.owner_id)
    statement = _after(statement.where(Agent.deleted_at.is_(None)), Agent.id, cursor, limit)
    items = [
        {
            "id": a.id,
            "name": a.name,
            "handle": a.handle,
            "description": a.description,
            "owner_id": a.owner_id,
            "owner_handle": owner,
            "tags": list(a.tags or []),
            "inserted_at": iso(a.created_at),
        }
        for a, owner in await session.execute(statement)
    ]
    return _page(items, "id", limit)


async def list_rooms(session: AsyncSession, cursor: str | None, limit: int) -> Page:
    statement = _after(select(Room).where(Room.deleted_at.is_(None)), Room.id, cursor, limit)
    items = [
        {**room_view(r).model_dump(mode="json"), "owner_type": r.owner_type}
        for r in await session.scalars(statement)
    ]
    return _page(items, "id", limit)


async def list_contacts(session: AsyncSession, cursor: str | None, limit: int) -> Page:
    """Every contact edge (each direction is its own row), with the contact's handle."""
    rows = await session.scalars(_after(select(Contact), Contact.id, cursor, limit))
    edges = list(rows)
    ids = {e.contact_id for e in edges}
    names: dict[str, tuple[str, str]] = {}
    for model in (User, Agent):
        found = await session.execute(
            select(model.id, model.handle, model.name).where(model.id.in_(ids))
        )
        names.update({i: (h, n) for i, h, n in found})
    items = [
        {
            "edge": e.id,
            "owner_id": e.owner_id,
            "id": e.contact_id,
            "type": e.contact_type,
            "handle": names.get(e.contact_id, ("", ""))[0],
            "name": names.get(e.contact_id, ("", ""))[1],
        }
        for e in edges
    ]
    return _page(items, "edge", limit)
