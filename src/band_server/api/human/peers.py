"""Human surface: peers the person can bring into a room."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.contacts import peers
from ..agent.peers import PEER_ANSWERS, NotInChat
from ..listing import PagingDep, party_page

router = APIRouter(route_class=JsonRoute)


@router.get("/peers", responses=PEER_ANSWERS)
async def list_peers(
    platform: PlatformDep,
    me: UserDep,
    paging: PagingDep,
    not_in_chat: NotInChat = None,
    type: Literal["User", "Agent"] | None = None,
) -> dict[str, Any]:
    """The person's agents and contacts; ``not_in_chat`` leaves out that room's participants,
    ``type`` keeps only people or only agents."""
    return await party_page(
        platform, me, paging, peers.list_peers, not_in_chat=not_in_chat, party_type=type
    )
