"""Per-agent delivery state: how the marks move it (what ``/next`` serves: ``next_up``).

A delivery goes ``delivered → processing → processed | failed``. ``/processing`` opens attempt
N+1 unless one is live (then it is a no-op, and a sign of life); ``/processed`` and
``/failed`` close the live attempt and need one (replays of the same terminal mark answer
again, unchanged). ``failed`` is not terminal: ``/next`` serves it again, after the room's
other open messages. A live attempt holds a lease (``leases.py``): one with no sign of life for
the lease is served like a ``failed`` one, then recorded as failed. Every transition is
announced to people as ``message_updated``; agents never receive it (the official client has
no handler for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import (
    MAX_EVENT_CHARS,
    topic,
    utcnow,
)
from band_server.errors import NotFound, ValidationFailed
from band_server.fanout.bus import Broadcast
from band_server.services.deliveries.leases import EXPIRED_ERROR, LeaseClock
from band_server.services.deliveries.rows import (
    ATTEMPT_COLUMNS,
    ATTEMPTS,
    DELIVERIES,
    DELIVERY_COLUMNS,
    MESSAGE_COLUMNS,
    MESSAGES,
    AttemptRow,
    DeliveryRow,
    attempt_values,
    message_of,
)
from band_server.services.deliveries.wire import status_view
from band_server.services.identity.principals import Principal
from band_server.services.unit import UnitOfWork
from band_server.services.views import Posted, message_payload, status_answer
from band_server.store import direct
from band_server.store.models import Room, new_ordered_id

Mark = Literal["processing", "processed", "failed"]

UNKNOWN_ERROR = "Unknown error"
PASSED_OVER_ERROR = (
    "Passed over: after its reconnect the agent went past this message without claiming it"
)
"""The error of an attempt the platform closed because the agent went past it (``pass_over``;
a late success still settles it, as for an expired one)."""
_CLOSED_BY_PLATFORM = frozenset({EXPIRED_ERROR, PASSED_OVER_ERROR})


# A mark's one read: the agent's delivery (locked on PostgreSQL), its message, and every
# delivery of that message with its attempts (the announcement's statuses), one row per
# attempt. Core rows, not ORM objects: the mark writes its changes with Core statements and
# builds its announcement from these rows and what it wrote, so the unit has nothing to flush
# (loading four entities a row and flushing them cost about half of a mark's CPU).
_OWN = DELIVERIES.alias("own")
_MARK_READ = (
    select(
        _OWN.c.id,
        *(MESSAGES.c[name] for name in MESSAGE_COLUMNS),
        *(DELIVERIES.c[name] for name in DELIVERY_COLUMNS),
        *(ATTEMPTS.c[name] for name in ATTEMPT_COLUMNS),
    )
    .select_from(_OWN)
    .join(MESSAGES, MESSAGES.c.id == _OWN.c.message_id)
    .join(DELIVERIES, DELIVERIES.c.message_id == _OWN.c.message_id)
    .outerjoin(ATTEMPTS, ATTEMPTS.c.delivery_id == DELIVERIES.c.id)
    .where(
        _OWN.c.message_id == bindparam("message_id"),
        _OWN.c.agent_id == bindparam("agent_id"),
        _OWN.c.room_id == bindparam("room_id"),
    )
    .with_for_update(of=_OWN)
)
_SET_DELIVERY = update(DELIVERIES).where(DELIVERIES.c.id == bindparam("delivery_id"))
_OPEN_DELIVERY = _SET_DELIVERY.values(
    status=bindparam("status"),
    attempt_number=bindparam("attempt_number"),
    updated_at=bindparam("now"),
)
_TOUCH_DELIVERY = _SET_DELIVERY.values(updated_at=bindparam("now"))
_CLOSE_DELIVERY = _SET_DELIVERY.values(
    status=bindparam("status"), processed_at=bindparam("processed_at"), updated_at=bindparam("now")
)
_INSERT_ATTEMPT = ATTEMPTS.insert()
_CLOSE_ATTEMPT = (
    update(ATTEMPTS)
    .where(ATTEMPTS.c.id == bindparam("attempt_id"))
    .values(status=bindparam("status"), error=bindparam("error"), completed_at=bindparam("now"))
)


# -- marks ------------------------------------------------------------------------------------


@dataclass
class _MarkRead:
    """What a mark read: the agent's delivery and message, and the message's deliveries."""

    delivery: DeliveryRow
    message: Posted
    deliveries: dict[str, DeliveryRow]
    attempts: dict[str, list[AttemptRow]]

    def current_attempt(self) -> AttemptRow | None:
        d = self.delivery
        for a in self.attempts.get(d.id, ()):
            if a.attempt_number == d.attempt_number:
                return a
        return None

    def live_attempt(self) -> AttemptRow | None:
        return self.current_attempt() if self.delivery.status == "processing" else None

    def closed_attempt(self) -> AttemptRow | None:
        """The current attempt when the platform closed it (its lease ran out, or the agent
        went past it): a late success still settles it, the agent was at it after all."""
        a = self.current_attempt()
        if self.delivery.status == "failed" and a is not None and a.error in _CLOSED_BY_PLATFORM:
            return a
        return None


async def _read_for_mark(
    session: AsyncSession, agent_id: str, room: Room, message_id: str
) -> _MarkRead:
    # A message of another room, one not addressed to this agent and an unknown id all look
    # the same from outside: 404.
    params = {"message_id": message_id, "agent_id": agent_id, "room_id": room.id}
    found = await direct.rows(session, _MARK_READ, params)
    if not found:
        raise NotFound("Message not found")
    own_id = found[0][0]
    m_end = 1 + len(MESSAGE_COLUMNS)
    d_end = m_end + len(DELIVERY_COLUMNS)
    deliveries: dict[str, DeliveryRow] = {}
    attempts: dict[str, list[AttemptRow]] = {}
    for row in found:
        d = deliveries.get(row[m_end])
        if d is None:
            d = deliveries[row[m_end]] = DeliveryRow(*row[m_end:d_end])
        if row[d_end] is not None:
            attempts.setdefault(d.id, []).append(AttemptRow(*row[d_end:]))
    return _MarkRead(deliveries[own_id], message_of(found[0][1:m_end]), deliveries, attempts)


def _no_live_attempt(mark: str) -> ValidationFailed:
    return ValidationFailed(
        f"No processing attempt is in progress; call /processing before /{mark}",
        {"/processing_attempt": ["no attempt is in progress for this message"]},
    )


def _announce(uow: UnitOfWork, read: _MarkRead) -> None:
    message = read.message
    metadata = {
        **(message.meta or {}),
        "delivery_status": {
            d.agent_id: status_view(d, read.attempts.get(d.id, []))
            for d in read.deliveries.values()
        },
    }
    uow.emit(
        Broadcast(
            topic=topic("chat_room", message.room_id),
            event="message_updated",
            payload=message_payload(message, metadata),
            agents=frozenset(),
            users=True,
        )
    )


def _answer(read: _MarkRead, status: Mark) -> dict[str, Any]:
    return status_answer(read.message.id, status, read.delivery.attempt_number)


async def mark_processing(
    uow: UnitOfWork, agent: Principal, room: Room, message_id: str, clock: LeaseClock
) -> dict[str, Any]:
    """Claim a message: open attempt N+1, or return the live attempt unchanged.

    Either way the live attempt's lease clock is written here, so the room's next signs of
    life (the turn's activity and posts) are not written again within ``clock``'s interval:
    the room's one live attempt is this one (turns are serial per room)."""
    read = await _read_for_mark(uow.session, agent.id, room, message_id)
    delivery = read.delivery
    if delivery.status == "processing":  # a sign of life: the live attempt keeps its lease
        params = {"delivery_id": delivery.id, "now": utcnow()}
        await direct.execute(uow.session, _TOUCH_DELIVERY, params)
        clock.moved(agent.id, room.id)
        return _answer(read, "processing")
    await _open(uow, read)
    clock.moved(agent.id, room.id)
    _announce(uow, read)
    return _answer(read, "processing")


async def _open(uow: UnitOfWork, read: _MarkRead) -> AttemptRow:
    """Open attempt N+1 and move the delivery to ``processing``."""
    now = utcnow()
    delivery = read.delivery
    delivery.attempt_number += 1
    delivery.status = "processing"
    attempt = AttemptRow(new_ordered_id(), delivery.attempt_number, "processing", None, now, None)
    await direct.execute(
        uow.session,
        _OPEN_DELIVERY,
        {
            "delivery_id": delivery.id,
            "status": delivery.status,
            "attempt_number": delivery.attempt_number,
            "now": now,
        },
    )
    await direct.execute(uow.session, _INSERT_ATTEMPT, attempt_values(delivery.id, attempt))
    read.attempts.setdefault(delivery.id, []).append(attempt)
    return attempt


async def _close(
    uow: UnitOfWork, read: _MarkRead, attempt: AttemptRow, status: Mark, error: str | None
) -> None:
    """Close the live attempt (``success`` or ``failed``) and move the delivery to ``status``."""
    now = utcnow()
    delivery = read.delivery
    attempt.status = "success" if status == "processed" else "failed"
    attempt.error = error
    attempt.completed_at = now
    delivery.status = status
    if status == "processed":
        delivery.processed_at = now
    params = {"attempt_id": attempt.id, "status": attempt.status, "error": error, "now": now}
    await direct.execute(uow.session, _CLOSE_ATTEMPT, params)
    await direct.execute(
        uow.session,
        _CLOSE_DELIVERY,
        {
            "delivery_id": delivery.id,
            "status": status,
            "processed_at": delivery.processed_at,
            "now": now,
        },
    )
    _announce(uow, read)


async def mark_processed(
    uow: UnitOfWork, agent: Principal, room: Room, message_id: str
) -> dict[str, Any]:
    """Acknowledge success: close the live attempt (or the one the platform closed: the
    agent was at it after all). A replay answers again, unchanged."""
    read = await _read_for_mark(uow.session, agent.id, room, message_id)
    if read.delivery.status == "processed":
        return _answer(read, "processed")
    attempt = read.live_attempt() or read.closed_attempt()
    if attempt is None:
        raise _no_live_attempt("processed")
    await _close(uow, read, attempt, "processed", None)
    return _answer(read, "processed")


def clean_error(error: str | None) -> str:
    """Trimmed and bounded; a blank error becomes ``Unknown error``."""
    text = (error or "").strip()
    return text[:MAX_EVENT_CHARS] if text else UNKNOWN_ERROR


async def mark_failed(
    uow: UnitOfWork, agent: Principal, room: Room, message_id: str, error: str | None
) -> dict[str, Any]:
    """Report a failed attempt; ``/next`` will serve the message again.

    A message the agent never claimed (its claim never arrived: band-sdk fails a turn whose
    context read was cut before its claim) gets one attempt, opened and failed at once: the
    failure is visible and ``/next`` passes over it, where a refusal would have left it
    ``delivered`` at the head of a room whose agent skips it for good."""
    read = await _read_for_mark(uow.session, agent.id, room, message_id)
    if read.delivery.status == "failed":
        return _answer(read, "failed")
    attempt = read.live_attempt()
    if attempt is None and read.delivery.status == "delivered":
        attempt = await _open(uow, read)
    if attempt is None:
        raise _no_live_attempt("failed")
    await _close(uow, read, attempt, "failed", clean_error(error))
    return _answer(read, "failed")


async def pass_over(
    uow: UnitOfWork, agent_id: str, room: Room, message_id: str, seen: DeliveryRow
) -> bool:
    """The agent went past the head ``/next`` served it (``passing_over``): record its open
    attempt ``failed`` with ``PASSED_OVER_ERROR`` (opening one first when it never claimed
    it), so ``/next`` serves it after the room's other open messages. Only when the delivery
    is still exactly as it was served (a claim, a mark or a sign of life since moves
    ``updated_at``); True when it was recorded."""
    try:
        read = await _read_for_mark(uow.session, agent_id, room, message_id)
    except NotFound:  # the message went away meanwhile
        return False
    d = read.delivery
    if (d.status, d.attempt_number, d.updated_at) != (
        seen.status,
        seen.attempt_number,
        seen.updated_at,
    ):
        return False
    attempt = await _open(uow, read) if d.status == "delivered" else read.live_attempt()
    if attempt is None:
        return False
    await _close(uow, read, attempt, "failed", PASSED_OVER_ERROR)
    return True
