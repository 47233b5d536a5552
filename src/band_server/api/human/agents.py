"""Human surface: the caller's agents."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band.protocol import AgentRegisterBody

from ...services import accounts, registry
from ...services.unit import write
from ..deps import PlatformDep, UserDep
from ..listing import PagingDep, data, listing

router = APIRouter()


@router.get("/agents")
async def list_agents(platform: PlatformDep, me: UserDep, paging: PagingDep) -> dict[str, Any]:
    """The caller's live agents, oldest first."""
    async with platform.db.read() as session:
        items, total = await registry.list_agents(
            session, me, page=paging.page, page_size=paging.page_size, online=platform.hub.is_online
        )
    return listing(items, paging.meta(total))


@router.post("/agents/register", status_code=201)
async def register_agent(
    platform: PlatformDep, me: UserDep, body: AgentRegisterBody
) -> dict[str, Any]:
    """Create an agent; the answer holds its API key, shown this once."""
    async with write(platform) as uow:
        created = await registry.register_agent(
            uow.session, me, name=body.agent.name, description=body.agent.description
        )
    return data(created)


@router.get("/agents/{agent_id}")
async def get_agent(platform: PlatformDep, me: UserDep, agent_id: str) -> dict[str, Any]:
    """One of the caller's agents (404 for anyone else's)."""
    async with platform.db.read() as session:
        agent = await accounts.owned_agent(session, me.id, agent_id)
    return data(registry.agent_info(agent, platform.hub.is_online(agent.id)))


@router.delete("/agents/{agent_id}")
async def delete_agent(
    platform: PlatformDep, me: UserDep, agent_id: str, force: bool = False
) -> dict[str, Any]:
    """Delete an agent (``force`` is accepted for compatibility: deletion always proceeds)."""
    async with write(platform) as uow:
        info = await registry.delete_agent(uow, me, agent_id)
    return data({**info.model_dump(mode="json"), "deleted": True})


@router.post("/agents/{agent_id}/regenerate-key")
async def regenerate_key(platform: PlatformDep, me: UserDep, agent_id: str) -> dict[str, Any]:
    """Replace the agent's key: the old one stops working at once; the new one is shown once."""
    async with write(platform) as uow:
        created = await registry.regenerate_key(uow, me, agent_id)
    return data(created)
