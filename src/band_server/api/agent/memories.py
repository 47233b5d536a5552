"""Agent surface: the agent's memories."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import AgentMemory, MemoryCreateBody

from ...http.deps import AgentDep, PlatformDep, current_agent
from ...http.json_body import JsonRoute
from ...services.memories import records as memories
from ...services.unit import write
from ..answers import one
from ..listing import data
from ..memory_routes import mount_memory_routes

router = APIRouter(route_class=JsonRoute)

mount_memory_routes(
    router,
    current_agent,
    {
        "list_memories": "The agent's memories, newest first, filtered; keyset paging with "
        "``cursor``/``limit``.",
        "get_memory": "One of the agent's memories (404 for anyone else's).",
        "supersede": "Mark a memory outdated (kept, but no longer listed by default).",
        "archive": "Hide a memory but keep it.",
    },
)


@router.post("/memories", status_code=201, responses=one(AgentMemory, 201))
async def store_memory(
    platform: PlatformDep, me: AgentDep, body: MemoryCreateBody
) -> dict[str, Any]:
    """Store a memory."""
    async with write(platform) as uow:
        view = await memories.create_memory(uow.session, me, body.memory)
    return data(view)
