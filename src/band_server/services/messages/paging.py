"""Paging over a room's messages: keyset cursors (``has_more``/``limit``/``next_cursor``) and
the deprecated offset form (``page``/``page_size``), behind one function."""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import ChatMessage
from band_server.errors import ValidationFailed
from band_server.services.deliveries.wire import chat_messages
from band_server.services.keyset import offset_page
from band_server.store.models import Message

SortOrder = Literal["asc", "desc"]

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


@dataclass
class MessagePage:
    """One page of messages and the ``metadata`` object that travels with it."""

    items: list[ChatMessage]
    metadata: dict[str, Any] = field(default_factory=dict)
    deprecated: bool = False  # offset paging was used (the router adds Deprecation headers)


@dataclass(frozen=True)
class Window:
    """Which page is asked for: ``limit`` messages after ``cursor`` in ``sort_order``, or the
    deprecated offset page (``page``, ``page_size``)."""

    sort_order: SortOrder = "asc"
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    page: int | None = None
    page_size: int | None = None


def encode_cursor(seq: int) -> str:
    """An opaque cursor naming a position in a room's sequence."""
    return base64.urlsafe_b64encode(f"seq:{seq}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The sequence number inside a cursor, or 422 ``/cursor``."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, value = raw.partition(":")
        if kind != "seq" or not value.isascii() or not value.isdigit() or len(value) > 18:
            raise ValueError(raw)
        return int(value)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]}) from None


def _check_window(limit: int, page: int | None, page_size: int | None) -> None:
    errors: dict[str, list[str]] = {}
    if not 1 <= limit <= MAX_LIMIT:
        errors["/limit"] = [f"must be between 1 and {MAX_LIMIT}"]
    if page is not None and page < 1:
        errors["/page"] = ["must be at least 1"]
    if page_size is not None and not 1 <= page_size <= MAX_LIMIT:
        errors["/page_size"] = [f"must be between 1 and {MAX_LIMIT}"]
    if errors:
        raise ValidationFailed(next(iter(errors)) + " is out of range", errors)


async def page_of(
    session: AsyncSession,
    where: Sequence[ColumnElement[bool]],
    window: Window,
    *,
    agent_id: str | None,
) -> MessagePage:
    """One page of the messages matching ``where``, with their delivery statuses.

    Offset paging is used when ``page`` or ``page_size`` is given; the page is then marked
    deprecated. ``agent_id`` limits ``delivery_status`` to that agent's own deliveries.
    """
    sort_order, limit, cursor = window.sort_order, window.limit, window.cursor
    page, page_size = window.page, window.page_size
    _check_window(limit, page, page_size)
    order = Message.seq.asc() if sort_order == "asc" else Message.seq.desc()
    if page is not None or page_size is not None:
        number, size = page or 1, page_size or DEFAULT_LIMIT
        matching = select(Message).where(*where)
        rows, total = await offset_page(session, matching, order, page=number, page_size=size)
        pages = math.ceil(total / size) if total else 0
        # The keyset keys stay present (the official client's models require them).
        meta: dict[str, Any] = {
            "has_more": number < pages,
            "limit": size,
            "next_cursor": None,
            "page": number,
            "page_size": size,
            "total_count": total,
            "total_pages": pages,
        }
        items = await chat_messages(session, rows, agent_id=agent_id)
        return MessagePage(items, meta, deprecated=True)
    conds = list(where)
    if cursor:
        after = decode_cursor(cursor)
        conds.append(Message.seq > after if sort_order == "asc" else Message.seq < after)
    rows = list(
        await session.scalars(select(Message).where(*conds).order_by(order).limit(limit + 1))
    )
    has_more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = encode_cursor(rows[-1].seq) if has_more and rows else None
    meta = {"has_more": has_more, "limit": limit, "next_cursor": next_cursor}
    return MessagePage(await chat_messages(session, rows, agent_id=agent_id), meta)
