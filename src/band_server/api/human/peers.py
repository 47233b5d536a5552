"""Human surface: peers the person can bring into a room."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from band_protocol import Peer

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.contacts import peers
from ..answers import many, not_found
from ..listing import PagingDep, party_page

router = APIRouter(route_class=JsonRoute)


@router.get("/peers", responses={**many(Peer), **not_found("room (not_in_chat)")})
async def list_peers(
    platform: PlatformDep,
    me: UserDep,
    paging: PagingDep,
    not_in_chat: Annotated[str | None, Query(max_length=200)] = None,
    type: Literal["User", "Agent"] | None = None,
) -> dict[str, Any]:
    """The person's agents and contacts; ``not_in_chat`` leaves out that room's participants,
    ``type`` keeps only people or only agents."""
    return await party_page(
        platform, me, paging, peers.list_peers, not_in_chat=not_in_chat, party_type=type
    )
