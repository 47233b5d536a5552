"""A write unit of work: one transaction, then (only after commit) its broadcasts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from ..fanout.bus import Broadcast

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
    """Persist first, fan out second: a broadcast never announces uncommitted data."""
    async with platform.db.write() as session:
        uow = UnitOfWork(session)
        yield uow
    for b in uow.broadcasts:
        await platform.bus.publish(b)
