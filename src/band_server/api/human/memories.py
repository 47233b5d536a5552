"""Human surface: memories the person's agents stored."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import AgentMemory

from ...http.deps import PlatformDep, UserDep, current_user
from ...http.json_body import JsonRoute
from ...services.memories import records as memories
from ...services.unit import write
from ..answers import many, one
from ..listing import data
from ..memory_query import MemoryQueryDep, memory_page
from ..memory_status import mount_status_routes

router = APIRouter(route_class=JsonRoute)


@router.get("/memories", responses=many(AgentMemory))
async def list_memories(
    platform: PlatformDep, me: UserDep, query: MemoryQueryDep
) -> dict[str, Any]:
    """Memories of all the person's agents, newest first, filtered."""
    return await memory_page(platform, me, query)


@router.get("/memories/{memory_id}", responses=one(AgentMemory))
async def get_memory(platform: PlatformDep, me: UserDep, memory_id: str) -> dict[str, Any]:
    """One memory of one of the person's agents."""
    async with platform.db.read() as session:
        return data(await memories.get_memory(session, me, memory_id))


@router.delete("/memories/{memory_id}", responses=one(AgentMemory))
async def delete_memory(platform: PlatformDep, me: UserDep, memory_id: str) -> dict[str, Any]:
    """Erase a memory for good; the answer shows what was erased."""
    async with write(platform) as uow:
        view = await memories.delete_memory(uow.session, me, memory_id)
    return data(view)


mount_status_routes(
    router,
    current_user,
    {
        "supersede": "Mark a memory outdated.",
        "archive": "Hide a memory but keep it.",
        "restore": "Make an archived or superseded memory active again.",
    },
)
