"""Admin: the deployment's people, agents, rooms and contact edges, page by page."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol.archive import AgentRecord, ContactRecord, PersonRecord, RoomRecord

from ...http.deps import PlatformDep
from ...http.json_body import JsonRoute
from ...services.archive import directory
from ..answers import many
from .access import AdminDep

router = APIRouter(route_class=JsonRoute)

Cursor = Annotated[str | None, Query(max_length=200)]
Limit = Annotated[int, Query(ge=1, le=500)]
Lister = Callable[[AsyncSession, str | None, int], Awaitable[directory.Page]]


async def _listed(platform: Any, lister: Lister, cursor: str | None, limit: int) -> dict[str, Any]:
    async with platform.db.read() as session:
        items, next_cursor = await lister(session, cursor, limit)
    meta = {"limit": limit, "has_more": next_cursor is not None, "next_cursor": next_cursor}
    return {"data": items, "metadata": meta}


@router.get("/people", responses=many(PersonRecord))
async def list_people(
    platform: PlatformDep, admin: AdminDep, cursor: Cursor = None, limit: Limit = 100
) -> dict[str, Any]:
    """Every person of the deployment, with their email and role."""
    return await _listed(platform, directory.list_people, cursor, limit)


@router.get("/agents", responses=many(AgentRecord))
async def list_agents(
    platform: PlatformDep, admin: AdminDep, cursor: Cursor = None, limit: Limit = 100
) -> dict[str, Any]:
    """Every agent of the deployment, with its owner."""
    return await _listed(platform, directory.list_agents, cursor, limit)


@router.get("/chats", responses=many(RoomRecord))
async def list_rooms(
    platform: PlatformDep, admin: AdminDep, cursor: Cursor = None, limit: Limit = 100
) -> dict[str, Any]:
    """Every room of the deployment (deleted ones aside)."""
    return await _listed(platform, directory.list_rooms, cursor, limit)


@router.get("/contacts", responses=many(ContactRecord))
async def list_contacts(
    platform: PlatformDep, admin: AdminDep, cursor: Cursor = None, limit: Limit = 100
) -> dict[str, Any]:
    """Every contact edge: ``owner_id`` has ``id`` in their contacts."""
    return await _listed(platform, directory.list_contacts, cursor, limit)
