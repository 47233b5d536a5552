"""Human surface: memories the person's agents stored."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import AgentMemory

from ...http.deps import PlatformDep, UserDep, current_user
from ...http.json_body import JsonRoute
from ...services.memories import records as memories
from ...services.unit import write
from ..answers import one
from ..listing import data
from ..memory_routes import mount_memory_routes

router = APIRouter(route_class=JsonRoute)

mount_memory_routes(
    router,
    current_user,
    {
        "list_memories": "Memories of all the person's agents, newest first, filtered.",
        "get_memory": "One memory of one of the person's agents.",
        "supersede": "Mark a memory outdated.",
        "archive": "Hide a memory but keep it.",
        "restore": "Make an archived or superseded memory active again.",
    },
)


@router.delete("/memories/{memory_id}", responses=one(AgentMemory))
async def delete_memory(platform: PlatformDep, me: UserDep, memory_id: str) -> dict[str, Any]:
    """Erase a memory for good; the answer shows what was erased."""
    async with write(platform) as uow:
        view = await memories.delete_memory(uow.session, me, memory_id)
    return data(view)
