"""Agent surface: peers the agent can bring into a room."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from band.protocol import Peer

from ...services import peers
from ..answers import many, not_found
from ..deps import AgentDep, PlatformDep
from ..json_body import JsonRoute
from ..listing import PagingDep, listing

router = APIRouter(route_class=JsonRoute)


@router.get("/peers", responses={**many(Peer), **not_found("room (not_in_chat)")})
async def list_peers(
    platform: PlatformDep,
    me: AgentDep,
    paging: PagingDep,
    not_in_chat: Annotated[str | None, Query(max_length=200)] = None,
) -> dict[str, Any]:
    """The owner, the owner's other agents and the agent's contacts; ``not_in_chat`` leaves
    out that room's participants."""
    async with platform.db.read() as session:
        items, total = await peers.list_peers(
            session,
            me,
            page=paging.page,
            page_size=paging.page_size,
            online=platform.presence.is_online,
            not_in_chat=not_in_chat,
        )
    return listing(items, paging.meta(total))
