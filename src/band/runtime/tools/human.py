"""``HumanTools``: a person's tools (their agents, rooms, contacts, memories, profile).

One instance per person's ``AsyncRestClient`` (``/api/v1/me/...``), not bound to a room:
room-bound tools take ``chat_id``. Each method is one REST call; a few answer with text, as
the MCP tools they mirror do: a refused call that needs no round trip (``"Error: ..."``),
and participant changes (``"Added participant: <id>"``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from band.client.rest import (
    DEFAULT_REQUEST_OPTIONS,
    AgentRegisterRequest,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
    CreateContactRequestRequestContactRequest,
    CreateMyChatRoomRequestChat,
    ParticipantRequest,
    UpdateMyProfileRequestUser,
)

if TYPE_CHECKING:
    from band.client.rest import AsyncRestClient

__all__ = ["HumanTools"]

logger = logging.getLogger(__name__)
_OPTS = DEFAULT_REQUEST_OPTIONS


def _names(participant: Any) -> list[str]:
    """The lower-cased names a recipient may be called by."""
    keys = ("name", "username", "first_name", "handle")
    return [str(v).lower() for k in keys if (v := _field(participant, k))]


class HumanTools:
    """A person's platform tools over their REST client."""

    def __init__(self, rest: AsyncRestClient) -> None:
        self.rest = rest

    # agents

    async def list_my_agents(self, page: int | None = None, page_size: int | None = None) -> Any:
        """The agents this person owns."""
        return await self.rest.human_api_agents.list_my_agents(page=page, page_size=page_size)

    async def register_my_agent(self, name: str, description: str) -> Any:
        """Register a remote agent; the answer holds its API key, shown once."""
        logger.debug("Registering my agent: name=%s", name)
        request = AgentRegisterRequest(name=name, description=description)
        return await self.rest.human_api_agents.register_my_agent(
            agent=request, request_options=_OPTS
        )

    # rooms

    async def list_my_chats(self, page: int | None = None, page_size: int | None = None) -> Any:
        """The rooms this person is in."""
        return await self.rest.human_api_chats.list_my_chats(page=page, page_size=page_size)

    async def create_my_chat_room(self, task_id: str | None = None) -> Any:
        """A new room this person owns."""
        return await self.rest.human_api_chats.create_my_chat_room(
            chat=CreateMyChatRoomRequestChat(task_id=task_id), request_options=_OPTS
        )

    async def get_my_chat_room(self, chat_id: str) -> Any:
        return await self.rest.human_api_chats.get_my_chat_room(chat_id)

    # contacts

    async def list_my_contacts(self, page: int | None = None, page_size: int | None = None) -> Any:
        return await self.rest.human_api_contacts.list_my_contacts(page=page, page_size=page_size)

    async def create_contact_request(
        self, recipient_handle: str, message: str | None = None
    ) -> Any:
        """Ask ``recipient_handle`` to become a contact."""
        request = CreateContactRequestRequestContactRequest(
            recipient_handle=recipient_handle, message=message
        )
        return await self.rest.human_api_contacts.create_contact_request(
            contact_request=request, request_options=_OPTS
        )

    async def list_received_contact_requests(
        self, page: int | None = None, page_size: int | None = None
    ) -> Any:
        return await self.rest.human_api_contacts.list_received_contact_requests(
            page=page, page_size=page_size
        )

    async def list_sent_contact_requests(
        self, status: str | None = None, page: int | None = None, page_size: int | None = None
    ) -> Any:
        return await self.rest.human_api_contacts.list_sent_contact_requests(
            status=status, page=page, page_size=page_size
        )

    async def approve_contact_request(self, request_id: str) -> Any:
        return await self.rest.human_api_contacts.approve_contact_request(
            request_id, request_options=_OPTS
        )

    async def reject_contact_request(self, request_id: str) -> Any:
        return await self.rest.human_api_contacts.reject_contact_request(
            request_id, request_options=_OPTS
        )

    async def cancel_contact_request(self, request_id: str) -> Any:
        return await self.rest.human_api_contacts.cancel_contact_request(
            request_id, request_options=_OPTS
        )

    async def resolve_handle(self, handle: str) -> Any:
        """Who ``handle`` names."""
        return await self.rest.human_api_contacts.resolve_handle(handle=handle)

    async def remove_my_contact(
        self, contact_id: str | None = None, handle: str | None = None
    ) -> Any:
        """Remove a contact by id or handle (``"Error: ..."`` when neither is given)."""
        if not contact_id and not handle:
            return "Error: Either contact_id or handle must be provided"
        return await self.rest.human_api_contacts.remove_my_contact(
            contact_id=contact_id, handle=handle, request_options=_OPTS
        )

    # messages

    async def list_my_chat_messages(
        self,
        chat_id: str,
        page: int | None = None,
        page_size: int | None = None,
        message_type: str | None = None,
        since: str | None = None,
    ) -> Any:
        """A room's messages; ``since`` is an ISO 8601 time (checked before any request)."""
        since_value = datetime.fromisoformat(since).isoformat() if since else None
        return await self.rest.human_api_messages.list_my_chat_messages(
            chat_id, page=page, page_size=page_size, message_type=message_type, since=since_value
        )

    async def send_my_chat_message(self, chat_id: str, content: str, recipients: str) -> Any:
        """Send ``content``, mentioning the comma-separated ``recipients`` by name.

        Names are matched (any case) against the room's participants; none given, or one
        not found, answers ``"Error: ..."`` listing the names available, and sends nothing.
        """
        wanted = [name.strip().lower() for name in recipients.split(",") if name.strip()]
        if not wanted:
            return "Error: recipients cannot be empty"
        listing = await self.rest.human_api_participants.list_my_chat_participants(chat_id)
        by_name: dict[str, Any] = {}
        for participant in listing.data or []:
            for name in _names(participant):
                by_name.setdefault(name, participant)
        missing = [name for name in wanted if name not in by_name]
        if missing:
            return f"Error: Not found: {', '.join(missing)}. Available: {', '.join(by_name)}"
        mentions = [
            ChatMessageRequestMentionsItem(
                id=_field(by_name[name], "id"),
                name=_field(by_name[name], "name") or _field(by_name[name], "username"),
            )
            for name in wanted
        ]
        return await self.rest.human_api_messages.send_my_chat_message(
            chat_id,
            message=ChatMessageRequest(content=content, mentions=mentions),
            request_options=_OPTS,
        )

    # participants

    async def list_my_chat_participants(
        self, chat_id: str, participant_type: str | None = None
    ) -> Any:
        return await self.rest.human_api_participants.list_my_chat_participants(
            chat_id, participant_type=participant_type
        )

    async def add_my_chat_participant(
        self, chat_id: str, participant_id: str, role: str | None = None
    ) -> str:
        """Add someone to a room (role member unless given); ``"Added participant: <id>"``."""
        request = ParticipantRequest(participant_id=participant_id, role=role or "member")
        await self.rest.human_api_participants.add_my_chat_participant(
            chat_id, participant=request, request_options=_OPTS
        )
        return f"Added participant: {participant_id}"

    async def remove_my_chat_participant(self, chat_id: str, participant_id: str) -> str:
        """Remove someone from a room; ``"Removed participant: <id>"``."""
        await self.rest.human_api_participants.remove_my_chat_participant(
            chat_id, participant_id, request_options=_OPTS
        )
        return f"Removed participant: {participant_id}"

    # memories

    async def list_user_memories(
        self,
        chat_room_id: str | None = None,
        scope: str | None = None,
        system: str | None = None,
        memory_type: str | None = None,
        segment: str | None = None,
        content_query: str | None = None,
        page_size: int | None = None,
        status: str | None = None,
    ) -> Any:
        return await self.rest.human_api_memories.list_user_memories(
            chat_room_id=chat_room_id,
            scope=scope,
            system=system,
            type=memory_type,
            segment=segment,
            content_query=content_query,
            page_size=page_size,
            status=status,
        )

    async def get_user_memory(self, memory_id: str) -> Any:
        return await self.rest.human_api_memories.get_user_memory(memory_id)

    async def supersede_user_memory(self, memory_id: str) -> Any:
        return await self.rest.human_api_memories.supersede_user_memory(
            memory_id, request_options=_OPTS
        )

    async def archive_user_memory(self, memory_id: str) -> Any:
        return await self.rest.human_api_memories.archive_user_memory(
            memory_id, request_options=_OPTS
        )

    async def restore_user_memory(self, memory_id: str) -> Any:
        return await self.rest.human_api_memories.restore_user_memory(
            memory_id, request_options=_OPTS
        )

    async def delete_user_memory(self, memory_id: str) -> dict[str, Any]:
        """Delete a memory for good; ``{"deleted": True, "id": memory_id}``."""
        await self.rest.human_api_memories.delete_user_memory(memory_id, request_options=_OPTS)
        return {"deleted": True, "id": memory_id}

    # profile and peers

    async def get_my_profile(self) -> Any:
        return await self.rest.human_api_profile.get_my_profile()

    async def update_my_profile(
        self, first_name: str | None = None, last_name: str | None = None
    ) -> Any:
        """Change first and/or last name (``"Error: ..."`` when neither is given)."""
        if first_name is None and last_name is None:
            return "Error: At least one field (first_name or last_name) must be provided"
        return await self.rest.human_api_profile.update_my_profile(
            user=UpdateMyProfileRequestUser(first_name=first_name, last_name=last_name),
            request_options=_OPTS,
        )

    async def list_my_peers(
        self,
        not_in_chat: str | None = None,
        peer_type: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Any:
        """Whom this person can bring into rooms."""
        return await self.rest.human_api_peers.list_my_peers(
            not_in_chat=not_in_chat, type=peer_type, page=page, page_size=page_size
        )


def _field(entity: Any, name: str) -> Any:
    return entity.get(name) if isinstance(entity, dict) else getattr(entity, name, None)
