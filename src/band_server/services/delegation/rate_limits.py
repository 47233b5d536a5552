"""Rate limits on the platform, on the ``limits`` library (a moving window per caller).

The delegated-token exchange is limited per agent (checked before anything else, as
``band-client-rest`` documents), and the web app's failed sign-ins per client address; why
nothing else is, is in ``docs/decisions.md``. The window lives in this node's memory: with
several nodes each enforces the limit on its own.
"""

from __future__ import annotations

import math
import time

import limits
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter


class RateLimit:
    """``rate`` in the ``limits`` notation (``"30/minute"``), per identifier."""

    def __init__(self, name: str, rate: str) -> None:
        self.name = name
        self.item = limits.parse(rate)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    async def retry_after(self, identifier: str) -> int | None:
        """Count one call of ``identifier``: None when allowed, else whole seconds to wait."""
        if await self._limiter.hit(self.item, self.name, identifier):
            return None
        return await self._wait(identifier)

    async def blocked(self, identifier: str) -> int | None:
        """Whole seconds to wait when ``identifier`` used up its window, else None; counts
        nothing (with :meth:`count`: a limit on failures only)."""
        if await self._limiter.test(self.item, self.name, identifier):
            return None
        return await self._wait(identifier)

    async def count(self, identifier: str) -> None:
        """Count one event of ``identifier`` (a failed sign-in)."""
        await self._limiter.hit(self.item, self.name, identifier)

    async def _wait(self, identifier: str) -> int:
        stats = await self._limiter.get_window_stats(self.item, self.name, identifier)
        return max(1, math.ceil(stats.reset_time - time.time()))
