"""``WorkingStateReporter``: the "agent is working" indicator of one reasoning cycle.

``start`` sends ``working: true`` and refreshes it every ``keep_alive_seconds`` (the
platform clears it by itself after a short TTL, so a crash never leaves it on); past
``max_working_state_seconds`` the refreshes stop and the TTL clears it while the cycle goes
on. ``stop`` sends the authoritative ``working: false``, even when the caller is being
cancelled. Reports never overlap and never raise into the cycle; ``report`` must be bounded.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

__all__ = ["WorkingStateReporter"]

logger = logging.getLogger(__name__)
ReportFn = Callable[[bool], Awaitable[object]]


class WorkingStateReporter:
    """The working signal of one execution (an agent in a room)."""

    def __init__(
        self,
        report: ReportFn,
        *,
        keep_alive_seconds: float = 3.0,
        max_working_state_seconds: float | None = None,
        enabled: bool = True,
    ) -> None:
        if keep_alive_seconds <= 0:
            raise ValueError(f"keep_alive_seconds must be > 0 (got {keep_alive_seconds})")
        self._report = report
        self._every = keep_alive_seconds
        self._cap = max_working_state_seconds
        self._enabled = enabled
        self._active = False
        self._started_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._false_send: asyncio.Future[None] | None = None
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return self._active

    async def start(self) -> None:
        """A cycle begins: ``working: true`` and the keep-alive (again while active: no-op)."""
        if not self._enabled or self._active:
            return
        self._active = True
        self._started_at = asyncio.get_running_loop().time()
        await self._safe(True)
        self._task = asyncio.create_task(self._keep_alive(), name="working-state-keepalive")

    def defer_false_report(self) -> None:
        """Start the ``working: false`` send without waiting; ``stop`` finishes it."""
        if self._enabled and self._active:
            self._end()

    async def stop(self) -> None:
        """The cycle ended: stop refreshing and send ``working: false``."""
        if not self._enabled:
            return
        if self._active:
            task = self._end()
            if task is not None:
                await asyncio.gather(task, return_exceptions=True)
        send = self._false_send
        if send is None:
            return
        try:
            await asyncio.shield(send)
        except asyncio.CancelledError:
            await send  # the clear still lands, then the cancellation goes on
            raise
        finally:
            if send.done():
                self._false_send = None

    def _end(self) -> asyncio.Task[None] | None:
        self._active = False
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self._false_send = asyncio.ensure_future(self._safe(False))
        return task

    async def _keep_alive(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._every)
            if not self._active:
                return
            if self._cap is not None and loop.time() - self._started_at >= self._cap:
                logger.info("working-state cap (%ss) reached; refreshes paused", self._cap)
                return
            await self._safe(True)

    async def _safe(self, working: bool) -> None:
        async with self._lock:
            try:
                await self._report(working)
            except Exception as exc:
                logger.debug("working-state report (%s) failed: %s", working, exc)
