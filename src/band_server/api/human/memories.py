"""Human surface: memories the person's agents stored."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import AgentMemory

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.memories import records as memories
from ...services.unit import write
from ..answers import many, one
from ..listing import data
from ..memory_query import MemoryQueryDep, memory_page, memory_status

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


@router.post("/memories/{memory_id}/supersede", responses=one(AgentMemory))
async def supersede(platform: PlatformDep, me: UserDep, memory_id: str) -> dict[str, Any]:
    """Mark a memory outdated."""
    return await memory_status(platform, me, memory_id, "superseded")


@router.post("/memories/{memory_id}/archive", responses=one(AgentMemory))
async def archive(platform: PlatformDep, me: UserDep, memory_id: str) -> dict[str, Any]:
    """Hide a memory but keep it."""
    return await memory_status(platform, me, memory_id, "archived")


@router.post("/memories/{memory_id}/restore", responses=one(AgentMemory))
async def restore(platform: PlatformDep, me: UserDep, memory_id: str) -> dict[str, Any]:
    """Make an archived or superseded memory active again."""
    return await memory_status(platform, me, memory_id, "active")
