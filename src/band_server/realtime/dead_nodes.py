"""The fan-out gap a node found dead leaves (``ClusterPresence._node_died``), read with the
gap ledger's help (``fanout.bus.GapLedger``).

A node that died renewing its lease left a gap from its last renewal until it would have
renewed next. One cut off from Redis may have kept committing (and publishing nothing) for a
while before it died: its row in the ledger, written when it found its first lost publish,
says so, and its gap then runs until it was found dead (it is dead now: nothing it committed
comes later). Each node that finds it dead reads the row and hands its own hub the note; the
row is deleted a little later, once the others have read it too.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any

from band_server.fanout.bus import GapLedger

log = logging.getLogger("band_server.fanout")

STALE_GAP = 86400.0  # a ledger row older than this (seconds) is swept at start


class DeadNodes:
    """The gaps of the nodes this node finds dead, and the ledger chores they bring."""

    def __init__(
        self,
        *,
        ttl: float,
        interval: float,
        gaps: GapLedger | None,
        grace: float | None = None,
    ) -> None:
        self.ttl = ttl
        self.interval = interval
        self.gaps = gaps
        # A row is deleted this long after it was read: every node reads the live nodes once
        # an interval, so the others have found the node dead (and read the row) by then.
        self.grace = ttl if grace is None else grace
        self._chores: set[asyncio.Task[None]] = set()

    async def gap_of(self, node: str, last_seen: float) -> tuple[float, float]:
        """(since, until) of the gap ``node`` left, last renewed at ``last_seen``: until it
        would have renewed next (half an interval late at most), or, when it left a ledger
        row (or the ledger does not answer: the safe side), until now."""
        since, until = last_seen, last_seen + self.interval * 1.5
        if self.gaps is None:
            return since, until
        try:
            async with asyncio.timeout(self.ttl):
                unannounced = await self.gaps.since_of(node)
        except Exception as exc:
            log.warning("cluster presence: the gap ledger did not answer (%r)", exc)
            return since, time.time()
        if unannounced is None:
            return since, until
        self.run(self._clear_later(self.gaps, node))
        return min(unannounced, last_seen), time.time()

    def sweep_old(self) -> None:
        """At start: delete the rows of nodes that died long ago and were never found dead
        (the last node of a cluster)."""
        if self.gaps is not None:
            self.run(self._sweep(self.gaps))

    def run(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task of its own (a ledger read must not hold the presence
        cycle), stopped by :meth:`stop`."""
        task = asyncio.create_task(work, name="band-presence-gap")
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def stop(self) -> None:
        chores, self._chores = self._chores, set()
        for chore in chores:
            chore.cancel()
        if chores:
            await asyncio.wait(chores, timeout=2.0)

    async def _clear_later(self, gaps: GapLedger, node: str) -> None:
        await asyncio.sleep(self.grace)
        try:
            await gaps.clear(node)
        except Exception as exc:  # left to a later start's sweep
            log.warning("cluster presence: node %s's gap row was not deleted (%r)", node, exc)

    async def _sweep(self, gaps: GapLedger) -> None:
        try:
            await gaps.sweep(time.time() - STALE_GAP)
        except Exception as exc:
            log.warning("cluster presence: old gap rows were not swept (%r)", exc)
