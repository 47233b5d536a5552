"""Room tasks and the board: wire models and the rules both the platform and the fakes apply.

A task has a lifecycle ``state`` and, per participant working on it, a work ``status``; the
task's ``overall_status`` rolls those up. ``STATUS_MOVES`` and ``STATE_MOVES`` say which
changes are allowed (anything else is refused); see ``docs/files-and-tasks.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel

__all__ = [
    "MAX_DETAIL_CHARS",
    "MAX_SUBJECT_CHARS",
    "STATE_MOVES",
    "STATUS_MOVES",
    "TASK_STATES",
    "TASK_STATUSES",
    "Board",
    "BoardEvent",
    "BoardUpdateBody",
    "Task",
    "TaskActor",
    "TaskAssignment",
    "TaskCreateBody",
    "TaskEvent",
    "TaskUpdateBody",
    "overall_status",
    "state_event",
]

TaskStatus = Literal["pending", "in_progress", "blocked", "in_review", "failed", "completed"]
TaskState = Literal["active", "cancelled", "superseded", "archived"]
TASK_STATUSES: tuple[str, ...] = (
    "pending",
    "in_progress",
    "blocked",
    "in_review",
    "failed",
    "completed",
)
TASK_STATES: tuple[str, ...] = ("active", "cancelled", "superseded", "archived")
MAX_SUBJECT_CHARS = 500
MAX_DETAIL_CHARS = 20_000
MAX_LINE_CHARS = 500

# from -> allowed to. "pending" is also where a participant who has not joined starts.
STATUS_MOVES: dict[str, frozenset[str]] = {
    "pending": frozenset({"in_progress", "blocked", "completed", "failed"}),
    "in_progress": frozenset({"pending", "blocked", "in_review", "completed", "failed"}),
    "blocked": frozenset({"pending", "in_progress", "failed"}),
    "in_review": frozenset({"in_progress", "blocked", "completed", "failed"}),
    "failed": frozenset({"pending", "in_progress"}),
    "completed": frozenset({"in_progress"}),
}
# Lifecycle changes a caller may ask for (superseded happens only through ``supersedes_id``).
STATE_MOVES: dict[str, frozenset[str]] = {
    "active": frozenset({"cancelled", "archived"}),
    "archived": frozenset({"active"}),
    "cancelled": frozenset(),
    "superseded": frozenset(),
}
_ROLLUP_ORDER = ("in_progress", "blocked", "in_review", "failed")


def overall_status(statuses: Iterable[str]) -> str:
    """The task's roll-up of its assignments' statuses."""
    present = set(statuses)
    if not present or present == {"pending"}:
        return "pending"
    if present == {"completed"}:
        return "completed"
    for status in _ROLLUP_ORDER:
        if status in present:
            return status
    return "in_progress"  # pending and completed mixed: work is under way


def state_event(new: str) -> str:
    """The history event of a lifecycle change."""
    if new == "active":
        return "unarchived"
    return new  # cancelled, archived, superseded


class TaskActor(WireModel):
    """Who did something, as they were named at the time."""

    id: str
    name: str
    handle: str | None = None
    type: Literal["User", "Agent"]


class TaskAssignment(WireModel):
    assignee: TaskActor
    status: TaskStatus
    active_form: str = ""
    linked_native_id: str = ""
    updated_at: str


class TaskEvent(WireModel):
    """One row of a task's append-only history."""

    event: str
    actor: TaskActor
    at: str
    payload: dict[str, Any] = {}


class Task(WireModel):
    id: str
    number: int
    chat_room_id: str
    subject: str
    detail: str
    state: TaskState
    overall_status: TaskStatus
    assignments: list[TaskAssignment] = []
    created_by: TaskActor
    superseded_by_id: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    inserted_at: str
    updated_at: str
    history: list[TaskEvent] | None = None
    history_truncated: bool | None = None


class BoardEvent(WireModel):
    event: Literal["goal_set", "goal_edited"]
    actor: TaskActor
    at: str
    payload: dict[str, Any] = {}


class Board(WireModel):
    """A room's goal; an empty default (``goal_title`` null) before anyone sets one."""

    chat_room_id: str
    goal_title: str | None = None
    goal_summary: str | None = None
    created_by: TaskActor | None = None
    updated_by: TaskActor | None = None
    inserted_at: str | None = None
    updated_at: str | None = None
    history: list[BoardEvent] | None = None
    history_truncated: bool | None = None


class TaskCreateBody(RequestModel):
    subject: str = Field(max_length=MAX_SUBJECT_CHARS)
    detail: str | None = Field(default=None, max_length=MAX_DETAIL_CHARS)
    supersedes_id: str | None = Field(default=None, max_length=64)


class TaskUpdateBody(RequestModel):
    """At least one field; work fields apply before ``state``."""

    status: TaskStatus | None = None
    active_form: str | None = Field(default=None, max_length=MAX_LINE_CHARS)
    linked_native_id: str | None = Field(default=None, max_length=MAX_LINE_CHARS)
    comment: str | None = Field(default=None, max_length=MAX_DETAIL_CHARS)
    subject: str | None = Field(default=None, max_length=MAX_SUBJECT_CHARS)
    detail: str | None = Field(default=None, max_length=MAX_DETAIL_CHARS)
    state: Literal["cancelled", "archived", "active"] | None = None


class BoardUpdateBody(RequestModel):
    goal_title: str | None = Field(default=None, max_length=MAX_SUBJECT_CHARS)
    goal_summary: str | None = Field(default=None, max_length=MAX_DETAIL_CHARS)
