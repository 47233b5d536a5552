"""Admin: the deployment's people, agents, rooms and contact edges, page by page."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol.archive import AgentRecord, ContactRecord, PersonRecord, RoomRecord

from ...http.deps import PlatformDep
from ...http.json_body import JsonRoute
from ...services.archive import directory
from ..answers import many
from ..listing import Cursor
from .access import AdminDep

router = APIRouter(route_class=JsonRoute)

Limit = Annotated[int, Query(ge=1, le=500)]
Lister = Callable[[AsyncSession, str | None, int], Awaitable[directory.Page]]

LISTS: list[tuple[str, str, type[BaseModel], Lister, str]] = [
    # path, route name, item model, service, what the list holds
    ("/people", "list_people", PersonRecord, directory.list_people,
     "Every person of the deployment, with their email and role."),
    ("/agents", "list_agents", AgentRecord, directory.list_agents,
     "Every agent of the deployment, with its owner."),
    ("/chats", "list_rooms", RoomRecord, directory.list_rooms,
     "Every room of the deployment (deleted ones aside)."),
    ("/contacts", "list_contacts", ContactRecord, directory.list_contacts,
     "Every contact edge: ``owner_id`` has ``id`` in their contacts."),
]  # fmt: skip


def _mount(path: str, name: str, item: type[BaseModel], lister: Lister, description: str) -> None:
    """One keyset-paged list route: ``cursor``/``limit`` in, ``data`` and ``metadata`` out."""

    async def route(
        platform: PlatformDep, admin: AdminDep, cursor: Cursor = None, limit: Limit = 100
    ) -> dict[str, Any]:
        async with platform.db.read() as session:
            items, next_cursor = await lister(session, cursor, limit)
        meta = {"limit": limit, "has_more": next_cursor is not None, "next_cursor": next_cursor}
        return {"data": items, "metadata": meta}

    router.add_api_route(
        path, route, methods=["GET"], name=name, description=description, responses=many(item)
    )


for _listed in LISTS:
    _mount(*_listed)
