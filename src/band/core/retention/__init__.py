"""Adapter-owned room residency: a room's provider handle acquired on use, released when
idle (opt-in), recovered after a crash, disposed at the end; split into ``config``,
``states``, ``clock``, ``cleanup``, ``transitions``, ``room`` and ``owner``. Native handles stay
with adapters.
"""

from __future__ import annotations

from band.core.retention import states
from band.core.retention.cleanup import report_owned, task_failure
from band.core.retention.clock import MonotonicClock, RetentionClock
from band.core.retention.config import RoomRetentionConfig, require_disabled_retention
from band.core.retention.owner import RoomRetention
from band.core.retention.room import RetainedRoom
from band.core.retention.states import *  # noqa: F403  (its __all__, added below)

__all__ = [
    "MonotonicClock",
    "RetainedRoom",
    "RetentionClock",
    "RoomRetention",
    "RoomRetentionConfig",
    "report_owned",
    "require_disabled_retention",
    "task_failure",
]
__all__ += states.__all__
