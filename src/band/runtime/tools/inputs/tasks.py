"""Input models of the task board tools."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import ToolInput as _ToolInput
from ._base import require_visible_content as _visible

Status = Literal["pending", "in_progress", "blocked", "in_review", "failed", "completed"]

__all__ = [
    "CreateTaskInput",
    "GetBoardInput",
    "GetTaskHistoryInput",
    "GetTaskInput",
    "ListTasksInput",
    "SetBoardInput",
    "UpdateTaskInput",
]


class ListTasksInput(_ToolInput):
    """List the tasks on this room's board, by number (active ones unless you ask)."""

    state: Literal["active", "cancelled", "superseded", "archived", "all"] | None = Field(
        default=None, description="Lifecycle filter (default: active)."
    )
    cursor: str | None = Field(default=None, description="Cursor from a previous call.")
    limit: int | None = Field(default=None, ge=1, le=100, description="Page size (max 100).")


class CreateTaskInput(_ToolInput):
    """Create a task on this room's board. You are not assigned: report your own status
    with band_update_task to join it. Check band_list_tasks first to avoid duplicates."""

    subject: str = Field(description="What needs to be done.")
    detail: str | None = Field(default=None, description="A longer description.")
    supersedes_id: str | None = Field(
        default=None, description="Id or board number of an active task this one replaces."
    )

    _subject = field_validator("subject")(_visible)


class GetTaskInput(_ToolInput):
    """Read one task by id or board number."""

    id: str = Field(description="Task id or board number (e.g. 3).")
    include: Literal["history"] | None = Field(
        default=None, description="'history' to include its recent history."
    )


class UpdateTaskInput(_ToolInput):
    """Update a task: report YOUR status on it (your first status joins you), say what you
    are doing now, comment, edit it, or cancel / archive / restore it. Send at least one."""

    id: str = Field(description="Task id or board number.")
    status: Status | None = Field(default=None, description="Your work status on the task.")
    active_form: str | None = Field(
        default=None, description="What you are doing right now, e.g. 'Writing the tests'."
    )
    comment: str | None = Field(default=None, description="A note for the others.")
    subject: str | None = Field(default=None, description="New subject.")
    detail: str | None = Field(default=None, description="New detail.")
    state: Literal["active", "cancelled", "archived"] | None = Field(
        default=None, description="Lifecycle: cancel, archive, or 'active' to restore."
    )

    @model_validator(mode="after")
    def _at_least_one(self) -> UpdateTaskInput:
        fields = (self.status, self.active_form, self.comment, self.subject, self.detail)
        if all(v is None for v in fields) and self.state is None:
            raise ValueError(
                "give at least one of status, active_form, comment, subject, detail, state"
            )
        return self


class GetTaskHistoryInput(_ToolInput):
    """Read a task's full history (every change and comment), oldest first."""

    id: str = Field(description="Task id or board number.")
    cursor: str | None = Field(default=None, description="Cursor from a previous call.")
    limit: int | None = Field(default=None, ge=1, le=100, description="Page size (max 100).")


class GetBoardInput(_ToolInput):
    """Read this room's goal (the team's mission)."""

    include: Literal["history"] | None = Field(
        default=None, description="'history' to include who set and changed it."
    )


class SetBoardInput(_ToolInput):
    """Set or change this room's goal; only the fields you send change."""

    goal_title: str | None = Field(default=None, description="The mission, in a line.")
    goal_summary: str | None = Field(default=None, description="The mission paragraph.")

    @model_validator(mode="after")
    def _at_least_one(self) -> SetBoardInput:
        if self.goal_title is None and self.goal_summary is None:
            raise ValueError("give goal_title, goal_summary or both")
        return self
