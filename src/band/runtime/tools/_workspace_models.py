"""Earlier home of the file and task tools' input models; they live in ``tools.inputs``."""

from .inputs import (
    CreateTaskInput,
    GetBoardInput,
    GetTaskHistoryInput,
    GetTaskInput,
    ListRoomFilesInput,
    ListTasksInput,
    ReadRoomFileInput,
    SendRoomFileInput,
    SetBoardInput,
    UpdateTaskInput,
)

__all__ = [
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
