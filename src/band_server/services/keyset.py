"""Opaque keyset cursors for lists ordered by (a sort key, id), and the plain offset page.

A cursor carries the sort it was issued under and the last row's (key, id), so the next page
starts right after that row whatever was inserted meanwhile. A cursor from another sort, or
one that is not ours, is 422 ``/cursor``. ``offset_page`` is the query of the lists that page
by number only (contacts, contact requests, systems).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar, TypeVarTuple

from sqlalchemy import ColumnElement, Select, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from ..errors import ValidationFailed


def encode(sort: str, order: str, key: Any, row_id: str) -> str:
    value = key.isoformat() if isinstance(key, datetime) else key
    raw = json.dumps({"s": sort, "o": order, "k": value, "i": row_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(cursor: str, sort: str, order: str) -> tuple[Any, str]:
    """``(key, id)`` of the row the cursor points after, or 422."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        data = json.loads(raw)
        if not isinstance(data, dict) or not isinstance(data.get("i"), str):
            raise ValueError(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]}) from None
    if (data.get("s"), data.get("o")) != (sort, order):
        raise ValidationFailed(
            "cursor was issued for another sort order", {"/cursor": ["does not match the sort"]}
        )
    return data.get("k"), data["i"]


def after(
    column: InstrumentedAttribute[Any],
    id_column: InstrumentedAttribute[Any],
    key: Any,
    row_id: str,
    order: str,
) -> ColumnElement[bool]:
    """Rows strictly after (key, id) in ``order``."""
    if isinstance(key, str) and column.type.python_type is datetime:
        key = datetime.fromisoformat(key)
    if order == "desc":
        return or_(column < key, and_(column == key, id_column < row_id))
    return or_(column > key, and_(column == key, id_column > row_id))


Columns = TypeVarTuple("Columns")


@dataclass(frozen=True)
class Asked:
    """What a list's query says of its page: the order, and a keyset ``cursor`` with its
    ``limit`` or the deprecated offset ``page``/``page_size``. A list's query extends it."""

    order: Literal["asc", "desc"] = "asc"
    cursor: str | None = None
    limit: int = 50
    page: int | None = None
    page_size: int | None = None


@dataclass(frozen=True)
class Window:
    """The page a list asked for: after a keyset ``cursor`` (``limit`` rows), or at the
    deprecated offset ``page``/``page_size`` (``offset_mode``)."""

    sort: str
    order: str
    column: InstrumentedAttribute[Any]
    id_column: InstrumentedAttribute[Any]
    offset_mode: bool
    size: int
    number: int

    def next_cursor(self, last: Any, has_more: bool) -> str | None:
        """The cursor after ``last`` (the page's last row) when more follow a keyset page."""
        if not has_more or last is None or self.offset_mode:
            return None
        return encode(self.sort, self.order, getattr(last, self.column.key), last.id)


def window(
    stmt: Select[*Columns],
    column: InstrumentedAttribute[Any],
    id_column: InstrumentedAttribute[Any],
    sort: str,
    asked: Asked,
) -> tuple[Select[*Columns], Window]:
    """``stmt`` in (``column``, id) order (``sort`` names the column), from the cursor or at
    the page ``asked`` names, reading one row past the page's size (whether more follow)."""
    order, cursor, page, page_size = asked.order, asked.cursor, asked.page, asked.page_size
    offset_mode = page is not None or page_size is not None
    size = (page_size or asked.limit) if offset_mode else asked.limit
    number = page or 1
    desc = order == "desc"
    stmt = stmt.order_by(*((column.desc(), id_column.desc()) if desc else (column, id_column)))
    if offset_mode:
        stmt = stmt.offset((number - 1) * size)
    elif cursor:
        key, row_id = decode(cursor, sort, order)
        stmt = stmt.where(after(column, id_column, key, row_id, order))
    shape = Window(sort, order, column, id_column, offset_mode, size, number)
    return stmt.limit(size + 1), shape


Row = TypeVar("Row")


async def offset_page(
    session: AsyncSession,
    stmt: Select[Row],
    *order: ColumnElement[Any] | InstrumentedAttribute[Any],
    page: int,
    page_size: int,
) -> tuple[list[Row], int]:
    """Page ``page`` (from 1) of ``stmt`` in ``order``, and how many rows ``stmt`` has in all."""
    total = await session.scalar(select(func.count()).select_from(stmt.subquery()))
    rows = await session.scalars(
        stmt.order_by(*order).offset((page - 1) * page_size).limit(page_size)
    )
    return list(rows), int(total or 0)
