"""The retention settings an adapter config carries."""

from __future__ import annotations

from pydantic import Field

from band.core.adapterconfig import BaseAdapterConfig

__all__ = ["RoomRetentionConfig", "require_disabled_retention"]


class RoomRetentionConfig(BaseAdapterConfig):
    """Idle suspension is opt-in (``idle_timeout_s``) and needs a provider that supports it.

    ``transition_timeout_s`` bounds how long a caller waits for one acquisition or cleanup;
    an unfinished one stays owned (an abandoned acquisition is cancelled for recovery).
    """

    idle_timeout_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    transition_timeout_s: float = Field(default=10.0, gt=0, allow_inf_nan=False)


def require_disabled_retention(
    retention: RoomRetentionConfig, *, reason: str
) -> RoomRetentionConfig:
    """``retention`` unchanged, or ValueError (with ``reason``) when it asks for idle release."""
    if retention.idle_timeout_s is not None:
        raise ValueError(f"{reason} Leave retention.idle_timeout_s unset.")
    return retention
