"""Envelopes and offset paging shared by the list endpoints of both surfaces."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel

from ..errors import ValidationFailed
from ..services.identity.principals import Principal

if TYPE_CHECKING:
    from ..context import Platform

PartyLister = Callable[..., Awaitable[tuple[Sequence[BaseModel], int]]]
"""A service's paged list of parties (contacts, peers): ``(session, me, *, page, page_size,
online, ...)`` to one page and the total count."""

T = TypeVar("T")

MAX_PAGE = 1_000_000
"""The highest ``page`` accepted anywhere (beyond it an offset overflows the database)."""

INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


@dataclass(frozen=True)
class Paging:
    """``page`` (from 1) and ``page_size`` (1..100) query parameters."""

    page: int
    page_size: int

    def meta(self, total: int) -> dict[str, int]:
        """Offset metadata: page, page_size, total_count, total_pages."""
        pages = (total + self.page_size - 1) // self.page_size
        return {
            "page": self.page,
            "page_size": self.page_size,
            "total_count": total,
            "total_pages": pages,
        }


async def paging(
    page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
) -> Paging:
    return Paging(page, page_size)


PagingDep = Annotated[Paging, Depends(paging)]

Cursor = Annotated[str | None, Query(max_length=200)]
"""A keyset page's opaque position: the ``next_cursor`` of the page before."""

Limit = Annotated[int, Query(ge=1, le=100)]
"""A keyset page's size (1..100); each route gives its own default."""

SortedCursor = Annotated[str | None, Query(max_length=500)]
"""The ``cursor`` of the lists that also take the deprecated ``page``/``page_size`` (rooms,
agents, participants, memories): longer, as it may carry the sort column's value."""

OffsetPage = Annotated[int | None, Query(ge=1, le=MAX_PAGE)]
"""The deprecated offset ``page`` beside a cursor (None: keyset paging)."""

OffsetPageSize = Annotated[int | None, Query(ge=1, le=100)]
"""The deprecated offset ``page_size`` beside a cursor (None: keyset paging)."""


def data(model: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """``{"data": ...}``."""
    return {"data": model.model_dump(mode="json") if isinstance(model, BaseModel) else model}


def listing(items: Iterable[BaseModel], metadata: dict[str, Any]) -> dict[str, Any]:
    """``{"data": [...], "metadata": {...}}``."""
    return {"data": [m.model_dump(mode="json") for m in items], "metadata": metadata}


async def read_page(
    platform: Platform,
    me: Principal,
    paging: Paging,
    lister: Callable[..., Awaitable[T]],
    **filters: Any,
) -> T:
    """What a service's offset-paged query answers, in one read: ``lister(session, me, page=,
    page_size=, **filters)`` (contacts, peers, contact requests)."""
    async with platform.db.read() as session:
        return await lister(session, me, page=paging.page, page_size=paging.page_size, **filters)


async def party_page(
    platform: Platform, me: Principal, paging: Paging, lister: PartyLister, **filters: Any
) -> dict[str, Any]:
    """One page of parties with their presence, in the listing envelope: a contacts or peers
    route of either surface, ``filters`` passed on to the service."""
    online = platform.presence.is_online
    items, total = await read_page(platform, me, paging, lister, online=online, **filters)
    return listing(items, paging.meta(total))


def listed_values(
    raw: list[str] | None, allowed: tuple[str, ...], name: str
) -> frozenset[str] | None:
    """A list query parameter sent comma-separated (``a,b``) or as repeated keys, each value
    one of ``allowed`` (else 422 at ``/<name>/<index>``); None when it was not sent."""
    if raw is None:
        return None
    values = [part for item in raw for part in item.split(",")]
    errors = {
        f"/{name}/{i}": [f"must be one of {', '.join(allowed)}"]
        for i, value in enumerate(values)
        if value not in allowed
    }
    if errors:
        raise ValidationFailed(f"{name} has an unsupported value", errors)
    return frozenset(values)


IncludeQuery = Annotated[list[str] | None, Query(max_length=200)]


InstantQuery = Annotated[
    str | None,
    Query(
        max_length=64,
        description="An RFC 3339 date-time",
        json_schema_extra={"format": "date-time"},
    ),
]


def parse_instant(value: str | None, name: str) -> datetime | None:
    """An RFC 3339 date-time (with its offset), else 422 at ``/<name>``. FastAPI's own
    ``datetime`` would also take a bare number as a Unix time, which the document does not
    promise."""
    if value is None:
        return None
    if INSTANT.fullmatch(value):
        try:
            return datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
        except ValueError:
            pass
    raise ValidationFailed(
        f"{name} is not a date-time", {f"/{name}": ["must be an RFC 3339 date-time"]}
    )
