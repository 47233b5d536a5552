"""The residency vocabulary shared by rooms, providers and observers."""

from __future__ import annotations

from enum import StrEnum

from band.core.adapterconfig import BaseAdapterConfig

__all__ = [
    "BUSY_ACTIVITY_REASON",
    "UNKNOWN_ACTIVITY_REASON",
    "ProviderActivity",
    "ReleaseCause",
    "ReleaseOutcome",
    "Residency",
    "RetentionSnapshot",
    "stronger_cause",
]

UNKNOWN_ACTIVITY_REASON = "Provider has not established authoritative quiescence"
BUSY_ACTIVITY_REASON = "Provider refused idle release"


class ProviderActivity(StrEnum):
    """What the provider last said about its own work (only QUIESCENT allows idle release)."""

    ACTIVE = "active"
    QUIESCENT = "quiescent"
    UNKNOWN = "unknown"


class Residency(StrEnum):
    """Where a room's provider handle stands."""

    RESIDENT = "resident"
    SUSPENDING = "suspending"
    SUSPENDED = "suspended"
    ACQUIRING = "acquiring"
    CLEANUP_PENDING = "cleanup_pending"
    DISPOSING = "disposing"
    CLOSED = "closed"


class ReleaseCause(StrEnum):
    """Why a handle is released; a later member overrides an earlier pending one."""

    IDLE = "idle"
    RECOVERY = "recovery"
    FINAL = "final"


class ReleaseOutcome(StrEnum):
    """A release's result (raising means cleanup is incomplete); BUSY only for IDLE."""

    RELEASED = "released"
    BUSY = "busy"


_ORDER = tuple(ReleaseCause)


def stronger_cause(current: ReleaseCause | None, requested: ReleaseCause) -> ReleaseCause:
    """The cause that wins when ``requested`` arrives while ``current`` is pending."""
    return requested if current is None else max(current, requested, key=_ORDER.index)


class RetentionSnapshot(BaseAdapterConfig):
    """A room's residency as an observer sees it at one moment."""

    state: Residency
    generation: int
    leases: int
    accepted: int
    provider_activity: ProviderActivity
    reason: str
    deadline: float | None
    pending_release: ReleaseCause | None
    pending_cleanup: bool
    error: str | None
