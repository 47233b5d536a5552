"""Query parameters of memory listing, shared by both surfaces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Response

from ..context import Platform
from ..services.identity.principals import Principal
from ..services.memories.records import MemoryFilters, list_memories
from .listing import OffsetPage, OffsetPageSize, SortedCursor, listing

SUNSET = "Thu, 01 Oct 2026 00:00:00 GMT"
Text = Annotated[str | None, Query(max_length=200)]


@dataclass(frozen=True)
class MemoryQuery:
    filters: MemoryFilters
    limit: int
    cursor: str | None
    offset: int
    legacy: bool  # page/page_size were used (deprecated in API 2.0.0)


async def memory_query(
    response: Response,
    scope: Text = None,
    system: Text = None,
    type: Text = None,
    segment: Text = None,
    subject_id: Text = None,
    status: Text = None,
    content_query: Annotated[str | None, Query(max_length=1000)] = None,
    memory_scope: Text = None,
    cursor: SortedCursor = None,
    limit: Annotated[int | None, Query(ge=1, le=100)] = None,
    page: OffsetPage = None,
    page_size: OffsetPageSize = None,
) -> MemoryQuery:
    """Parse the filters; ``status`` defaults to ``active`` and ``all`` lifts a filter.
    ``memory_scope`` is accepted and ignored: every caller sees only its own memories."""
    legacy = page is not None or page_size is not None
    if legacy:
        response.headers["Deprecation"] = "true"
        response.headers["Sunset"] = SUNSET
    size = limit or page_size or 50
    filters = MemoryFilters(
        scope=scope,
        system=system,
        type=type,
        segment=segment,
        subject_id=subject_id,
        status=status or "active",
        content_query=content_query,
    )
    offset = 0 if cursor else ((page or 1) - 1) * size
    return MemoryQuery(filters, size, cursor, offset, legacy)


MemoryQueryDep = Annotated[MemoryQuery, Depends(memory_query)]


async def memory_page(platform: Platform, me: Principal, query: MemoryQuery) -> dict[str, Any]:
    """One page of the caller's memories in the keyset envelope (both surfaces)."""
    async with platform.db.read() as session:
        page = await list_memories(
            session,
            me,
            query.filters,
            limit=query.limit,
            cursor=query.cursor,
            offset=query.offset,
        )
    meta: dict[str, Any] = {
        "has_more": page.has_more,
        "limit": query.limit,
        "next_cursor": page.next_cursor,
    }
    if query.legacy:
        meta.update(page=query.offset // query.limit + 1, page_size=query.limit)
    return listing(page.items, meta)
