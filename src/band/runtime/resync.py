"""``ResyncSchedule``: when a room next checks ``/next`` on its own.

The first check lands at a random point within ``base`` (so many rooms do not check at once);
a check that found nothing doubles the interval up to ``maximum``; one that found work, or
any activity, brings it back to ``base``. While the room is stopped the interval stays at
``stopped``: those probes are how a missed play is found.
"""

from __future__ import annotations

import random

__all__ = ["ResyncSchedule"]


class ResyncSchedule:
    """The next reconciliation of one room (times on the event loop's clock)."""

    def __init__(self, base: float, maximum: float, *, stopped: float | None = None) -> None:
        self.base = base
        self.maximum = max(base, maximum)
        self.stopped = base if stopped is None else stopped
        self.interval = base
        self.due_at: float | None = None

    def start(self, now: float) -> None:
        self.interval = self.base
        self.due_at = now + random.uniform(0, self.base)  # nosec B311 # spreads resyncs over time, not a secret

    def reset(self, now: float, *, stopped: bool) -> None:
        """Activity: the next check no later than one base (or stopped) interval away."""
        self.interval = self.stopped if stopped else self.base
        if self.due_at is not None:
            self.due_at = min(self.due_at, now + self.interval)

    def complete(self, now: float, *, empty: bool, stopped: bool) -> None:
        """A check ended: grow the interval when it found nothing, then schedule the next."""
        if stopped:
            self.interval = self.stopped
        elif empty:
            self.interval = min(self.interval * 2, self.maximum)
        else:
            self.interval = self.base
        if self.due_at is not None and self.due_at <= now:
            self.due_at = now + self.interval

    def delay(self, now: float) -> float:
        """Seconds until the next check (0 when due)."""
        return 0.0 if self.due_at is None else max(0.0, self.due_at - now)
