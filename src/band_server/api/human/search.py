"""Human surface: search the messages of the person's rooms (an openband extension)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.messages import search
from ..answers import answers
from ..listing import listing

router = APIRouter(route_class=JsonRoute)

EXTENSION = {"x-openband-extension": True}
"""Marks a route the official Band API does not have."""


class SearchMetadata(BaseModel):
    """A page of search hits: how many, in which order, and where the next page starts."""

    count: int
    sort: search.SearchSort
    limit: int
    has_more: bool
    next_cursor: str | None = Field(
        description="Pass as `cursor` (with the same `sort`) for the next page; null on the last"
    )


class SearchResults(BaseModel):
    data: list[search.SearchHit]
    metadata: SearchMetadata


@router.get(
    "/search",
    responses=answers(SearchResults),
    openapi_extra=EXTENSION,
    summary="Search my messages (openband extension)",
)
async def search_messages(
    platform: PlatformDep,
    me: UserDep,
    q: Annotated[str, Query(min_length=1, max_length=search.MAX_QUERY_CHARS)],
    sort: search.SearchSort = "newest",
    limit: Annotated[int, Query(ge=1, le=search.MAX_LIMIT)] = search.DEFAULT_LIMIT,
    cursor: Annotated[
        str | None,
        Query(
            max_length=500,
            description="`metadata.next_cursor` of the previous page, with the same `sort`",
        ),
    ] = None,
) -> dict[str, Any]:
    """Text messages of the rooms the caller is in that contain every word of ``q`` (each
    as a prefix), newest or best first, each with a snippet and the matched spans in it.
    ``metadata.next_cursor`` asks for the next page (null on the last); ``has_more`` says
    whether there is one. Not part of the official Band API: an openband extension."""
    await platform.db.search_ready()
    async with platform.db.read() as session:
        found = await search.search_messages(session, me, q, sort=sort, limit=limit, cursor=cursor)
    meta = {
        "count": len(found.hits),
        "sort": sort,
        "limit": limit,
        "has_more": found.next_cursor is not None,
        "next_cursor": found.next_cursor,
    }
    return listing(found.hits, meta)
