"""Envelopes and offset paging shared by the list endpoints of both surfaces."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query
from pydantic import BaseModel

from ..errors import ValidationFailed


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
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
) -> Paging:
    return Paging(page, page_size)


PagingDep = Annotated[Paging, Depends(paging)]


def data(model: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """``{"data": ...}``."""
    return {"data": model.model_dump(mode="json") if isinstance(model, BaseModel) else model}


def listing(items: Iterable[BaseModel], metadata: dict[str, Any]) -> dict[str, Any]:
    """``{"data": [...], "metadata": {...}}``."""
    return {"data": [m.model_dump(mode="json") for m in items], "metadata": metadata}


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
