"""Delivery leases: a ``processing`` attempt lives while the agent shows signs of life.

How it works: docs/internals/server.md, "Delivery leases".

An attempt silent for ``Settings.delivery_lease`` is recorded ``failed`` by each node's
``LeaseSweeper``, and ``/next`` serves it after the room's other open messages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import topic, utcnow
from band_server.fanout.bus import Broadcast
from band_server.services import unit
from band_server.services.background import cancelled
from band_server.services.deliveries import working
from band_server.services.deliveries.wire import chat_messages
from band_server.services.ports import Configured
from band_server.services.unit import UnitOfWork
from band_server.store import direct
from band_server.store.models import Base, Delivery, DeliveryAttempt, Message

log = logging.getLogger("band_server.leases")

EXPIRED_ERROR = "Attempt expired: no sign of life from the agent within the delivery lease"
"""The error of an attempt the platform closed (a late ``/processed`` may still settle it)."""

RESYNC_CLOSE_CODE = 1012  # "service restart": both SDKs reconnect and drain ``/next``
SWEEP_BATCH = 200  # attempts expired per sweep at most (the next sweep takes the rest)

# A Core statement run by ``store.direct`` (on SQLite, in the unit's savepoint): through the
# session it began the unit's session, most of a sign of life's CPU (docs/decisions.md,
# "Delivery marks and `/next`: one read each").
_DELIVERIES = Base.metadata.tables[Delivery.__tablename__]
_TOUCH = (
    update(_DELIVERIES)
    .where(
        _DELIVERIES.c.agent_id == bindparam("for_agent"),
        _DELIVERIES.c.room_id == bindparam("in_room"),
        _DELIVERIES.c.status == "processing",
    )
    .values(updated_at=bindparam("now"))
)
_STALE = (
    select(Delivery.id, Delivery.agent_id, Delivery.room_id, Delivery.seq)
    .where(Delivery.status == "processing", Delivery.updated_at < bindparam("before"))
    .order_by(Delivery.updated_at)
    .limit(SWEEP_BATCH)
)


def stale_before(lease: float, now: datetime | None = None) -> datetime:
    """The lease clock an attempt must have passed to be alive at ``now``."""
    return (now or utcnow()) - timedelta(seconds=lease)


@dataclass
class LeaseClock:
    """Which (agent, room) clocks this node moved lately: a sign of life is written at most
    once every ``every`` seconds per pair (node-local; another node may write it too)."""

    every: float
    _moved: dict[tuple[str, str], float] = field(default_factory=dict)

    def due(self, agent_id: str, room_id: str) -> bool:
        """Whether a sign of life should be written now (if so, it counts as written)."""
        now = time.monotonic()
        if now - self._moved.get((agent_id, room_id), -self.every) < self.every:
            return False
        self.moved(agent_id, room_id, now)
        return True

    def moved(self, agent_id: str, room_id: str, now: float | None = None) -> None:
        """The clock was just written by other means (``/processing`` sets it itself)."""
        now = time.monotonic() if now is None else now
        if len(self._moved) > 10_000:  # bounded: forget pairs not moved for a while
            self._moved = {k: t for k, t in self._moved.items() if now - t < self.every}
        self._moved[(agent_id, room_id)] = now


async def touch(session: AsyncSession, agent_id: str, room_id: str) -> None:
    """A sign of life of the agent in the room: its live attempt there keeps its lease."""
    params = {"for_agent": agent_id, "in_room": room_id, "now": utcnow()}
    await direct.execute(session, _TOUCH, params)


async def sign_of_life(uow: UnitOfWork, clock: LeaseClock, agent_id: str, room_id: str) -> None:
    """``touch`` in the caller's unit, thinned by ``clock``."""
    if clock.due(agent_id, room_id):
        await touch(uow.session, agent_id, room_id)


@dataclass(frozen=True)
class Silent:
    """The attempts a sweep found silent: the ones it closes, the ones it renews."""

    dead: list[str]
    renewed: list[str]


async def stale(session: AsyncSession, before: datetime) -> Silent:
    """Deliveries whose attempt has had no sign of life since ``before``.

    Turns are serial per room in both SDKs, so of one agent's silent attempts in a room only
    the oldest can be a turn that died; the later ones were claimed and never started
    (band-sdk's control scan claims its whole open queue): those get a new lease, so ``/next``
    serves them before the dead one's retry.
    """
    oldest: dict[tuple[str, str], tuple[int, str]] = {}
    renewed: list[str] = []
    for delivery_id, agent_id, room_id, seq in await session.execute(_STALE, {"before": before}):
        key = (str(agent_id), str(room_id))
        held = oldest.get(key)
        if held is None or seq < held[0]:
            if held is not None:
                renewed.append(held[1])
            oldest[key] = (int(seq), str(delivery_id))
        else:
            renewed.append(str(delivery_id))
    return Silent([d for _, d in oldest.values()], renewed)


@dataclass(frozen=True)
class Expired:
    """An attempt the sweep closed: whose, where, of which message."""

    agent_id: str
    room_id: str
    message_id: str


async def expire(uow: UnitOfWork, silent: Silent, before: datetime) -> list[Expired]:
    """Close the dead attempts that are still silent since ``before`` (``failed``,
    ``EXPIRED_ERROR``), renew the others, and announce each closed message's new statuses to
    people. Returns the attempts it closed."""
    session, now = uow.session, utcnow()
    if silent.renewed:
        await session.execute(
            update(Delivery)
            .where(
                Delivery.id.in_(silent.renewed),
                Delivery.status == "processing",
                Delivery.updated_at < before,
            )
            .values(updated_at=now)
            .execution_options(synchronize_session=False)
        )
    ids = silent.dead
    # Guarded again: a mark or a sign of life committed since the read keeps its delivery.
    closed = (
        await session.execute(
            update(Delivery)
            .where(
                Delivery.id.in_(ids),
                Delivery.status == "processing",
                Delivery.updated_at < before,
            )
            .values(status="failed", updated_at=now)
            .returning(Delivery.id, Delivery.agent_id, Delivery.message_id, Delivery.room_id)
            .execution_options(synchronize_session=False)
        )
    ).all()
    if not closed:
        return []
    await session.execute(
        update(DeliveryAttempt)
        .where(
            DeliveryAttempt.delivery_id.in_([row[0] for row in closed]),
            DeliveryAttempt.status == "processing",
        )
        .values(status="failed", error=EXPIRED_ERROR, completed_at=now)
        .execution_options(synchronize_session=False)
    )
    message_ids = sorted({str(row[2]) for row in closed})
    found = await session.scalars(select(Message).where(Message.id.in_(message_ids)))
    for view in await chat_messages(session, list(found)):
        uow.emit(
            Broadcast(
                topic=topic("chat_room", view.chat_room_id),
                event="message_updated",
                payload=view.model_dump(mode="json"),
                agents=frozenset(),
                users=True,
            )
        )
    return [Expired(str(row[1]), str(row[3]), str(row[2])) for row in closed]


def resync_agent(agent_id: str) -> Broadcast:
    """Close the agent's sockets on every node with 1012 (no push): it reconnects and drains
    ``/next``."""
    return Broadcast(
        topic=topic("agent_control", agent_id),
        event="lease_expired",
        payload={},
        agents=frozenset(),
        users=False,
        meta={"close_principal": agent_id, "close_code": RESYNC_CLOSE_CODE},
    )


class Swept(Configured, working.Indicators, Protocol):
    """What the sweeper uses of the platform: the backbone, the settings, the indicators."""


@dataclass
class LeaseSweeper:
    """One task per node: every quarter lease (1-30 s), expire what ran out. Every node
    sweeps; the guarded update lets one of them close each attempt."""

    _task: asyncio.Task[None] | None = None
    _resynced: dict[str, float] = field(default_factory=dict)  # agent -> monotonic

    @staticmethod
    def interval(lease: float) -> float:
        return min(30.0, max(1.0, lease / 4))

    def start(self, platform: Swept) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(platform), name="lease-sweeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)

    async def sweep(self, platform: Swept) -> set[str]:
        """One sweep: expire, then tell each agent (at most once a lease) to resync."""
        lease = platform.settings.delivery_lease
        before = stale_before(lease)
        async with platform.db.read() as session:  # nothing to close: no write unit at all
            silent = await stale(session, before)
        if not silent.dead:
            return set()
        async with unit.write(platform) as uow:
            closed = await expire(uow, silent, before)
        for attempt in closed:  # the turn ended: so does the indicator its claim started
            await working.turn_ended(
                platform, attempt.agent_id, attempt.room_id, attempt.message_id
            )
        agents = {attempt.agent_id for attempt in closed}
        now = time.monotonic()
        for agent_id in sorted(agents):
            if now - self._resynced.get(agent_id, -lease) >= lease:
                self._resynced[agent_id] = now
                await platform.bus.publish(resync_agent(agent_id))
        if agents:
            log.info("delivery leases: attempts of %d agents expired", len(agents))
        return agents

    async def _run(self, platform: Swept) -> None:
        every = self.interval(platform.settings.delivery_lease)
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep(platform)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database may be out of reach: the next sweep tries again
                log.warning("delivery lease sweep failed", exc_info=True)
