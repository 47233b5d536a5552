"""Adapter-owned room residency: a room's provider handle acquired on use, released when
idle (opt-in), recovered after a crash, disposed at the end; split into ``config``,
``states``, ``clock``, ``cleanup``, ``transitions``, ``room`` and ``owner``. Native handles stay
with adapters.
"""

from __future__ import annotations

from band.core.retention.cleanup import report_owned, task_failure
from band.core.retention.clock import MonotonicClock, RetentionClock
from band.core.retention.config import RoomRetentionConfig, require_disabled_retention
from band.core.retention.owner import RoomRetention
from band.core.retention.room import RetainedRoom
from band.core.retention.states import (
    BUSY_ACTIVITY_REASON,
    UNKNOWN_ACTIVITY_REASON,
    ProviderActivity,
    ReleaseCause,
    ReleaseOutcome,
    Residency,
    RetentionSnapshot,
)

__all__ = [
    "BUSY_ACTIVITY_REASON",
    "UNKNOWN_ACTIVITY_REASON",
    "MonotonicClock",
    "ProviderActivity",
    "ReleaseCause",
    "ReleaseOutcome",
    "Residency",
    "RetainedRoom",
    "RetentionClock",
    "RetentionSnapshot",
    "RoomRetention",
    "RoomRetentionConfig",
    "report_owned",
    "require_disabled_retention",
    "task_failure",
]
