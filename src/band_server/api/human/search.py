"""Human surface: search the messages of the person's rooms (an openband extension)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.messages import search
from ..answers import many
from ..listing import listing

router = APIRouter(route_class=JsonRoute)

EXTENSION = {"x-openband-extension": True}
"""Marks a route the official Band API does not have."""


@router.get(
    "/search",
    responses=many(search.SearchHit),
    openapi_extra=EXTENSION,
    summary="Search my messages (openband extension)",
)
async def search_messages(
    platform: PlatformDep,
    me: UserDep,
    q: Annotated[str, Query(min_length=1, max_length=search.MAX_QUERY_CHARS)],
    sort: search.SearchSort = "newest",
    limit: Annotated[int, Query(ge=1, le=search.MAX_LIMIT)] = search.DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Text messages of the rooms the caller is in that contain every word of ``q`` (each
    as a prefix), newest or best first, each with a snippet and the matched spans in it.
    Not part of the official Band API: an openband extension."""
    async with platform.db.read() as session:
        hits = await search.search_messages(session, me, q, sort=sort, limit=limit)
    return listing(hits, {"count": len(hits), "sort": sort, "limit": limit})
