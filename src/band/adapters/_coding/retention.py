"""``RoomRetention``: how long a room's agent process may take to start, and idle suspension.

Suspending an idle room (stopping its process and restoring it on the next message) is not
offered by the coding adapters, so ``idle_timeout_s`` must stay unset; a config that sets it
is refused with the adapter's reason. ``transition_timeout_s`` bounds each process start.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from band.core.retention.config import RoomRetentionConfig, require_disabled_retention

__all__ = ["RoomRetention"]


class RoomRetention(RoomRetentionConfig):
    """Residency of a room's process: no idle suspension; starts bounded in time."""

    transition_timeout_s: float = Field(default=60.0, gt=0, allow_inf_nan=False)

    @classmethod
    def disabled(cls, value: Any, reason: str) -> RoomRetention:
        """``value`` (None, a mapping or a retention config) without idle suspension;
        ValueError naming ``reason`` when it asks for one."""
        if isinstance(value, RoomRetentionConfig) and not isinstance(value, cls):
            value = value.model_dump()
        retention = cls() if value is None else cls.model_validate(value)
        require_disabled_retention(retention, reason=reason)
        return retention
