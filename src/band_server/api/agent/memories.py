"""Agent surface: the agent's memories."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import AgentMemory, MemoryCreateBody

from ...http.deps import AgentDep, PlatformDep, current_agent
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
    platform: PlatformDep, me: AgentDep, query: MemoryQueryDep
) -> dict[str, Any]:
    """The agent's memories, newest first, filtered; keyset paging with ``cursor``/``limit``."""
    return await memory_page(platform, me, query)


@router.post("/memories", status_code=201, responses=one(AgentMemory, 201))
async def store_memory(
    platform: PlatformDep, me: AgentDep, body: MemoryCreateBody
) -> dict[str, Any]:
    """Store a memory."""
    async with write(platform) as uow:
        view = await memories.create_memory(uow.session, me, body.memory)
    return data(view)


@router.get("/memories/{memory_id}", responses=one(AgentMemory))
async def get_memory(platform: PlatformDep, me: AgentDep, memory_id: str) -> dict[str, Any]:
    """One of the agent's memories (404 for anyone else's)."""
    async with platform.db.read() as session:
        return data(await memories.get_memory(session, me, memory_id))


mount_status_routes(
    router,
    current_agent,
    {
        "supersede": "Mark a memory outdated (kept, but no longer listed by default).",
        "archive": "Hide a memory but keep it.",
    },
)
