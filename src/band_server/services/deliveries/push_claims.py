"""Claims carried by the push: a post opens attempt 1 for a mentioned agent whose socket on
this node asked for it (``band_protocol.CLAIM_ON_PUSH_PARAM``), so the agent's turn starts
without its ``/processing`` round trip.

Only when the agent has no live attempt in the room: its turns there are serial, and a message
claimed while another runs would wait in the agent's queue on its lease. The push shows the
opened attempts in its ``metadata.delivery_status`` (what a claim's ``message_updated`` shows
people); the stored metadata does not carry it (reads compute it). ``working`` also starts the
working indicator for the message, as a claim with ``Band-Working: true`` does, once the post
commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.services.deliveries.leases import LeaseClock
from band_server.services.deliveries.rows import (
    DELIVERIES,
    AttemptRow,
    DeliveryRow,
    attempt_values,
)
from band_server.services.deliveries.wire import status_view
from band_server.services.deliveries.working import ActivityBoard, claim_started
from band_server.services.unit import UnitOfWork
from band_server.store import direct
from band_server.store.models import new_ordered_id

_D = DELIVERIES.c
_LIVE = (
    select(_D.id)
    .where(
        _D.agent_id == bindparam("agent_id"),
        _D.room_id == bindparam("room_id"),
        _D.status == "processing",
    )
    .limit(1)
)


class PushClaims(Protocol):
    """What the claims use of the platform (``context.Platform``): which sockets asked for
    them, the lease clock and the working indicator."""

    @property
    def lease_clock(self) -> LeaseClock: ...

    @property
    def activity(self) -> ActivityBoard: ...

    def claim_on_push(self, agent_id: str, room_id: str) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Claimed:
    """A delivery the post opens: its id, and whether the indicator starts with it."""

    delivery_id: str
    attempt_id: str
    working: bool

    def attempt(self, started_at: datetime) -> AttemptRow:
        """The opened attempt: the first, live."""
        return AttemptRow(self.attempt_id, 1, "processing", None, started_at, None)


def asking(claims: PushClaims, room_id: str, agent_ids: Iterable[str]) -> dict[str, str]:
    """The mentioned agents whose socket on this node holds the room and asked, with its
    mode (a plain call: most posts have none, and go no further)."""
    found: dict[str, str] = {}
    for agent_id in agent_ids:
        mode = claims.claim_on_push(agent_id, room_id)
        if mode is not None:
            found[agent_id] = mode
    return found


async def take(session: AsyncSession, room_id: str, modes: dict[str, str]) -> dict[str, Claimed]:
    """Of the agents :func:`asking`, those whose deliveries the post opens, by agent id."""
    taken: dict[str, Claimed] = {}
    for agent_id, mode in modes.items():
        params = {"agent_id": agent_id, "room_id": room_id}
        if await direct.rows(session, _LIVE, params):
            continue  # a turn is under way in the room: this one waits its turn unclaimed
        taken[agent_id] = Claimed(new_ordered_id(), new_ordered_id(), mode == "working")
    return taken


def opened_rows(
    rows: list[dict[str, Any]], taken: dict[str, Claimed], now: datetime
) -> list[dict[str, Any]]:
    """``rows`` (the post's deliveries) with the taken ones ``processing`` at attempt 1 (every
    row gets the same keys: one statement for all), and the attempts to insert."""
    attempts: list[dict[str, Any]] = []
    for row in rows:
        claimed = taken.get(row["agent_id"])
        if claimed is None:
            row.update(id=new_ordered_id(), status="delivered", attempt_number=0)
            continue
        row.update(id=claimed.delivery_id, status="processing", attempt_number=1)
        attempts.append(attempt_values(claimed.delivery_id, claimed.attempt(now)))
    return attempts


def statuses(rows: list[dict[str, Any]], taken: dict[str, Claimed]) -> dict[str, Any]:
    """The push's ``metadata.delivery_status``: every delivery of the post, as written."""
    shown: dict[str, Any] = {}
    for row in rows:
        now, claimed = row["delivered_at"], taken.get(row["agent_id"])
        delivery = DeliveryRow(
            row["id"], row["agent_id"], row["status"], row["attempt_number"], now, None, now
        )
        attempts = [claimed.attempt(now)] if claimed else []
        shown[row["agent_id"]] = status_view(delivery, attempts)
    return shown


def after_commit(
    uow: UnitOfWork, claims: PushClaims, room_id: str, message_id: str, taken: dict[str, Claimed]
) -> None:
    """Once the post commits: the lease clocks were written, and the indicators start (their
    pushes go out after the message's own)."""

    def committed() -> None:
        for agent_id, claimed in taken.items():
            claims.lease_clock.moved(agent_id, room_id)
            if not claimed.working:
                continue
            started = claim_started(claims.activity, agent_id, room_id, message_id)
            if started is not None:
                uow.emit(started)

    uow.on_commit(committed)
