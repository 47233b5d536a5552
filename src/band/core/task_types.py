"""The task board's vocabulary: listing filters, lifecycle states, assignment statuses."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args

__all__ = [
    "TaskAssignmentStatus",
    "TaskIncludeOption",
    "TaskLifecycleState",
    "TaskListState",
    "task_ref",
    "validate_include",
]


class TaskListState(StrEnum):
    """Which tasks ``band_list_tasks`` returns."""

    ACTIVE = "active"
    CANCELLED = "cancelled"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    ALL = "all"


class TaskLifecycleState(StrEnum):
    """A task's own state; setting ``active`` again restores a cancelled or archived task."""

    ACTIVE = "active"
    CANCELLED = "cancelled"
    ARCHIVED = "archived"


class TaskAssignmentStatus(StrEnum):
    """One assignee's progress on a task."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    BLOCKED = "blocked"
    IN_REVIEW = "in_review"
    FAILED = "failed"
    COMPLETED = "completed"


TaskIncludeOption = Literal["history"]


def validate_include(include: str | None) -> None:
    """Raise ``ValueError`` unless ``include`` is omitted or ``"history"``."""
    if include is not None and include not in get_args(TaskIncludeOption):
        raise ValueError(f"include must be {get_args(TaskIncludeOption)[0]!r} or omitted")


def task_ref(id: str) -> str:
    """A task UUID or board number as the platform takes it: ``#3`` becomes ``3``."""
    return id.removeprefix("#")
