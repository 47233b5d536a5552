"""How deliveries look on the wire: ``metadata.delivery_status`` of a message, per agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import ChatMessage, iso
from band_server.services.deliveries.rows import AttemptRow, DeliveryRow
from band_server.services.views import message_view
from band_server.store.models import Delivery, DeliveryAttempt, Message

DeliveryState: TypeAlias = Delivery | DeliveryRow
"""A delivery as stored, or as a mark read and changed it."""
AttemptState: TypeAlias = DeliveryAttempt | AttemptRow
"""One of its attempts, the same two ways."""


# Built once, values bound per call: building a statement costs more than running it here
# (docs/decisions.md, "Delivery marks and `/next`: one read each").
_DELIVERIES_OF = select(Delivery).where(Delivery.message_id.in_(bindparam("message_ids")))
_DELIVERIES_OF_AGENT = _DELIVERIES_OF.where(Delivery.agent_id == bindparam("agent_id"))
_ATTEMPTS_OF = select(DeliveryAttempt).where(
    DeliveryAttempt.delivery_id.in_(bindparam("delivery_ids"))
)


def status_view(delivery: DeliveryState, attempts: Sequence[AttemptState]) -> dict[str, Any]:
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
        out.setdefault(d.message_id, {})[d.agent_id] = status_view(d, attempts.get(d.id, []))
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
