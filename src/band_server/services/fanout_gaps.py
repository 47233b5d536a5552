"""The database's record of fan-out gaps not announced yet (``store.models.FanoutGap``).

A node whose publishes are lost writes its row when it finds the first loss and deletes it
once it has announced the gap (``fanout.redis_bus``); a node that finds another dead reads
that node's row (``realtime.redis_presence``): a row means the dead node's gap runs until it
was found dead, not only until its last renewal. Each call is one short unit of work, rare
(once per outage or death), never on a request's path.
"""

from __future__ import annotations

from sqlalchemy import delete, insert, select

from ..store.db import Database
from ..store.models import FanoutGap


class GapRows:
    """``fanout.bus.GapLedger`` on the platform's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(self, node: str, since: float) -> None:
        """``node``'s publishes since ``since`` reached no other node (yet)."""
        async with self.db.write() as session:
            await session.execute(delete(FanoutGap).where(FanoutGap.node_id == node))
            await session.execute(insert(FanoutGap).values(node_id=node, since=since))

    async def clear(self, node: str) -> None:
        """``node`` announced its gap (or it was announced in its stead)."""
        async with self.db.write() as session:
            await session.execute(delete(FanoutGap).where(FanoutGap.node_id == node))

    async def since_of(self, node: str) -> float | None:
        """When ``node``'s unannounced gap began; None when it has none."""
        async with self.db.read() as session:
            since = await session.scalar(select(FanoutGap.since).where(FanoutGap.node_id == node))
        return None if since is None else float(since)

    async def sweep(self, before: float) -> None:
        """Delete the rows of gaps that began before ``before`` (nodes long dead, never found
        dead: the last node of a cluster)."""
        async with self.db.write() as session:
            await session.execute(delete(FanoutGap).where(FanoutGap.since < before))
