"""Input models of the room file tools."""

from __future__ import annotations

from pydantic import Field

from ._base import ToolInput as _ToolInput

__all__ = [
    "ListRoomFilesInput",
    "ReadRoomFileInput",
    "SendRoomFileInput",
]


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
