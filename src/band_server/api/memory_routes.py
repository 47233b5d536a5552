"""The memory routes both surfaces share: the list, one memory, and its status changes.

One table of routes, mounted by each surface with its own caller and wording. No ``from
__future__ import annotations``: FastAPI must resolve the ``caller`` alias at once.
"""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from band_protocol import AgentMemory

from ..http.deps import PlatformDep
from ..services.identity.principals import Principal
from ..services.memories.records import get_memory, set_status
from ..services.unit import write
from .answers import many, one
from .listing import data
from .memory_query import MemoryQueryDep, memory_page

STATUSES = {"supersede": "superseded", "archive": "archived", "restore": "active"}
"""Each status action and the status it gives the memory."""


def mount_memory_routes(router: APIRouter, principal: Any, docs: dict[str, str]) -> None:
    """Mount the routes ``docs`` names (``list_memories``, ``get_memory`` or a status action,
    each with its description), in that order, for the callers ``principal`` authenticates."""
    caller = Annotated[Principal, Depends(principal)]
    for name, description in docs.items():
        mount = _status if name in STATUSES else _ROUTES[name]
        mount(router, caller, name, description)


def _list(router: APIRouter, caller: Any, name: str, description: str) -> None:
    async def route(platform: PlatformDep, me: caller, query: MemoryQueryDep) -> dict[str, Any]:
        return await memory_page(platform, me, query)

    router.add_api_route(
        "/memories", route, name=name, description=description, responses=many(AgentMemory)
    )


def _one(router: APIRouter, caller: Any, name: str, description: str) -> None:
    async def route(platform: PlatformDep, me: caller, memory_id: str) -> dict[str, Any]:
        async with platform.db.read() as session:
            return data(await get_memory(session, me, memory_id))

    router.add_api_route(
        "/memories/{memory_id}",
        route,
        name=name,
        description=description,
        responses=one(AgentMemory),
    )


def _status(router: APIRouter, caller: Any, action: str, description: str) -> None:
    status = STATUSES[action]

    async def route(platform: PlatformDep, me: caller, memory_id: str) -> dict[str, Any]:
        async with write(platform) as uow:
            view = await set_status(uow.session, me, memory_id, status)
        return data(view)

    router.add_api_route(
        f"/memories/{{memory_id}}/{action}",
        route,
        methods=["POST"],
        name=action,
        description=description,
        responses=one(AgentMemory),
    )


_ROUTES: dict[str, Callable[[APIRouter, Any, str, str], None]] = {
    "list_memories": _list,
    "get_memory": _one,
}
