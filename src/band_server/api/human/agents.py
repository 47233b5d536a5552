"""Human surface: the caller's agents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from band_protocol import AgentDeleted, AgentInfo, AgentRegisterBody, AgentRegistered

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.identity import accounts
from ...services.identity import agents as registry
from ...services.unit import write
from ..answers import many, one, secret, secret_answer
from ..listing import Limit, OffsetPage, OffsetPageSize, SortedCursor, data, listing

router = APIRouter(route_class=JsonRoute)


@router.get("/agents", responses=many(AgentInfo))
async def list_agents(
    platform: PlatformDep,
    me: UserDep,
    name: Annotated[str | None, Query(max_length=200)] = None,
    is_external: bool | None = None,
    listed_in_directory: bool | None = None,
    sort: registry.AgentSort = "inserted_at",
    order: Annotated[str, Query(pattern="^(asc|desc)$")] = "asc",
    cursor: SortedCursor = None,
    limit: Limit = 50,
    page: OffsetPage = None,
    page_size: OffsetPageSize = None,
) -> dict[str, Any]:
    """The caller's live agents: filter by ``name``, sort by ``sort``/``order``, page by
    ``cursor``/``limit`` (or the deprecated ``page``/``page_size``)."""
    query = registry.AgentQuery(
        name=name,
        is_external=is_external,
        listed_in_directory=listed_in_directory,
        sort=sort,
        order="desc" if order == "desc" else "asc",
        cursor=cursor,
        limit=limit,
        page=page,
        page_size=page_size,
    )
    async with platform.db.read() as session:
        items, meta = await registry.list_agents(
            session, me, query, online=platform.presence.is_online
        )
    return listing(items, meta)


@router.post("/agents/register", status_code=201, responses=secret(AgentRegistered, 201))
async def register_agent(
    platform: PlatformDep, me: UserDep, body: AgentRegisterBody
) -> JSONResponse:
    """Create an agent; the answer holds its API key, shown this once."""
    async with write(platform) as uow:
        created = await registry.register_agent(
            uow.session, me, name=body.agent.name, description=body.agent.description
        )
    return secret_answer(data(created), 201)


@router.get("/agents/{agent_id}", responses=one(AgentInfo))
async def get_agent(platform: PlatformDep, me: UserDep, agent_id: str) -> dict[str, Any]:
    """One of the caller's agents (404 for anyone else's)."""
    async with platform.db.read() as session:
        agent = await accounts.owned_agent(session, me.id, agent_id)
    return data(registry.agent_info(agent, platform.presence.is_online(agent.id)))


@router.delete("/agents/{agent_id}", responses=one(AgentDeleted))
async def delete_agent(
    platform: PlatformDep, me: UserDep, agent_id: str, force: bool = False
) -> dict[str, Any]:
    """Delete an agent. One with execution history is 422 unless ``force=true``, which
    erases that history too (``executions_deleted`` counts it)."""
    async with write(platform) as uow:
        info = await registry.delete_agent(uow, me, agent_id, force=force)
    return data(info)


@router.post("/agents/{agent_id}/regenerate-key", responses=secret(AgentRegistered))
async def regenerate_key(platform: PlatformDep, me: UserDep, agent_id: str) -> JSONResponse:
    """Replace the agent's key: the old one stops working at once; the new one is shown once."""
    async with write(platform) as uow:
        created = await registry.regenerate_key(uow, me, agent_id)
    return secret_answer(data(created))
