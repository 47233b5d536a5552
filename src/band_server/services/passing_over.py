"""``/next`` with one more rule: a head the agent went past is passed over at once.

Both SDKs drain a room serially: ``/next``, run what it served (a ``/processing`` first), then
``/next`` again. A head they will not run (band-sdk 6.0.1 gives up a message for the life of
its process once a turn of it failed and it saw it again: "exceeded max retries") is skipped
with no write, and the drain stops when ``/next`` answers the same id again. Until issue 27
only the delivery lease (300 s by default) moved such a room on.

So each node remembers the head it last served each agent in each room (``ServedHeads``,
emptied for an agent whenever its socket connects here: what an agent did on an earlier
connection is no evidence). When ``/next`` would serve that same head again and the delivery
is exactly as it was served (no claim, mark or sign of life moved its ``updated_at``), the agent
went past it: its open attempt is recorded ``failed`` (``deliveries.pass_over``, announced to
people like any mark) and ``/next`` answers with the room's next open message, in the same
call. The passed-over message is served again after the room's other open messages, as any
failed one. An agent back from a crash still gets its own interrupted turn first (it claims it
before asking again). The lease stays the last resort: for heads served on another node than
the one asked next, and for attempts nobody asks about again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..store.models import Room
from . import deliveries, next_up, unit, working
from .delivery_rows import DeliveryRow
from .leases import stale_before

if TYPE_CHECKING:
    from ..context import Platform

log = logging.getLogger("band_server.deliveries")

MAX_REMEMBERED = 100_000  # (agent, room) pairs per node; beyond, the oldest are forgotten


@dataclass(frozen=True, slots=True)
class Served:
    """A head as ``/next`` served it."""

    message_id: str
    status: str
    attempt_number: int
    updated_at: datetime  # as the database gave it: compared for equality only


@dataclass
class ServedHeads:
    """Per node: the head ``/next`` last served each agent in each room since the agent's
    socket last connected here."""

    _served: dict[str, dict[str, Served]] = field(default_factory=dict)  # agent -> room ->
    _count: int = 0

    def repeated(self, agent_id: str, room_id: str, message_id: str, row: DeliveryRow) -> bool:
        """Whether this head was served last time and nothing was written to it since."""
        last = self._served.get(agent_id, {}).get(room_id)
        return last is not None and last == _served(message_id, row)

    def remember(self, agent_id: str, room_id: str, message_id: str, row: DeliveryRow) -> None:
        rooms = self._served.setdefault(agent_id, {})
        if room_id not in rooms:
            self._count += 1
            if self._count > MAX_REMEMBERED:
                self._forget_oldest()
        rooms[room_id] = _served(message_id, row)

    def drop(self, agent_id: str, room_id: str) -> None:
        """Nothing was served (204)."""
        rooms = self._served.get(agent_id)
        if rooms is not None and rooms.pop(room_id, None) is not None:
            self._count -= 1

    def forget(self, agent_id: str) -> None:
        """The agent connected: what it was served before proves nothing about this
        connection (a new process runs its interrupted turn again)."""
        self._count -= len(self._served.pop(agent_id, {}))

    def _forget_oldest(self) -> None:
        for agent_id in list(self._served)[: max(1, len(self._served) // 2)]:
            self.forget(agent_id)


def _served(message_id: str, row: DeliveryRow) -> Served:
    return Served(message_id, row.status, row.attempt_number, row.updated_at)


async def next_for_agent(platform: Platform, agent_id: str, room: Room) -> dict[str, Any] | None:
    """What ``/next`` answers: ``next_up.next_message``, after passing over a head the agent
    went past (see the module's docstring)."""
    lease = platform.settings.delivery_lease
    heads = platform.served_heads
    found = await next_up.next_message(platform.db, room, agent_id, lease=lease)
    if found is not None and heads.repeated(agent_id, room.id, found[0]["id"], found[1]):
        payload, row = found
        if _served_first(row, lease) and await _pass_over(platform, agent_id, room, payload, row):
            found = await next_up.next_message(platform.db, room, agent_id, lease=lease)
    if found is None:
        heads.drop(agent_id, room.id)
        return None
    payload, row = found
    heads.remember(agent_id, room.id, payload["id"], row)
    return payload


def _served_first(row: DeliveryRow, lease: float) -> bool:
    """Open and not yet passed over: ``delivered``, or ``processing`` within its lease (a
    failed or expired head is already served last: serving it again is no news)."""
    if row.status == "delivered":
        return True
    clock = row.updated_at
    if clock.tzinfo is None:  # SQLite gives naive timestamps: they are UTC
        clock = clock.replace(tzinfo=UTC)
    return row.status == "processing" and clock >= stale_before(lease)


async def _pass_over(
    platform: Platform, agent_id: str, room: Room, payload: dict[str, Any], row: DeliveryRow
) -> bool:
    message_id = str(payload["id"])
    async with unit.write(platform) as uow:
        passed = await deliveries.pass_over(uow, agent_id, room, message_id, row)
    if passed:
        log.info(
            "agent %s went past message %s in room %s (asked /next again without a mark): "
            "recorded failed, served after the room's other open messages",
            agent_id,
            message_id,
            room.id,
        )
        await working.turn_ended(platform, agent_id, room.id, message_id)
    return passed
