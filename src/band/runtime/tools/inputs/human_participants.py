"""Input models of the person-side participant tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import RoomInput
from .identifiers import ResourceId

__all__ = [
    "AddMyChatParticipantInput",
    "ListMyChatParticipantsInput",
    "RemoveMyChatParticipantInput",
]


class ListMyChatParticipantsInput(RoomInput):
    """List who is in a room."""

    participant_type: str | None = Field(None, description="Only 'User' or 'Agent' (optional).")


class AddMyChatParticipantInput(RoomInput):
    """Add a person or agent to a room."""

    participant_id: str = Field(..., description="The person's or agent's id (required).")
    role: str | None = Field(None, description="owner, admin or member (default member).")


class RemoveMyChatParticipantInput(RoomInput):
    """Remove a participant from a room."""

    participant_id: ResourceId = Field(..., description="The participant's id (required).")
