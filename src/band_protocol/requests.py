"""Request models of the REST client (``band.client.rest``), named as band-client-rest names them.

They are the client-side spelling of the bodies the platform validates with the ``*Body``
models: frozen, unknown keys kept, and serialised without unset fields.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "AgentMemoryCreateRequest",
    "AgentRegisterRequest",
    "ChatEventRequest",
    "ChatMessageRequest",
    "ChatMessageRequestMentionsItem",
    "ChatRoomRequest",
    "ClientRequest",
    "CreateContactRequestRequestContactRequest",
    "CreateMyChatRoomRequestChat",
    "ParticipantRequest",
    "RenameAgentChatRequestChat",
    "UpdateMyProfileRequestUser",
]


class ClientRequest(BaseModel):
    """A request body built by client code; ``body()`` drops fields left unset."""

    model_config = ConfigDict(frozen=True, extra="allow")

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class ChatMessageRequestMentionsItem(ClientRequest):
    """One mention of an outgoing message: by ``id`` (preferred) or ``handle``."""

    id: str | None = None
    handle: str | None = None
    name: str | None = None
    kind: Literal["mention", "reference"] | None = None


class ChatMessageRequest(ClientRequest):
    """A text message: content, at least one mention, optional attachments."""

    content: str
    mentions: list[ChatMessageRequestMentionsItem]
    attachment_ids: list[str] | None = None


class ChatEventRequest(ClientRequest):
    """An event (tool_call, tool_result, thought, error, task, attention)."""

    content: str
    message_type: str
    metadata: dict[str, Any] | None = None


class ChatRoomRequest(ClientRequest):
    """A new room created by an agent."""

    title: str | None = None
    task_id: str | None = None


class RenameAgentChatRequestChat(ClientRequest):
    title: str


class CreateMyChatRoomRequestChat(ClientRequest):
    """A new room created by a person."""

    title: str | None = None
    task_id: str | None = None


class ParticipantRequest(ClientRequest):
    """A participant to add: an agent's or a person's id, and a role."""

    participant_id: str
    role: Literal["owner", "admin", "member"] | None = None


class AgentMemoryCreateRequest(ClientRequest):
    content: str
    system: str
    type: str
    segment: str
    thought: str
    scope: str | None = None
    subject_id: str | None = None
    metadata: dict[str, Any] | None = None


class AgentRegisterRequest(ClientRequest):
    name: str
    description: str


class UpdateMyProfileRequestUser(ClientRequest):
    first_name: str | None = None
    last_name: str | None = None


class CreateContactRequestRequestContactRequest(ClientRequest):
    recipient_handle: str
    message: str | None = None
