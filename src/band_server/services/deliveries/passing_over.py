"""``/next`` with one more rule: a head left from an agent's earlier connection, which the
agent went past on its new one, is passed over (recorded ``failed``) within seconds.

How it works: docs/internals/server.md, "Passing over heads an agent went past".

The delivery lease stays the last resort.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from band_protocol import AgentControl, topic, utcnow
from band_server.fanout.bus import Broadcast
from band_server.services import unit
from band_server.services.deliveries import marks as deliveries
from band_server.services.deliveries import next_up, working
from band_server.services.deliveries.leases import Swept, stale_before
from band_server.services.deliveries.rows import DeliveryRow
from band_server.store.models import Room

log = logging.getLogger("band_server.deliveries")

Check = Callable[[], Coroutine[Any, Any, None]]

MAX_REMEMBERED = 100_000  # agents per node; beyond, those connected longest ago are forgotten
GRACE = 3.0  # seconds a left-over head may stay unclaimed after /next served it


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

    grace: float = GRACE
    _connected: dict[str, datetime] = field(default_factory=dict)  # agent -> its last connect
    _served: dict[str, dict[str, Served]] = field(default_factory=dict)  # agent -> room ->
    _timers: dict[tuple[str, str], asyncio.TimerHandle] = field(default_factory=dict)
    _checks: set[asyncio.Task[None]] = field(default_factory=set)

    def connected(self, agent_id: str) -> None:
        """The agent's socket connected here: a new connection, nothing served on it yet."""
        self._forget(agent_id)
        self._connected[agent_id] = utcnow()  # inserted last: the dict stays oldest first
        if len(self._connected) > MAX_REMEMBERED:
            for old in list(self._connected)[: MAX_REMEMBERED // 2]:
                self._forget(old)

    def _forget(self, agent_id: str) -> None:
        self._connected.pop(agent_id, None)
        for room_id in self._served.pop(agent_id, {}):
            self._unwatch(agent_id, room_id)

    def connected_at(self, agent_id: str) -> datetime | None:
        return self._connected.get(agent_id)

    def repeated(self, agent_id: str, room_id: str, head: next_up.Head) -> bool:
        """Whether this head was served last time and nothing was written to it since."""
        last = self._served.get(agent_id, {}).get(room_id)
        return last is not None and last == _served(head)

    def remember(self, agent_id: str, room_id: str, head: next_up.Head | None) -> None:
        """What ``/next`` served (None: nothing, 204)."""
        self._unwatch(agent_id, room_id)
        if head is None:
            self._served.get(agent_id, {}).pop(room_id, None)
        elif agent_id in self._connected:  # else no socket here: no connection to judge by
            self._served.setdefault(agent_id, {})[room_id] = _served(head)

    def still_served(self, agent_id: str, room_id: str, head: next_up.Head) -> bool:
        """Whether ``head`` is still what ``/next`` last served the agent in the room."""
        return self._served.get(agent_id, {}).get(room_id) == _served(head)

    def watch(self, agent_id: str, room_id: str, check: Check) -> None:
        """Run ``check`` after the grace, unless the agent is served again meanwhile."""
        loop = asyncio.get_running_loop()
        self._timers[(agent_id, room_id)] = loop.call_later(
            self.grace, self._run, agent_id, room_id, check
        )

    def _run(self, agent_id: str, room_id: str, check: Check) -> None:
        self._timers.pop((agent_id, room_id), None)
        task = asyncio.get_running_loop().create_task(check())
        self._checks.add(task)
        task.add_done_callback(self._checks.discard)

    def _unwatch(self, agent_id: str, room_id: str) -> None:
        timer = self._timers.pop((agent_id, room_id), None)
        if timer is not None:
            timer.cancel()

    async def close(self) -> None:
        """Stop every timer and check (the node stops)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in list(self._checks):
            task.cancel()
        await asyncio.gather(*self._checks, return_exceptions=True)


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


class Serving(Swept, Protocol):
    """What ``/next`` uses of the platform: the sweeper's needs and the heads served here."""

    @property
    def served_heads(self) -> ServedHeads: ...


async def next_for_agent(platform: Serving, agent_id: str, room: Room) -> dict[str, Any] | None:
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
        and await _pass_over(platform, agent_id, room, head, "asked /next again")
    ):
        head = await next_up.next_message(platform.db, room, agent_id, lease=lease)
    heads.remember(agent_id, room.id, head)
    if head is not None and connected_at is not None and left_over(head, connected_at, lease):
        served = head

        async def unclaimed() -> None:
            await _went_quiet(platform, agent_id, room, served)

        heads.watch(agent_id, room.id, unclaimed)
    return None if head is None else head.payload


async def _went_quiet(platform: Serving, agent_id: str, room: Room, head: next_up.Head) -> None:
    """The grace ran out with the left-over head unclaimed: pass it over and have the agent
    drain the room again (it will not ask by itself)."""
    if not platform.served_heads.still_served(agent_id, room.id, head):
        return
    try:
        passed = await _pass_over(platform, agent_id, room, head, "left it unclaimed")
        if passed:
            await platform.bus.publish(resume_room(agent_id, room.id))
    except Exception:  # the database or Redis may be away: the lease is the last resort
        log.warning("passing over a head in room %s failed", room.id, exc_info=True)


def resume_room(agent_id: str, room_id: str) -> Broadcast:
    """``agent.control`` ``play`` for one room, to the agent alone: both SDKs resume the room
    (it was not stopped: nothing to undo) and drain ``/next`` at once."""
    control = AgentControl(
        mode="play",
        scope="room",
        agent_id=agent_id,
        room_id=room_id,
        correlation_id=str(uuid.uuid4()),
    )
    return Broadcast(
        topic=topic("agent_control", agent_id),
        event="agent.control",
        payload=control.model_dump(mode="json"),
        agents=frozenset({agent_id}),
        users=False,
    )


async def _pass_over(
    platform: Serving, agent_id: str, room: Room, head: next_up.Head, how: str
) -> bool:
    message_id = str(head.payload["id"])
    row: DeliveryRow = head.delivery
    async with unit.write(platform) as uow:
        passed = await deliveries.pass_over(uow, agent_id, room, message_id, row)
    if passed:
        log.info(
            "agent %s went past message %s in room %s after it reconnected (%s without a "
            "mark): recorded failed, served after the room's other open messages",
            agent_id,
            message_id,
            room.id,
            how,
        )
        await working.turn_ended(platform, agent_id, room.id, message_id)
    return passed
