"""Input models of the platform tools; each docstring is the tool description the model sees."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from band.core._text import has_visible_text

from ._workspace_models import WORKSPACE_TOOL_MODELS
from .names import BandTool

__all__ = [
    "TOOL_MODELS",
    "AddContactInput",
    "AddParticipantInput",
    "ArchiveMemoryInput",
    "CreateChatroomInput",
    "GetMemoryInput",
    "GetParticipantsInput",
    "ListContactRequestsInput",
    "ListContactsInput",
    "ListMemoriesInput",
    "LookupPeersInput",
    "NoReplyInput",
    "RemoveContactInput",
    "RemoveParticipantInput",
    "RespondContactRequestInput",
    "SendEventInput",
    "SendMessageInput",
    "StoreMemoryInput",
    "SupersedeMemoryInput",
]


class _ToolInput(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


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

    @field_validator("content")
    @classmethod
    def _visible(cls, value: str) -> str:
        if not has_visible_text(value):
            raise ValueError("can't be blank")
        return value


class SendEventInput(_ToolInput):
    """Post a thought, error or task event to the room timeline (no mentions, no reply).

    Share a short thought before a long or complex action so people can follow along.
    """

    content: str = Field(description="The event text.")
    message_type: Literal["thought", "error", "task"] = Field(description="Kind of event.")
    metadata: dict[str, Any] | None = Field(default=None, description="Optional structured data.")

    @field_validator("content")
    @classmethod
    def _visible(cls, value: str) -> str:
        if not has_visible_text(value):
            raise ValueError("can't be blank")
        return value


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


class LookupPeersInput(_ToolInput):
    """List agents and people you can add to this room (current members are left out)."""

    page: int = Field(default=1, ge=1, description="Page number, from 1.")
    page_size: int = Field(default=50, ge=1, le=100, description="Entries per page.")


class GetParticipantsInput(_ToolInput):
    """List the participants of this room with their handles, names and types."""


class CreateChatroomInput(_ToolInput):
    """Create a new room; you are its owner and can then add participants."""

    task_id: str | None = Field(default=None, description="Optional task to link the room to.")


class ListContactsInput(_ToolInput):
    """List your contacts."""

    page: int = Field(default=1, ge=1, description="Page number, from 1.")
    page_size: int = Field(default=50, ge=1, le=100, description="Entries per page.")


class AddContactInput(_ToolInput):
    """Send a contact request to an agent or person by handle.

    The request is pending until they accept it, unless the platform approves it at once.
    """

    handle: str = Field(description="Their handle, e.g. @alice or @alice/helper.")
    message: str | None = Field(default=None, description="Optional note with the request.")


class RemoveContactInput(_ToolInput):
    """Remove a contact, named by handle or by contact id."""

    handle: str | None = Field(default=None, description="The contact's handle.")
    contact_id: str | None = Field(default=None, description="The contact's id.")


class ListContactRequestsInput(_ToolInput):
    """List contact requests you received (pending) and the ones you sent."""

    page: int = Field(default=1, ge=1, description="Page number, from 1.")
    page_size: int = Field(default=50, ge=1, le=100, description="Entries per page.")
    sent_status: Literal["pending", "approved", "rejected", "cancelled", "all"] = Field(
        default="pending", description="Which sent requests to include."
    )


class RespondContactRequestInput(_ToolInput):
    """Approve or reject a request you received, or cancel one you sent."""

    action: Literal["approve", "reject", "cancel"] = Field(description="What to do.")
    handle: str | None = Field(default=None, description="The other side's handle.")
    request_id: str | None = Field(default=None, description="The request id.")


class ListMemoriesInput(_ToolInput):
    """List the memories you can read, optionally filtered."""

    subject_id: str | None = Field(default=None, description="Only memories about this subject.")
    scope: Literal["agent", "subject", "organization", "all"] | None = Field(
        default=None, description="Scope filter."
    )
    system: Literal["sensory", "working", "long_term"] | None = Field(
        default=None, description="Memory system filter."
    )
    type: str | None = Field(default=None, description="Memory type filter.")
    segment: Literal["user", "agent", "tool", "guideline"] | None = Field(
        default=None, description="Segment filter."
    )
    content_query: str | None = Field(default=None, description="Text to search for.")
    page_size: int = Field(default=50, ge=1, le=50, description="Entries per page.")
    status: str | None = Field(default=None, description="Status filter (e.g. active).")


class StoreMemoryInput(_ToolInput):
    """Store a memory for later turns.

    Subject-scoped memories need the subject's real id (from band_get_participants or
    band_lookup_peers).
    """

    content: str = Field(description="What to remember.")
    system: Literal["sensory", "working", "long_term"] = Field(description="Memory system.")
    type: Literal["iconic", "echoic", "haptic", "episodic", "semantic", "procedural"] = Field(
        description="Memory type (sensory: iconic/echoic/haptic; otherwise episodic, "
        "semantic or procedural)."
    )
    segment: Literal["user", "agent", "tool", "guideline"] = Field(description="Segment.")
    thought: str = Field(description="Why this is worth remembering.")
    scope: Literal["agent", "subject", "organization"] = Field(description="Who it is about.")
    subject_id: str | None = Field(default=None, description="Subject id for subject scope.")
    metadata: dict[str, Any] | None = Field(default=None, description="Optional data.")


class GetMemoryInput(_ToolInput):
    """Read one memory by id."""

    memory_id: str = Field(description="The memory id.")


class SupersedeMemoryInput(_ToolInput):
    """Mark a memory as outdated (soft delete) when newer knowledge replaces it."""

    memory_id: str = Field(description="The memory id.")


class ArchiveMemoryInput(_ToolInput):
    """Archive a memory: hidden from listings but kept."""

    memory_id: str = Field(description="The memory id.")


TOOL_MODELS: dict[str, type[BaseModel]] = {
    BandTool.SEND_MESSAGE: SendMessageInput,
    BandTool.SEND_EVENT: SendEventInput,
    BandTool.NO_REPLY: NoReplyInput,
    BandTool.ADD_PARTICIPANT: AddParticipantInput,
    BandTool.REMOVE_PARTICIPANT: RemoveParticipantInput,
    BandTool.LOOKUP_PEERS: LookupPeersInput,
    BandTool.GET_PARTICIPANTS: GetParticipantsInput,
    BandTool.CREATE_CHATROOM: CreateChatroomInput,
    BandTool.LIST_CONTACTS: ListContactsInput,
    BandTool.ADD_CONTACT: AddContactInput,
    BandTool.REMOVE_CONTACT: RemoveContactInput,
    BandTool.LIST_CONTACT_REQUESTS: ListContactRequestsInput,
    BandTool.RESPOND_CONTACT_REQUEST: RespondContactRequestInput,
    BandTool.LIST_MEMORIES: ListMemoriesInput,
    BandTool.STORE_MEMORY: StoreMemoryInput,
    BandTool.GET_MEMORY: GetMemoryInput,
    BandTool.SUPERSEDE_MEMORY: SupersedeMemoryInput,
    BandTool.ARCHIVE_MEMORY: ArchiveMemoryInput,
    **WORKSPACE_TOOL_MODELS,
}
"""Every tool's input model by name, in registry order."""
