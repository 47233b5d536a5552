"""Failed password sign-ins, limited per client address and per email (a moving window on
the ``limits`` library, in this node's memory): past the limit the form answers 429 with
``Retry-After`` before the password is even checked."""

from __future__ import annotations

import math
import time

import limits
from fastapi import Request
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

FAILURES = "10/15 minutes"


class FailureLimit:
    """Failures per identifier (``blocked`` counts nothing; ``count`` counts one)."""

    def __init__(self, rate: str = FAILURES) -> None:
        self.item = limits.parse(rate)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    async def blocked(self, *identifiers: str) -> int | None:
        """Whole seconds to wait when any identifier used up its window, else None."""
        for identifier in identifiers:
            if not await self._limiter.test(self.item, "password", identifier):
                stats = await self._limiter.get_window_stats(self.item, "password", identifier)
                return max(1, math.ceil(stats.reset_time - time.time()))
        return None

    async def count(self, *identifiers: str) -> None:
        for identifier in identifiers:
            await self._limiter.hit(self.item, "password", identifier)


def guard_of(request: Request) -> FailureLimit:
    """The app's limit (one per app, made on first use)."""
    state = request.app.state
    guard: FailureLimit | None = getattr(state, "password_failures", None)
    if guard is None:
        guard = state.password_failures = FailureLimit()
    return guard


def identifiers(request: Request, email: str) -> tuple[str, str]:
    client = request.client.host if request.client else "unknown"
    return f"address:{client}", f"email:{email.strip().lower()[:200]}"
