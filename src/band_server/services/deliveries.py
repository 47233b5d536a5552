"""Per-agent delivery state: what ``/next`` serves and how the marks move it.

A delivery goes ``delivered → processing → processed | failed``. ``/processing`` opens attempt
N+1 unless one is live (then it is a no-op); ``/processed`` and ``/failed`` close the live
attempt and need one (replays of the same terminal mark answer again, unchanged). ``failed``
is not terminal: ``/next`` serves it again. Every transition is announced to people as
``message_updated``; agents never receive it (the official client has no handler for it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from band.protocol import (
    MAX_EVENT_CHARS,
    ActivityResponse,
    ChatMessage,
    MessageStatusResponse,
    iso,
    topic,
    utcnow,
)

from ..errors import NotFound, ValidationFailed
from ..fanout.bus import Broadcast
from ..store.models import Delivery, DeliveryAttempt, Message, Room
from .principals import Principal
from .unit import UnitOfWork
from .views import message_view

if TYPE_CHECKING:
    from ..context import Platform

Mark = Literal["processing", "processed", "failed"]

UNKNOWN_ERROR = "Unknown error"
ACTIVITY_TTL = 10.0
"""Seconds a ``working: true`` report lasts without a refresh (the client refreshes ~3 s)."""


# Built once, values bound per call: building a statement costs more than running it here
# (see "Performance (issue 9)" in docs/decisions.md).
_DELIVERIES_OF = select(Delivery).where(Delivery.message_id.in_(bindparam("message_ids")))
_DELIVERIES_OF_AGENT = _DELIVERIES_OF.where(Delivery.agent_id == bindparam("agent_id"))
_ATTEMPTS_OF = select(DeliveryAttempt).where(
    DeliveryAttempt.delivery_id.in_(bindparam("delivery_ids"))
)
_NEXT = (
    select(Message)
    .join(Delivery, Delivery.message_id == Message.id)
    .where(
        Delivery.agent_id == bindparam("agent_id"),
        Delivery.room_id == bindparam("room_id"),
        Delivery.status != "processed",
    )
    .order_by(Delivery.seq)
    .limit(1)
)
# A mark's one read: the agent's delivery (locked on PostgreSQL), its message, and every
# delivery of that message with its attempts (the announcement's statuses), one row per
# attempt. The mark builds its announcement from these rows and what it writes, so nothing is
# flushed or read again before the commit.
_OWN = aliased(Delivery, name="own")
_MARK_READ = (
    select(_OWN, Message, Delivery, DeliveryAttempt)
    .join(Message, Message.id == _OWN.message_id)
    .join(Delivery, Delivery.message_id == _OWN.message_id)
    .outerjoin(DeliveryAttempt, DeliveryAttempt.delivery_id == Delivery.id)
    .where(
        _OWN.message_id == bindparam("message_id"),
        _OWN.agent_id == bindparam("agent_id"),
        _OWN.room_id == bindparam("room_id"),
    )
    .with_for_update(of=_OWN)
)


# -- views ------------------------------------------------------------------------------------


def _status_view(delivery: Delivery, attempts: Sequence[DeliveryAttempt]) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for a in sorted(attempts, key=lambda x: x.attempt_number):
        item: dict[str, Any] = {
            "attempt_number": a.attempt_number,
            "status": a.status,
            "started_at": iso(a.started_at),
            "completed_at": iso(a.completed_at) if a.completed_at else None,
        }
        if a.error is not None:
            item["error"] = a.error
        items.append(item)
    return {
        "status": delivery.status,
        "current_attempt": delivery.attempt_number,
        "delivered_at": iso(delivery.delivered_at),
        "processed_at": iso(delivery.processed_at) if delivery.processed_at else None,
        "attempts": items,
    }


async def delivery_statuses(
    session: AsyncSession, message_ids: Sequence[str], *, agent_id: str | None = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """``{message_id: {agent_id: status}}`` for the given messages (optionally one agent)."""
    if not message_ids:
        return {}
    if agent_id is None:
        found = await session.scalars(_DELIVERIES_OF, {"message_ids": list(message_ids)})
    else:
        found = await session.scalars(
            _DELIVERIES_OF_AGENT, {"message_ids": list(message_ids), "agent_id": agent_id}
        )
    deliveries = list(found)
    if not deliveries:
        return {}
    attempts: dict[str, list[DeliveryAttempt]] = {}
    rows = await session.scalars(_ATTEMPTS_OF, {"delivery_ids": [d.id for d in deliveries]})
    for a in rows:
        attempts.setdefault(a.delivery_id, []).append(a)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for d in deliveries:
        out.setdefault(d.message_id, {})[d.agent_id] = _status_view(d, attempts.get(d.id, []))
    return out


async def chat_messages(
    session: AsyncSession, msgs: Sequence[Message], *, agent_id: str | None = None
) -> list[ChatMessage]:
    """Wire views of messages, with ``metadata.delivery_status`` where deliveries exist."""
    statuses = await delivery_statuses(session, [m.id for m in msgs], agent_id=agent_id)
    views: list[ChatMessage] = []
    for m in msgs:
        view = message_view(m)
        status = statuses.get(m.id)
        if status:
            view.metadata = {**view.metadata, "delivery_status": status}
        views.append(view)
    return views


# -- /next ------------------------------------------------------------------------------------


async def next_message(session: AsyncSession, room: Room, agent_id: str) -> ChatMessage | None:
    """The oldest message in the room addressed to the agent and not yet processed.

    ``delivered``, ``processing`` (crash recovery, a stopped turn) and ``failed`` (retry) all
    count. The agent's own messages never have a delivery, so they are never served.
    """
    msg = await session.scalar(_NEXT, {"agent_id": agent_id, "room_id": room.id})
    if msg is None:
        return None
    return (await chat_messages(session, [msg], agent_id=agent_id))[0]


# -- marks ------------------------------------------------------------------------------------


@dataclass
class _MarkRead:
    """What a mark read: the agent's delivery and message, and the message's deliveries."""

    delivery: Delivery
    message: Message
    deliveries: dict[str, Delivery]
    attempts: dict[str, list[DeliveryAttempt]]

    def live_attempt(self) -> DeliveryAttempt | None:
        d = self.delivery
        if d.status != "processing":
            return None
        for a in self.attempts.get(d.id, ()):
            if a.attempt_number == d.attempt_number:
                return a
        return None


async def _read_for_mark(
    session: AsyncSession, agent_id: str, room: Room, message_id: str
) -> _MarkRead:
    # A message of another room, one not addressed to this agent and an unknown id all look
    # the same from outside: 404.
    params = {"message_id": message_id, "agent_id": agent_id, "room_id": room.id}
    rows = (await session.execute(_MARK_READ, params)).all()
    if not rows:
        raise NotFound("Message not found")
    deliveries: dict[str, Delivery] = {}
    attempts: dict[str, list[DeliveryAttempt]] = {}
    for _own, _msg, d, a in rows:
        deliveries[d.id] = d
        if a is not None:
            attempts.setdefault(d.id, []).append(a)
    return _MarkRead(rows[0][0], rows[0][1], deliveries, attempts)


def _no_live_attempt(mark: str) -> ValidationFailed:
    return ValidationFailed(
        f"No processing attempt is in progress; call /processing before /{mark}",
        {"/processing_attempt": ["no attempt is in progress for this message"]},
    )


def _announce(uow: UnitOfWork, read: _MarkRead) -> None:
    message = read.message
    view = message_view(message)
    view.metadata = {
        **view.metadata,
        "delivery_status": {
            d.agent_id: _status_view(d, read.attempts.get(d.id, []))
            for d in read.deliveries.values()
        },
    }
    uow.emit(
        Broadcast(
            topic=topic("chat_room", message.room_id),
            event="message_updated",
            payload=view.model_dump(mode="json"),
            agents=frozenset(),
            users=True,
        )
    )


def _answer(delivery: Delivery, status: Mark) -> MessageStatusResponse:
    return MessageStatusResponse(
        id=delivery.message_id, status=status, attempt_number=delivery.attempt_number
    )


async def mark_processing(
    uow: UnitOfWork, agent: Principal, room: Room, message_id: str
) -> MessageStatusResponse:
    """Claim a message: open attempt N+1, or return the live attempt unchanged."""
    read = await _read_for_mark(uow.session, agent.id, room, message_id)
    delivery = read.delivery
    if delivery.status == "processing":
        return _answer(delivery, "processing")
    now = utcnow()
    delivery.attempt_number += 1
    delivery.status = "processing"
    delivery.updated_at = now
    attempt = DeliveryAttempt(
        delivery_id=delivery.id,
        attempt_number=delivery.attempt_number,
        status="processing",
        error=None,
        started_at=now,
        completed_at=None,
    )
    uow.session.add(attempt)
    read.attempts.setdefault(delivery.id, []).append(attempt)
    _announce(uow, read)
    return _answer(delivery, "processing")


async def mark_processed(
    uow: UnitOfWork, agent: Principal, room: Room, message_id: str
) -> MessageStatusResponse:
    """Acknowledge success: close the live attempt. A replay answers again, unchanged."""
    read = await _read_for_mark(uow.session, agent.id, room, message_id)
    delivery = read.delivery
    if delivery.status == "processed":
        return _answer(delivery, "processed")
    attempt = read.live_attempt()
    if attempt is None:
        raise _no_live_attempt("processed")
    now = utcnow()
    attempt.status = "success"
    attempt.completed_at = now
    delivery.status = "processed"
    delivery.processed_at = now
    delivery.updated_at = now
    _announce(uow, read)
    return _answer(delivery, "processed")


def clean_error(error: str | None) -> str:
    """Trimmed and bounded; a blank error becomes ``Unknown error``."""
    text = (error or "").strip()
    return text[:MAX_EVENT_CHARS] if text else UNKNOWN_ERROR


async def mark_failed(
    uow: UnitOfWork, agent: Principal, room: Room, message_id: str, error: str | None
) -> MessageStatusResponse:
    """Report a failed attempt; ``/next`` will serve the message again."""
    read = await _read_for_mark(uow.session, agent.id, room, message_id)
    delivery = read.delivery
    if delivery.status == "failed":
        return _answer(delivery, "failed")
    attempt = read.live_attempt()
    if attempt is None:
        raise _no_live_attempt("failed")
    now = utcnow()
    attempt.status = "failed"
    attempt.error = clean_error(error)
    attempt.completed_at = now
    delivery.status = "failed"
    delivery.updated_at = now
    _announce(uow, read)
    return _answer(delivery, "failed")


# -- activity ---------------------------------------------------------------------------------


@dataclass
class ActivityBoard:
    """In-memory "is this agent working in this room" flags with a short expiry.

    Node-local on purpose: the indicator is cosmetic and refreshed every few seconds.
    """

    ttl: float = ACTIVITY_TTL
    _until: dict[tuple[str, str], float] = field(default_factory=dict)

    def is_working(self, room_id: str, agent_id: str) -> bool:
        until = self._until.get((room_id, agent_id))
        if until is None:
            return False
        if until < time.monotonic():
            del self._until[(room_id, agent_id)]
            return False
        return True

    def report(self, room_id: str, agent_id: str, working: bool) -> bool:
        """Record a report; True when the visible state changed."""
        before = self.is_working(room_id, agent_id)
        if working:
            self._until[(room_id, agent_id)] = time.monotonic() + self.ttl
        else:
            self._until.pop((room_id, agent_id), None)
        return before != working


async def report_activity(
    platform: Platform, agent: Principal, room_id: str, working: bool
) -> ActivityResponse:
    """Record the agent's working flag in a room it belongs to; tell people when it flips."""
    # The roster cache answers membership (dropped on every membership change, cluster-wide).
    await platform.rosters.room_for(platform.db, agent, room_id)
    if platform.activity.report(room_id, agent.id, working):
        await platform.bus.publish(
            Broadcast(
                topic=topic("chat_room", room_id),
                event="agent_activity",
                payload={"agent_id": agent.id, "chat_room_id": room_id, "working": working},
                agents=frozenset(),
                users=True,
            )
        )
    return ActivityResponse(working=working)
