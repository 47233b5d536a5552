"""A person's read of a room's timeline (``GET /me/chats/{id}/messages``) with every option
``band-client-rest`` sends: type filters, ``since``, and the anchored reads ``after``,
``before`` and ``around`` a message, beside the keyset and offset pages of ``paging``.

Rules (from the client's documentation): at most one of ``message_type``, ``message_types``
and ``exclude_message_types``; ``since`` not with ``cursor``; at most one anchor and none with
``cursor``, ``since``, ``page`` or ``page_size`` (all 422 ``invalid_params``). An anchor that
is not a message of the room is 404. ``after`` reads newer messages oldest first, ``before``
older ones newest first, ``around`` a window centred on the anchor, newest first, with
``has_older``/``has_newer``; anchored reads answer ``next_cursor: null``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.errors import NotFound, ValidationFailed
from band_server.services.deliveries.wire import chat_messages
from band_server.services.messages.paging import MessagePage, Window, page_of
from band_server.store.models import Message, Room

MessageTypeName = Literal[
    "text",
    "tool_call",
    "tool_result",
    "thought",
    "error",
    "task",
    "attention",
    "system",
    "participant",
]
MESSAGE_TYPES: tuple[str, ...] = get_args(MessageTypeName)


@dataclass(frozen=True)
class TimelineQuery(Window):
    """What a person's ``GET .../messages`` asks: a window, narrowed by type, time or anchor."""

    message_type: str | None = None
    message_types: frozenset[str] | None = None
    exclude_message_types: frozenset[str] | None = None
    since: datetime | None = None
    after: str | None = None
    before: str | None = None
    around: str | None = None


def _invalid(message: str, pointers: list[str]) -> ValidationFailed:
    return ValidationFailed(
        message, {p: ["can't be combined"] for p in pointers}, code="invalid_params"
    )


def _check(q: TimelineQuery) -> None:
    given = {
        "message_type": q.message_type is not None,
        "message_types": q.message_types is not None,
        "exclude_message_types": q.exclude_message_types is not None,
    }
    if sum(given.values()) > 1:
        raise _invalid(
            "use at most one of message_type, message_types and exclude_message_types",
            [f"/{k}" for k, v in given.items() if v],
        )
    if q.since is not None and q.cursor:
        raise _invalid("since and cursor can't be combined", ["/since", "/cursor"])
    anchors = [k for k in ("after", "before", "around") if getattr(q, k) is not None]
    others = [
        k
        for k, v in (
            ("cursor", q.cursor),
            ("since", q.since),
            ("page", q.page),
            ("page_size", q.page_size),
        )
        if v is not None
    ]
    if len(anchors) > 1 or (anchors and others):
        raise _invalid(
            "use at most one anchor, and none with cursor, since, page or page_size",
            [f"/{k}" for k in anchors + others],
        )


def _conditions(room: Room, q: TimelineQuery) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = [Message.room_id == room.id]
    if q.message_type is not None:
        where.append(Message.message_type == q.message_type)
    if q.message_types is not None:
        where.append(Message.message_type.in_(sorted(q.message_types)))
    if q.exclude_message_types is not None:
        where.append(Message.message_type.not_in(sorted(q.exclude_message_types)))
    if q.since is not None:
        since = q.since if q.since.tzinfo is not None else q.since.replace(tzinfo=UTC)
        where.append(Message.created_at > since)
    return where


async def read(session: AsyncSession, room: Room, q: TimelineQuery) -> MessagePage:
    """One page of the room's timeline for ``q`` (the caller checked the person is in it)."""
    _check(q)
    where = _conditions(room, q)
    anchor_id = q.after or q.before or q.around
    if anchor_id is None:
        return await page_of(session, where, q, agent_id=None)
    anchor = await session.scalar(
        select(Message).where(Message.id == anchor_id, Message.room_id == room.id)
    )
    if anchor is None:
        raise NotFound("Message not found", code="message_not_found")
    older = select(Message).where(*where, Message.seq < anchor.seq).order_by(Message.seq.desc())
    newer = select(Message).where(*where, Message.seq > anchor.seq).order_by(Message.seq.asc())
    meta: dict[str, Any] = {"limit": q.limit, "next_cursor": None}
    if q.after is not None or q.before is not None:
        stmt = newer if q.after is not None else older
        rows = list(await session.scalars(stmt.limit(q.limit + 1)))
        meta["has_more"] = len(rows) > q.limit
        return MessagePage(await chat_messages(session, rows[: q.limit]), meta)
    passes = await session.scalar(select(Message.id).where(*where, Message.id == anchor.id))
    room_for = q.limit - (1 if passes else 0)
    before = list(await session.scalars(older.limit(q.limit + 1)))
    after = list(await session.scalars(newer.limit(q.limit + 1)))
    take_new = min(len(after), room_for // 2)
    take_old = min(len(before), room_for - take_new)
    take_new = min(len(after), room_for - take_old)  # the other side fills the window
    rows = [*reversed(after[:take_new]), *([anchor] if passes else []), *before[:take_old]]
    meta["has_newer"] = len(after) > take_new
    meta["has_older"] = len(before) > take_old
    meta["has_more"] = meta["has_newer"] or meta["has_older"]
    return MessagePage(await chat_messages(session, rows), meta)
