"""The room view's tools: their names and the inputs each one accepts.

Field descriptions sit beside their fields so each schema reads as one contract; every other
word the model reads is in ``prompts``.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from band.integrations.desktop_app.settings import MAX_ROOM_EVENT_TIMEOUT_S

__all__ = [
    "ATTENTION_CHOICE",
    "DEFAULT_ATTENTION",
    "AttentionMode",
    "CreateAndOpenRoomInput",
    "JoinRoomInput",
    "MonitorCaller",
    "RoomTool",
    "ShowRoomInput",
    "WaitForRoomEventInput",
]


class RoomTool(StrEnum):
    """The tools the room view server exposes."""

    JOIN = "band_join_room"
    CREATE = "band_create_and_open_room"
    SHOW = "band_show_room"
    MONITOR = "band_wait_for_room_event"


class AttentionMode(StrEnum):
    """Who is served first: the user (the room is swept at each turn's start) or the room
    (the agent keeps its turn open on the monitor, answering the user between waits)."""

    USER_FIRST = "user_first"
    ROOM_FIRST = "room_first"


# Every place that shows a mode before one is chosen opens on this one.
DEFAULT_ATTENTION = AttentionMode.USER_FIRST

ATTENTION_CHOICE = (
    "user_first (the default): the user leads; look at the room once when each turn starts "
    "and end turns as usual. room_first: keep the turn open and keep waiting on the room so "
    "it is answered within seconds; choose it only when the user asks you to watch or "
    "monitor the room. When the user later says to stop watching, that is user_first again."
)


class MonitorCaller(StrEnum):
    """Whose loop calls the monitor: the agent's (``model``) or the room view's (``app``)."""

    MODEL = "model"
    APP = "app"


class CreateAndOpenRoomInput(BaseModel):
    """Create a Band room and open its live view."""

    task_id: str | None = Field(
        default=None, description="A Band task ID to attach to the new room (optional)."
    )
    attention: AttentionMode = Field(DEFAULT_ATTENTION, description=ATTENTION_CHOICE)


class JoinRoomInput(BaseModel):
    """Join a Band room as the connected agent."""

    chat_id: str = Field(
        description=(
            "The room's ID, or its name as the user said it. A name that matches no room "
            "fails with the list of the agent's rooms to offer instead."
        )
    )
    attention: AttentionMode = Field(DEFAULT_ATTENTION, description=ATTENTION_CHOICE)


class ShowRoomInput(BaseModel):
    """Show the joined room's live view again, here in the conversation."""

    chat_id: str = Field(description="The ID of the Band room joined in this conversation.")


class WaitForRoomEventInput(BaseModel):
    """Wait until the room changes (or the wait ends), then read what is new."""

    chat_id: str = Field(description="The Band room's ID.")
    since: str | None = Field(
        None,
        description=(
            "The previous result's `next_since`; leave it out only on the first call. "
            "Passing it back resumes exactly after what you have already seen."
        ),
    )
    timeout_seconds: int | None = Field(
        None,
        ge=1,
        le=MAX_ROOM_EVENT_TIMEOUT_S,
        description=(
            "The longest wait, in seconds. Leave it out to use this install's default, "
            "which is also how long the user waits to be heard when they type meanwhile."
        ),
    )
    caller: MonitorCaller = Field(
        MonitorCaller.MODEL, description="Leave unset: the room view sets it for its own loop."
    )
    attention: AttentionMode | None = Field(
        None,
        description=f"Only when the user asks to change it. {ATTENTION_CHOICE}",
    )
    instance: str | None = Field(
        None, description="Leave unset: the room view names its own instance here."
    )
