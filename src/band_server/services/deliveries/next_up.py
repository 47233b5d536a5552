"""``/next``: the message in a room the agent should handle next, as the wire shows it.

One read, without a session on SQLite (``Database.peek_all``: a plain reader connection, one
statement, so one snapshot): the room's next open delivery of the agent with its message,
joined to that delivery's attempts (one row per attempt). The answer is built from the rows
(``views.message_payload``, what ``message_view(...).model_dump(mode="json")`` gives), not
through a read session, ORM reads and the model (docs/decisions.md, "Delivery marks and
`/next`: one read each").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, bindparam, case, select

from band_server.services.deliveries import rows
from band_server.services.deliveries.leases import stale_before
from band_server.services.deliveries.wire import status_view
from band_server.services.views import message_payload
from band_server.store.db import Database
from band_server.store.models import Room

_D = rows.DELIVERIES.c
# Passed over: what the agent failed, and attempts whose lease ran out (not yet swept).
_PASSED_OVER = case(
    (_D.status == "failed", 1),
    (and_(_D.status == "processing", _D.updated_at < bindparam("stale_before")), 1),
    else_=0,
)
_HEAD = (
    select(
        *(rows.MESSAGES.c[name].label(f"m_{name}") for name in rows.MESSAGE_COLUMNS),
        *(_D[name].label(f"d_{name}") for name in rows.DELIVERY_COLUMNS),
    )
    .select_from(rows.MESSAGES.join(rows.DELIVERIES, _D.message_id == rows.MESSAGES.c.id))
    .where(
        _D.agent_id == bindparam("agent_id"),
        _D.room_id == bindparam("room_id"),
        _D.status != "processed",
    )
    .order_by(_PASSED_OVER, _D.seq)
    .limit(1)
    .subquery("head")
)
_NEXT = select(_HEAD, *(rows.ATTEMPTS.c[name] for name in rows.ATTEMPT_COLUMNS)).select_from(
    _HEAD.outerjoin(rows.ATTEMPTS, rows.ATTEMPTS.c.delivery_id == _HEAD.c.d_id)
)
_M_END = len(rows.MESSAGE_COLUMNS)
_D_END = _M_END + len(rows.DELIVERY_COLUMNS)


@dataclass(frozen=True, slots=True)
class Head:
    """What ``/next`` serves: the message's wire form (with its ``metadata.delivery_status``
    for this agent), and its delivery and current attempt as read."""

    payload: dict[str, Any]
    delivery: rows.DeliveryRow
    attempt: rows.AttemptRow | None  # the delivery's current attempt, when it has one


async def next_message(db: Database, room: Room, agent_id: str, *, lease: float) -> Head | None:
    """The message the agent should handle next in the room, or None when nothing is open.

    First the oldest that is ``delivered`` or ``processing`` within its lease (crash recovery,
    a stopped turn: the agent gets its own open attempt back first); only when none is left,
    the oldest the agent failed or whose attempt expired (a retry). So a head the agent will
    not run (band-sdk skips a message it failed once, without a write) never stops the room.
    The agent's own messages never have a delivery, so they are never served.
    """
    params = {"agent_id": agent_id, "room_id": room.id, "stale_before": stale_before(lease)}
    found = await db.peek_all(_NEXT, params)
    if not found:
        return None
    head = found[0]
    message = rows.message_of(head[:_M_END])
    delivery = rows.DeliveryRow(*head[_M_END:_D_END])
    attempts = [rows.AttemptRow(*row[_D_END:]) for row in found if row[_D_END] is not None]
    metadata = {**message.meta, "delivery_status": {agent_id: status_view(delivery, attempts)}}
    current = next((a for a in attempts if a.attempt_number == delivery.attempt_number), None)
    return Head(message_payload(message, metadata), delivery, current)
