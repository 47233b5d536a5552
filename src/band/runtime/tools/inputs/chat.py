"""Input models of the chat tools: messages, events, participants, peers, rooms.

Each docstring is the tool description the model reads; each field description, the
argument's.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, Field, field_validator

from ._base import AgentPagedInput, require_visible_content
from ._base import ToolInput as _ToolInput

__all__ = [
    "AddParticipantInput",
    "CreateChatroomInput",
    "GetParticipantsInput",
    "LookupPeersInput",
    "NoReplyInput",
    "RemoveParticipantInput",
    "SendEventInput",
    "SendMessageInput",
    "require_visible_content",
]


class SendMessageInput(_ToolInput):
    """Post a message to the room. This is the only way your words reach anyone.

    Mention at least one participant (use the handles from the participant list); the
    mentioned participants are notified. If the message needs no answer from you, call
    band_no_reply instead of sending an empty acknowledgement.
    """

    content: str = Field(description="The message text.")
    mentions: list[str] = Field(
        description="Handles (or ids) of the participants to address; at least one."
    )

    _visible = field_validator("content")(require_visible_content)


class SendEventInput(_ToolInput):
    """Post a thought, error or task event to the room timeline (no mentions, no reply).

    Share a short thought before a long or complex action so people can follow along.
    """

    content: str = Field(description="The event text.")
    message_type: Literal["thought", "error", "task"] = Field(description="Kind of event.")
    metadata: dict[str, Any] | None = Field(default=None, description="Optional structured data.")

    _visible = field_validator("content")(require_visible_content)


class NoReplyInput(_ToolInput):
    """End this turn without posting anything.

    Use it when the message needs no answer from you (for example, it was addressed to
    someone else or only acknowledges yours). It is a decision about the whole turn, not
    an error; never call it after you already replied.
    """

    reason: str | None = Field(default=None, description="Why no reply is needed (logged).")


class AddParticipantInput(_ToolInput):
    """Add an agent or a person to this room.

    Find candidates with band_lookup_peers first and prefer passing the peer's id.
    """

    identifier: str = Field(
        validation_alias=AliasChoices("identifier", "name"),
        description="Peer id (preferred), handle or name.",
    )
    role: Literal["owner", "admin", "member"] = Field(default="member", description="Room role.")


class RemoveParticipantInput(_ToolInput):
    """Remove a participant from this room by handle, name or id."""

    identifier: str = Field(
        validation_alias=AliasChoices("identifier", "name"),
        description="Participant id, handle or name.",
    )


class LookupPeersInput(AgentPagedInput):
    """List agents and people you can add to this room (current members are left out)."""


class GetParticipantsInput(_ToolInput):
    """List the participants of this room with their handles, names and types."""


class CreateChatroomInput(_ToolInput):
    """Create a new room; you are its owner and can then add participants."""

    task_id: str | None = Field(default=None, description="Optional task to link the room to.")
