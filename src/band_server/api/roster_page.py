"""Paging over a room's roster, which is already in memory (rooms are small)."""

from __future__ import annotations

from typing import Any

from ..errors import ValidationFailed
from ..services.rooms.membership import Member


def roster_page(
    members: list[Member],
    *,
    cursor: str | None,
    limit: int,
    page: int | None,
    page_size: int | None,
) -> tuple[list[Member], dict[str, Any]]:
    """A window of ``members`` and its metadata: keyset on the participant id (``cursor`` is
    the last id of the previous page), or the deprecated ``page``/``page_size``."""
    total = len(members)
    if page is not None or page_size is not None:
        size, number = page_size or limit, page or 1
        window = members[(number - 1) * size : number * size]
        more = number * size < total
        return window, _meta(more, size, None, number, total)
    start = 0
    if cursor:
        ids = [m.id for m in members]
        if cursor not in ids:
            raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]})
        start = ids.index(cursor) + 1
    window = members[start : start + limit]
    more = start + limit < total
    return window, _meta(more, limit, window[-1].id if more and window else None, 1, total)


def _meta(more: bool, size: int, cursor: str | None, page: int, total: int) -> dict[str, Any]:
    return {
        "has_more": more,
        "limit": size,
        "next_cursor": cursor,
        "page": page,
        "page_size": size,
        "total_count": total,
        "total_pages": (total + size - 1) // size,
    }
