"""``/next`` with one more rule: a head left from an agent's earlier connection, which the
agent went past on its new one, is passed over at once.

Both SDKs drain a room serially after a reconnect: ``/next``, run what it served (a
``/processing`` first), then ``/next`` again. A head they will not run is skipped with no
write, and the drain stops when ``/next`` answers the same id again: band-sdk 6.0.1 gives up a
message for the life of its process once a turn of it failed and it sees it again ("exceeded
max retries"), typically the turn that was running when its node died. Until issue 27 only the
delivery lease (300 s by default) moved such a room on.

What a node can see decides it (``next_for_agent``), all three at once:
- the head is left from a connection that is gone: delivered, or its attempt opened, before
  the agent's socket last connected to this node (``ServedHeads.connected``);
- the agent asked ``/next`` again in that room, on this connection, and was served that head
  last time (``ServedHeads`` remembers the last head served per agent and room, and forgets an
  agent's whenever its socket connects here);
- the delivery is exactly as it was served: no claim, mark or sign of life moved it.

Then its open attempt is recorded ``failed`` (``deliveries.pass_over``; announced to people like
any mark, and a late ``/processed`` still settles it) and ``/next`` answers with the room's next
open message in the same call; the passed-over one comes back after the room's other open
messages, as any failed one. Not passed over: an agent back from a crash or a cut claims its
own interrupted turn before it asks again, so it still gets it first; a head of the current
connection (a one-shot runtime only peeks at ``/next`` before it claims a newer message). The
lease stays the last resort: for a socket held on another node than the one asked, and for a
head an agent skips while it never asks ``/next`` again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from band.protocol import utcnow

from ..store.models import Room
from . import deliveries, next_up, unit, working
from .delivery_rows import DeliveryRow
from .leases import stale_before

if TYPE_CHECKING:
    from ..context import Platform

log = logging.getLogger("band_server.deliveries")

MAX_REMEMBERED = 100_000  # agents per node; beyond, those connected longest ago are forgotten


@dataclass(frozen=True, slots=True)
class Served:
    """A head as ``/next`` served it (equal only if nothing was written to it since)."""

    message_id: str
    status: str
    attempt_number: int
    updated_at: datetime


@dataclass
class ServedHeads:
    """Per node: when each agent's socket last connected here, and the head ``/next`` last
    served it in each room since."""

    _connected: dict[str, datetime] = field(default_factory=dict)  # agent -> its last connect
    _served: dict[str, dict[str, Served]] = field(default_factory=dict)  # agent -> room ->

    def connected(self, agent_id: str) -> None:
        """The agent's socket connected here: a new connection, nothing served on it yet."""
        self._served.pop(agent_id, None)
        self._connected.pop(agent_id, None)  # re-inserted last: the dict stays oldest first
        self._connected[agent_id] = utcnow()
        if len(self._connected) > MAX_REMEMBERED:
            for old in list(self._connected)[: MAX_REMEMBERED // 2]:
                self._connected.pop(old)
                self._served.pop(old, None)

    def connected_at(self, agent_id: str) -> datetime | None:
        return self._connected.get(agent_id)

    def repeated(self, agent_id: str, room_id: str, head: next_up.Head) -> bool:
        """Whether this head was served last time and nothing was written to it since."""
        last = self._served.get(agent_id, {}).get(room_id)
        return last is not None and last == _served(head)

    def remember(self, agent_id: str, room_id: str, head: next_up.Head | None) -> None:
        """What ``/next`` served (None: nothing, 204)."""
        if head is None:
            self._served.get(agent_id, {}).pop(room_id, None)
        elif agent_id in self._connected:  # else no socket here: no connection to judge by
            self._served.setdefault(agent_id, {})[room_id] = _served(head)


def _served(head: next_up.Head) -> Served:
    d = head.delivery
    return Served(str(head.payload["id"]), d.status, d.attempt_number, d.updated_at)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite: naive


def left_over(head: next_up.Head, connected_at: datetime, lease: float) -> bool:
    """A head ``/next`` serves first (``delivered``, or ``processing`` within its lease: a
    failed or expired one is served last already) that is left from an earlier connection:
    delivered, or its attempt opened, before ``connected_at``."""
    d = head.delivery
    if d.status == "delivered":
        return _utc(d.delivered_at) < connected_at
    if d.status != "processing" or _utc(d.updated_at) < stale_before(lease):
        return False
    return head.attempt is not None and _utc(head.attempt.started_at) < connected_at


async def next_for_agent(platform: Platform, agent_id: str, room: Room) -> dict[str, Any] | None:
    """What ``/next`` answers: ``next_up.next_message``, after passing over a head the agent
    went past (see the module's docstring)."""
    lease = platform.settings.delivery_lease
    heads = platform.served_heads
    head = await next_up.next_message(platform.db, room, agent_id, lease=lease)
    connected_at = heads.connected_at(agent_id)
    if (
        head is not None
        and connected_at is not None
        and heads.repeated(agent_id, room.id, head)
        and left_over(head, connected_at, lease)
        and await _pass_over(platform, agent_id, room, head)
    ):
        head = await next_up.next_message(platform.db, room, agent_id, lease=lease)
    heads.remember(agent_id, room.id, head)
    return None if head is None else head.payload


async def _pass_over(platform: Platform, agent_id: str, room: Room, head: next_up.Head) -> bool:
    message_id = str(head.payload["id"])
    row: DeliveryRow = head.delivery
    async with unit.write(platform) as uow:
        passed = await deliveries.pass_over(uow, agent_id, room, message_id, row)
    if passed:
        log.info(
            "agent %s went past message %s in room %s after it reconnected (asked /next again "
            "without a mark): recorded failed, served after the room's other open messages",
            agent_id,
            message_id,
            room.id,
        )
        await working.turn_ended(platform, agent_id, room.id, message_id)
    return passed
