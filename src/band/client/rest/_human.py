"""The people side of ``AsyncRestClient`` (``/api/v1/me/...``), one class per namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from band_protocol import (
    AgentContact,
    AgentInfo,
    AgentMemory,
    AgentRegistered,
    ChatMessage,
    ChatParticipant,
    ChatRoom,
    MessageSentResponse,
    Peer,
    UserProfile,
)
from band_protocol.requests import (
    AgentRegisterRequest,
    ChatMessageRequest,
    CreateContactRequestRequestContactRequest,
    CreateMyChatRoomRequestChat,
    ParticipantRequest,
    UpdateMyProfileRequestUser,
)

from ._agent import Answer, Options, _fields, _Namespace
from ._core import Record

__all__ = [
    "HumanAgentsApi",
    "HumanBulkDeletionsApi",
    "HumanChatsApi",
    "HumanContactsApi",
    "HumanMemoriesApi",
    "HumanMessagesApi",
    "HumanParticipantsApi",
    "HumanPeersApi",
    "HumanProfileApi",
]


def _chat(chat_id: str) -> str:
    return f"/me/chats/{chat_id}"


class HumanProfileApi(_Namespace):
    async def get_my_profile(self, *, request_options: Options = None) -> Answer:
        return await self._c.one(UserProfile, "GET", "/me/profile", options=request_options)

    async def update_my_profile(
        self, *, user: UpdateMyProfileRequestUser, request_options: Options = None
    ) -> Answer:
        body = {"user": user.body()}
        return await self._c.one(
            UserProfile, "PUT", "/me/profile", json=body, options=request_options
        )


class HumanAgentsApi(_Namespace):
    async def list_my_agents(self, *, request_options: Options = None, **filters: Any) -> Answer:
        """The agents this person owns (filters: name, sort, order, page, page_size...)."""
        params = _fields(**filters)
        return await self._c.many(AgentInfo, "/me/agents", params=params, options=request_options)

    async def register_my_agent(
        self, *, agent: AgentRegisterRequest, request_options: Options = None
    ) -> Answer:
        """Create an agent; ``data.credentials.api_key`` is shown this once."""
        body = {"agent": agent.body()}
        path = "/me/agents/register"
        return await self._c.one(AgentRegistered, "POST", path, json=body, options=request_options)

    async def delete_my_agent(
        self, id: str, *, force: bool | None = None, request_options: Options = None
    ) -> Answer:
        params = _fields(force=force)
        path = f"/me/agents/{id}"
        return await self._c.one(Record, "DELETE", path, params=params, options=request_options)


class HumanBulkDeletionsApi(_Namespace):
    async def bulk_delete_my_agents(
        self, *, ids: Sequence[str], force: bool | None = None, request_options: Options = None
    ) -> Answer:
        body = _fields(ids=list(ids), force=force)
        path = "/me/agents/bulk-delete"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def bulk_delete_my_chats(
        self, *, ids: Sequence[str], request_options: Options = None
    ) -> Answer:
        body = {"ids": list(ids)}
        path = "/me/chats/bulk-delete"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def show_my_bulk_deletion(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/bulk-deletions/{id}"
        return await self._c.one(Record, "GET", path, options=request_options)


class HumanChatsApi(_Namespace):
    async def list_my_chats(self, *, request_options: Options = None, **filters: Any) -> Answer:
        """The person's rooms (filters: cursor, limit, page, page_size, status, type...)."""
        params = _fields(**filters)
        return await self._c.many(ChatRoom, "/me/chats", params=params, options=request_options)

    async def create_my_chat_room(
        self, *, chat: CreateMyChatRoomRequestChat, request_options: Options = None
    ) -> Answer:
        body = {"chat": chat.body()}
        return await self._c.one(ChatRoom, "POST", "/me/chats", json=body, options=request_options)

    async def get_my_chat_room(self, id: str, *, request_options: Options = None) -> Answer:
        return await self._c.one(ChatRoom, "GET", _chat(id), options=request_options)


class HumanMessagesApi(_Namespace):
    async def list_my_chat_messages(
        self, chat_id: str, *, request_options: Options = None, **filters: Any
    ) -> Answer:
        """The room's timeline, newest first (filters: cursor, limit, sort_order, message_type,
        since, after, before, around...)."""
        params = _fields(**filters)
        path = f"{_chat(chat_id)}/messages"
        return await self._c.many(ChatMessage, path, params=params, options=request_options)

    async def send_my_chat_message(
        self, chat_id: str, *, message: ChatMessageRequest, request_options: Options = None
    ) -> Answer:
        body = {"message": message.body()}
        path = f"{_chat(chat_id)}/messages"
        return await self._c.one(
            MessageSentResponse, "POST", path, json=body, options=request_options
        )


class HumanParticipantsApi(_Namespace):
    async def list_my_chat_participants(
        self, chat_id: str, *, request_options: Options = None, **filters: Any
    ) -> Answer:
        params = _fields(**filters)
        path = f"{_chat(chat_id)}/participants"
        return await self._c.many(ChatParticipant, path, params=params, options=request_options)

    async def add_my_chat_participant(
        self, chat_id: str, *, participant: ParticipantRequest, request_options: Options = None
    ) -> Answer:
        body = {"participant": participant.body()}
        path = f"{_chat(chat_id)}/participants"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def remove_my_chat_participant(
        self, chat_id: str, id: str, *, request_options: Options = None
    ) -> Answer:
        path = f"{_chat(chat_id)}/participants/{id}"
        return await self._c.one(Record, "DELETE", path, options=request_options)


class HumanPeersApi(_Namespace):
    async def list_my_peers(self, *, request_options: Options = None, **filters: Any) -> Answer:
        params = _fields(**filters)
        return await self._c.many(Peer, "/me/peers", params=params, options=request_options)


class HumanContactsApi(_Namespace):
    async def list_my_contacts(
        self,
        *,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(page=page, page_size=page_size)
        return await self._c.many(
            AgentContact, "/me/contacts", params=params, options=request_options
        )

    async def remove_my_contact(
        self,
        *,
        contact_id: str | None = None,
        handle: str | None = None,
        request_options: Options = None,
    ) -> Answer:
        body = _fields(contact_id=contact_id, handle=handle)
        path = "/me/contacts/remove"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def list_received_contact_requests(
        self,
        *,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(page=page, page_size=page_size)
        path = "/me/contacts/requests"
        return await self._c.many(Record, path, params=params, options=request_options)

    async def list_sent_contact_requests(
        self,
        *,
        status: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(status=status, page=page, page_size=page_size)
        path = "/me/contacts/requests/sent"
        return await self._c.many(Record, path, params=params, options=request_options)

    async def create_contact_request(
        self,
        *,
        contact_request: CreateContactRequestRequestContactRequest,
        request_options: Options = None,
    ) -> Answer:
        body = {"contact_request": contact_request.body()}
        path = "/me/contacts/requests"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def approve_contact_request(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/contacts/requests/{id}/approve"
        return await self._c.one(Record, "POST", path, options=request_options)

    async def reject_contact_request(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/contacts/requests/{id}/reject"
        return await self._c.one(Record, "POST", path, options=request_options)

    async def cancel_contact_request(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/contacts/requests/{id}"
        return await self._c.one(Record, "DELETE", path, options=request_options)

    async def resolve_handle(self, *, handle: str, request_options: Options = None) -> Answer:
        path = "/me/contacts/resolve"
        return await self._c.one(
            Record, "POST", path, json={"handle": handle}, options=request_options
        )


class HumanMemoriesApi(_Namespace):
    async def list_user_memories(
        self, *, request_options: Options = None, **filters: Any
    ) -> Answer:
        params = _fields(**filters)
        return await self._c.many(
            AgentMemory, "/me/memories", params=params, options=request_options
        )

    async def get_user_memory(self, id: str, *, request_options: Options = None) -> Answer:
        return await self._c.one(AgentMemory, "GET", f"/me/memories/{id}", options=request_options)

    async def delete_user_memory(self, id: str, *, request_options: Options = None) -> None:
        await self._c.send("DELETE", f"/me/memories/{id}", options=request_options)

    async def supersede_user_memory(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/memories/{id}/supersede"
        return await self._c.one(AgentMemory, "POST", path, options=request_options)

    async def archive_user_memory(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/memories/{id}/archive"
        return await self._c.one(AgentMemory, "POST", path, options=request_options)

    async def restore_user_memory(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/me/memories/{id}/restore"
        return await self._c.one(AgentMemory, "POST", path, options=request_options)
