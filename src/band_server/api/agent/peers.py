"""Agent surface: peers the agent can bring into a room."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from band_protocol import Peer

from ...http.deps import AgentDep, PlatformDep
from ...http.json_body import JsonRoute
from ...services.contacts import peers
from ..answers import many, not_found
from ..listing import PagingDep, party_page

router = APIRouter(route_class=JsonRoute)

PEER_ANSWERS = {**many(Peer), **not_found("room (not_in_chat)")}
"""What ``GET /peers`` answers, on both surfaces."""

NotInChat = Annotated[str | None, Query(max_length=200)]
"""A room whose participants ``GET /peers`` leaves out (both surfaces)."""


@router.get("/peers", responses=PEER_ANSWERS)
async def list_peers(
    platform: PlatformDep,
    me: AgentDep,
    paging: PagingDep,
    not_in_chat: NotInChat = None,
) -> dict[str, Any]:
    """The owner, the owner's other agents and the agent's contacts; ``not_in_chat`` leaves
    out that room's participants."""
    return await party_page(platform, me, paging, peers.list_peers, not_in_chat=not_in_chat)
