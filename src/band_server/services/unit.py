"""A write unit of work: one transaction, then (only after commit) its broadcasts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from ..fanout.bus import Broadcast
from . import idempotency

if TYPE_CHECKING:
    from ..context import Platform


@dataclass
class UnitOfWork:
    session: AsyncSession
    broadcasts: list[Broadcast] = field(default_factory=list)

    def emit(self, *broadcasts: Broadcast) -> None:
        self.broadcasts.extend(broadcasts)


@asynccontextmanager
async def write(platform: Platform) -> AsyncIterator[UnitOfWork]:
    """Persist first, fan out second: a broadcast never announces uncommitted data.

    In a request with an ``Idempotency-Key``, the first unit also writes the key's claim, so
    the claim commits (or rolls back) with the work.
    """
    pending = idempotency.pending_claim()
    async with platform.db.write() as session:
        if pending is not None:
            await _claim(session, pending)
        uow = UnitOfWork(session)
        yield uow
    if pending is not None:
        pending.claimed = True
    for b in uow.broadcasts:
        await platform.bus.publish(b)


async def _claim(session: AsyncSession, pending: idempotency.PendingClaim) -> None:
    try:
        outcome = await idempotency.claim(session, pending.fingerprint)
    except IntegrityError:
        outcome = idempotency.InFlight()  # a concurrent request wrote the same key first
    if not isinstance(outcome, idempotency.Claimed):
        raise idempotency.refusal(outcome)
