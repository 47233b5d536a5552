"""The agent side of ``AsyncRestClient`` (``/api/v1/agent/...``), one class per namespace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from band_protocol import (
    ActivityResponse,
    AgentContact,
    AgentMe,
    AgentMemory,
    ChatMessage,
    ChatParticipant,
    ChatRoom,
    EventCreatedResponse,
    MessageSentResponse,
    MessageStatusResponse,
    Peer,
)
from band_protocol.requests import (
    AgentMemoryCreateRequest,
    ChatEventRequest,
    ChatMessageRequest,
    ChatRoomRequest,
    ParticipantRequest,
    RenameAgentChatRequestChat,
)

from ._core import ApiResponse, Caller, Record, RequestOptions

__all__ = [
    "AgentActivityApi",
    "AgentChatTasksApi",
    "AgentChatsApi",
    "AgentContactsApi",
    "AgentContextApi",
    "AgentDelegationApi",
    "AgentEventsApi",
    "AgentFilesApi",
    "AgentIdentityApi",
    "AgentMemoriesApi",
    "AgentMessagesApi",
    "AgentParticipantsApi",
    "AgentPeersApi",
]

Options = RequestOptions | None
Answer = ApiResponse[Any]


def _chat(chat_id: str) -> str:
    return f"/agent/chats/{chat_id}"


def _fields(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class _Namespace:
    def __init__(self, caller: Caller) -> None:
        self._c = caller


class AgentIdentityApi(_Namespace):
    async def get_agent_me(self, *, request_options: Options = None) -> Answer:
        """The calling agent: ``data.id``, ``name``, ``handle``, ``owner_uuid``, flags."""
        return await self._c.one(AgentMe, "GET", "/agent/me", options=request_options)


class AgentChatsApi(_Namespace):
    async def list_agent_chats(
        self,
        *,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        """One page of the agent's rooms; ``metadata.total_pages`` tells how many."""
        params = {"page": page, "page_size": page_size}
        return await self._c.many(ChatRoom, "/agent/chats", params=params, options=request_options)

    async def get_agent_chat(self, id: str, *, request_options: Options = None) -> Answer:
        return await self._c.one(ChatRoom, "GET", _chat(id), options=request_options)

    async def create_agent_chat(
        self, *, chat: ChatRoomRequest, request_options: Options = None
    ) -> Answer:
        """Create a room owned by the agent."""
        body = {"chat": chat.body()}
        return await self._c.one(
            ChatRoom, "POST", "/agent/chats", json=body, options=request_options
        )

    async def rename_agent_chat(
        self, id: str, *, chat: RenameAgentChatRequestChat, request_options: Options = None
    ) -> Answer:
        body = {"chat": chat.body()}
        return await self._c.one(ChatRoom, "PATCH", _chat(id), json=body, options=request_options)


class AgentMessagesApi(_Namespace):
    async def create_agent_chat_message(
        self, chat_id: str, *, message: ChatMessageRequest, request_options: Options = None
    ) -> Answer:
        """Post a text message; ``data`` is ``{id, success, recipients}``."""
        path = f"{_chat(chat_id)}/messages"
        body = {"message": message.body()}
        return await self._c.one(
            MessageSentResponse, "POST", path, json=body, options=request_options
        )

    async def list_agent_messages(
        self,
        chat_id: str,
        *,
        status: str | None = None,
        cursor: str | None = None,
        sort_order: str | None = None,
        limit: int | None = None,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        """Messages addressed to the agent (by default those not yet processed)."""
        params = _fields(
            status=status,
            cursor=cursor,
            sort_order=sort_order,
            limit=limit,
            page=page,
            page_size=page_size,
        )
        path = f"{_chat(chat_id)}/messages"
        return await self._c.many(ChatMessage, path, params=params, options=request_options)

    async def get_agent_next_message(
        self, chat_id: str, *, request_options: Options = None
    ) -> Answer | None:
        """The oldest message still to handle, or None (204)."""
        path = f"{_chat(chat_id)}/messages/next"
        return await self._c.maybe(ChatMessage, "GET", path, options=request_options)

    async def mark_agent_message_processing(
        self, chat_id: str, id: str, *, request_options: Options = None
    ) -> Answer | None:
        return await self._mark(chat_id, id, "processing", None, request_options)

    async def mark_agent_message_processed(
        self, chat_id: str, id: str, *, request_options: Options = None
    ) -> Answer | None:
        return await self._mark(chat_id, id, "processed", None, request_options)

    async def mark_agent_message_failed(
        self, chat_id: str, id: str, *, error: str, request_options: Options = None
    ) -> Answer | None:
        return await self._mark(chat_id, id, "failed", {"error": error}, request_options)

    async def _mark(
        self, chat_id: str, id: str, step: str, body: Any, options: Options
    ) -> Answer | None:
        path = f"{_chat(chat_id)}/messages/{id}/{step}"
        return await self._c.maybe(MessageStatusResponse, "POST", path, json=body, options=options)


class AgentEventsApi(_Namespace):
    async def create_agent_chat_event(
        self, chat_id: str, *, event: ChatEventRequest, request_options: Options = None
    ) -> Answer:
        """Post an event (tool_call, tool_result, thought, error, task)."""
        path = f"{_chat(chat_id)}/events"
        body = {"event": event.model_dump(mode="json")}
        return await self._c.one(
            EventCreatedResponse, "POST", path, json=body, options=request_options
        )


class AgentParticipantsApi(_Namespace):
    async def list_agent_chat_participants(
        self, chat_id: str, *, request_options: Options = None
    ) -> Answer:
        path = f"{_chat(chat_id)}/participants"
        return await self._c.many(ChatParticipant, path, options=request_options)

    async def add_agent_chat_participant(
        self, chat_id: str, *, participant: ParticipantRequest, request_options: Options = None
    ) -> Answer:
        path = f"{_chat(chat_id)}/participants"
        body = {"participant": participant.body()}
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def remove_agent_chat_participant(
        self, chat_id: str, id: str, *, request_options: Options = None
    ) -> Answer:
        path = f"{_chat(chat_id)}/participants/{id}"
        return await self._c.one(Record, "DELETE", path, options=request_options)


class AgentContextApi(_Namespace):
    async def get_agent_chat_context(
        self,
        chat_id: str,
        *,
        cursor: str | None = None,
        limit: int | None = None,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        """The agent's context in a room, oldest first (cursor or page paging)."""
        params = _fields(cursor=cursor, limit=limit, page=page, page_size=page_size)
        path = f"{_chat(chat_id)}/context"
        return await self._c.many(ChatMessage, path, params=params, options=request_options)


class AgentPeersApi(_Namespace):
    async def list_agent_peers(
        self,
        *,
        not_in_chat: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(not_in_chat=not_in_chat, page=page, page_size=page_size)
        return await self._c.many(Peer, "/agent/peers", params=params, options=request_options)


class AgentActivityApi(_Namespace):
    async def report_agent_chat_activity(
        self,
        chat_id: str,
        *,
        working: bool,
        activity: Any = None,
        request_options: Options = None,
    ) -> Answer:
        path = f"{_chat(chat_id)}/activity"
        body = _fields(working=working, activity=activity)
        return await self._c.one(ActivityResponse, "POST", path, json=body, options=request_options)


class AgentContactsApi(_Namespace):
    async def list_agent_contacts(
        self,
        *,
        page: int | None = None,
        page_size: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(page=page, page_size=page_size)
        return await self._c.many(
            AgentContact, "/agent/contacts", params=params, options=request_options
        )

    async def add_agent_contact(
        self, *, handle: str, message: str | None = None, request_options: Options = None
    ) -> Answer:
        body = _fields(handle=handle, message=message)
        return await self._c.one(
            Record, "POST", "/agent/contacts/add", json=body, options=request_options
        )

    async def remove_agent_contact(
        self,
        *,
        contact_id: str | None = None,
        handle: str | None = None,
        request_options: Options = None,
    ) -> Answer:
        body = _fields(contact_id=contact_id, handle=handle)
        path = "/agent/contacts/remove"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def list_agent_contact_requests(
        self,
        *,
        page: int | None = None,
        page_size: int | None = None,
        sent_status: str | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(page=page, page_size=page_size, sent_status=sent_status)
        path = "/agent/contacts/requests"
        return await self._c.many(Record, path, params=params, options=request_options)

    async def respond_to_agent_contact_request(
        self,
        *,
        action: str,
        handle: str | None = None,
        request_id: str | None = None,
        request_options: Options = None,
    ) -> Answer:
        body = _fields(action=action, handle=handle, request_id=request_id)
        path = "/agent/contacts/requests/respond"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)


class AgentMemoriesApi(_Namespace):
    async def list_agent_memories(
        self, *, request_options: Options = None, **filters: Any
    ) -> Answer:
        """Memories visible to the agent; keyword filters become query parameters."""
        params = _fields(**filters)
        return await self._c.many(
            AgentMemory, "/agent/memories", params=params, options=request_options
        )

    async def create_agent_memory(
        self, *, memory: AgentMemoryCreateRequest, request_options: Options = None
    ) -> Answer:
        body = {"memory": memory.body()}
        return await self._c.one(
            AgentMemory, "POST", "/agent/memories", json=body, options=request_options
        )

    async def get_agent_memory(self, id: str, *, request_options: Options = None) -> Answer:
        return await self._c.one(
            AgentMemory, "GET", f"/agent/memories/{id}", options=request_options
        )

    async def supersede_agent_memory(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/agent/memories/{id}/supersede"
        return await self._c.one(AgentMemory, "POST", path, options=request_options)

    async def archive_agent_memory(self, id: str, *, request_options: Options = None) -> Answer:
        path = f"/agent/memories/{id}/archive"
        return await self._c.one(AgentMemory, "POST", path, options=request_options)


class AgentChatTasksApi(_Namespace):
    async def list_chat_tasks(
        self,
        chat_id: str,
        *,
        state: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        params = _fields(state=state, cursor=cursor, limit=limit)
        path = f"{_chat(chat_id)}/tasks"
        return await self._c.many(Record, path, params=params, options=request_options)

    async def create_chat_task(
        self,
        chat_id: str,
        *,
        subject: str,
        detail: str | None = None,
        supersedes_id: str | None = None,
        request_options: Options = None,
    ) -> Answer:
        body = _fields(subject=subject, detail=detail, supersedes_id=supersedes_id)
        path = f"{_chat(chat_id)}/tasks"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)

    async def get_chat_task(
        self, chat_id: str, id: str, *, include: str | None = None, request_options: Options = None
    ) -> Answer:
        path = f"{_chat(chat_id)}/tasks/{id}"
        params = _fields(include=include)
        return await self._c.one(Record, "GET", path, params=params, options=request_options)

    async def update_chat_task(
        self, chat_id: str, id: str, *, request_options: Options = None, **changes: Any
    ) -> Answer:
        """Change status, state, subject, detail, active_form or add a comment."""
        path = f"{_chat(chat_id)}/tasks/{id}"
        return await self._c.one(
            Record, "POST", path, json=_fields(**changes), options=request_options
        )

    async def get_chat_task_history(
        self,
        chat_id: str,
        id: str,
        *,
        cursor: str | None = None,
        limit: int | None = None,
        request_options: Options = None,
    ) -> Answer:
        path = f"{_chat(chat_id)}/tasks/{id}/history"
        params = _fields(cursor=cursor, limit=limit)
        return await self._c.many(Record, path, params=params, options=request_options)

    async def get_chat_board(
        self, chat_id: str, *, include: str | None = None, request_options: Options = None
    ) -> Answer:
        path = f"{_chat(chat_id)}/board"
        params = _fields(include=include)
        return await self._c.one(Record, "GET", path, params=params, options=request_options)

    async def put_chat_board(
        self,
        chat_id: str,
        *,
        goal_summary: str | None = None,
        goal_title: str | None = None,
        request_options: Options = None,
    ) -> Answer:
        path = f"{_chat(chat_id)}/board"
        body = _fields(goal_summary=goal_summary, goal_title=goal_title)
        return await self._c.one(Record, "PUT", path, json=body, options=request_options)


class AgentFilesApi(_Namespace):
    async def upload_agent_chat_file(
        self, chat_id: str, *, request: bytes, request_options: Options = None
    ) -> Answer:
        """Store bytes as a room file; name, type and SHA-256 go in ``additional_headers``
        (``x-file-name``, ``content-type``, ``x-file-sha256``)."""
        path = f"{_chat(chat_id)}/files"
        body = await self._c.send("PUT", path, content=bytes(request), options=request_options)
        return ApiResponse(data=Record.model_validate((body or {}).get("data") or {}))

    async def download_agent_chat_file(
        self, chat_id: str, id: str, *, range: str | None = None, request_options: Options = None
    ) -> AsyncIterator[bytes]:
        """The file's bytes (a ``range`` such as ``bytes=0-99`` asks for one span)."""
        options: RequestOptions = dict(request_options or {})  # type: ignore[assignment]
        if range is not None:
            options["additional_headers"] = {
                **options.get("additional_headers", {}),
                "range": range,
            }
        response = await self._c.raw("GET", f"{_chat(chat_id)}/files/{id}", options=options)

        async def chunks() -> AsyncIterator[bytes]:
            yield response.content

        return chunks()


class AgentDelegationApi(_Namespace):
    async def exchange_delegated_token(
        self, *, audience: str, message_id: str, request_options: Options = None
    ) -> Answer:
        body = {"audience": audience, "message_id": message_id}
        path = "/agent/delegation/token"
        return await self._c.one(Record, "POST", path, json=body, options=request_options)
