"""Input models of the file and task tools; each docstring is the description the model sees."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from band.core._text import has_visible_text

from .names import BandTool

__all__ = [
    "WORKSPACE_TOOL_MODELS",
    "CreateTaskInput",
    "GetBoardInput",
    "GetTaskHistoryInput",
    "GetTaskInput",
    "ListRoomFilesInput",
    "ListTasksInput",
    "ReadRoomFileInput",
    "SendRoomFileInput",
    "SetBoardInput",
    "UpdateTaskInput",
]

Status = Literal["pending", "in_progress", "blocked", "in_review", "failed", "completed"]


class _ToolInput(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


def _visible(value: str) -> str:
    if not has_visible_text(value):
        raise ValueError("can't be blank")
    return value


class ListRoomFilesInput(_ToolInput):
    """List the files shared in this room.

    Returns the attachments of the messages you sent or were mentioned in. Read one with
    band_read_room_file and its id.
    """

    cursor: str | None = Field(default=None, description="Cursor from a previous call.")


class ReadRoomFileInput(_ToolInput):
    """Read a file shared in this room.

    A small text file comes back as text, a small image as an image; anything else (too
    large, or not text or an image) as a description of the file.
    """

    file_id: str = Field(
        description="The file's id, from a message's attachments or band_list_room_files."
    )


class SendRoomFileInput(_ToolInput):
    """Share text you wrote as a file in this room (a report, code, data) instead of
    pasting it into a message. The file is posted with a message, so mention at least one
    participant."""

    content: str = Field(description="The text to put in the file.")
    filename: str = Field(
        description="File name with extension, plain printable ASCII (e.g. report.txt)."
    )
    caption: str = Field(default="", description="Optional text of the message with it.")
    mentions: list[str] = Field(
        description="Handles (or ids) of the participants to address; at least one."
    )


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


WORKSPACE_TOOL_MODELS: dict[str, type[BaseModel]] = {
    BandTool.LIST_ROOM_FILES: ListRoomFilesInput,
    BandTool.READ_ROOM_FILE: ReadRoomFileInput,
    BandTool.SEND_ROOM_FILE: SendRoomFileInput,
    BandTool.LIST_TASKS: ListTasksInput,
    BandTool.CREATE_TASK: CreateTaskInput,
    BandTool.GET_TASK: GetTaskInput,
    BandTool.UPDATE_TASK: UpdateTaskInput,
    BandTool.GET_TASK_HISTORY: GetTaskHistoryInput,
    BandTool.GET_BOARD: GetBoardInput,
    BandTool.SET_BOARD: SetBoardInput,
}
