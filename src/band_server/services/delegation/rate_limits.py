"""Rate limits on the platform, on the ``limits`` library (a moving window per caller).

Only the delegated-token exchange is limited (per agent, checked before anything else, as
``band-client-rest`` documents); why nothing else is, is in ``docs/decisions.md``. The window
lives in this node's memory: with several nodes each enforces the limit on its own.
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
        stats = await self._limiter.get_window_stats(self.item, self.name, identifier)
        return max(1, math.ceil(stats.reset_time - time.time()))
