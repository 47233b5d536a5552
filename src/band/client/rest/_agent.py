"""The agent side of ``AsyncRestClient`` (``/api/v1/agent/...``): one declared row a method."""

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

from ._core import ApiResponse, Record, RequestOptions, download
from ._routes import Namespace, Route

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
CHAT = "/agent/chats/{chat_id}"
PAGE = ("page?", "page_size?")


class AgentIdentityApi(Namespace):
    get_agent_me = Route(
        "GET",
        "/agent/me",
        AgentMe,
        doc="The calling agent: ``data.id``, ``name``, ``handle``, ``owner_uuid``, flags.",
    )


class AgentChatsApi(Namespace):
    list_agent_chats = Route(
        "GET",
        "/agent/chats",
        ChatRoom,
        "many",
        query=PAGE,
        doc="One page of the agent's rooms; ``metadata.total_pages`` tells how many.",
    )
    get_agent_chat = Route("GET", "/agent/chats/{id}", ChatRoom)
    create_agent_chat = Route(
        "POST", "/agent/chats", ChatRoom, wrap="chat", doc="Create a room owned by the agent."
    )
    rename_agent_chat = Route("PATCH", "/agent/chats/{id}", ChatRoom, wrap="chat")


class AgentMessagesApi(Namespace):
    create_agent_chat_message = Route(
        "POST",
        CHAT + "/messages",
        MessageSentResponse,
        wrap="message",
        doc="Post a text message; ``data`` is ``{id, success, recipients}``.",
    )
    list_agent_messages = Route(
        "GET",
        CHAT + "/messages",
        ChatMessage,
        "many",
        query=("status?", "cursor?", "sort_order?", "limit?", *PAGE),
        doc="Messages addressed to the agent (by default those not yet processed).",
    )
    get_agent_next_message = Route(
        "GET",
        CHAT + "/messages/next",
        ChatMessage,
        "maybe",
        doc="The oldest message still to handle, or None (204).",
    )
    mark_agent_message_processing = Route(
        "POST", CHAT + "/messages/{id}/processing", MessageStatusResponse, "maybe"
    )
    mark_agent_message_processed = Route(
        "POST", CHAT + "/messages/{id}/processed", MessageStatusResponse, "maybe"
    )
    mark_agent_message_failed = Route(
        "POST", CHAT + "/messages/{id}/failed", MessageStatusResponse, "maybe", json=("error",)
    )


class AgentEventsApi(Namespace):
    create_agent_chat_event = Route(
        "POST",
        CHAT + "/events",
        EventCreatedResponse,
        wrap="event",
        whole=True,
        doc="Post an event (tool_call, tool_result, thought, error, task).",
    )


class AgentParticipantsApi(Namespace):
    list_agent_chat_participants = Route("GET", CHAT + "/participants", ChatParticipant, "many")
    add_agent_chat_participant = Route("POST", CHAT + "/participants", wrap="participant")
    remove_agent_chat_participant = Route("DELETE", CHAT + "/participants/{id}")


class AgentContextApi(Namespace):
    get_agent_chat_context = Route(
        "GET",
        CHAT + "/context",
        ChatMessage,
        "many",
        query=("cursor?", "limit?", *PAGE),
        doc="The agent's context in a room, oldest first (cursor or page paging).",
    )


class AgentPeersApi(Namespace):
    list_agent_peers = Route("GET", "/agent/peers", Peer, "many", query=("not_in_chat?", *PAGE))


class AgentActivityApi(Namespace):
    report_agent_chat_activity = Route(
        "POST", CHAT + "/activity", ActivityResponse, json=("working", "activity?")
    )


class AgentContactsApi(Namespace):
    list_agent_contacts = Route("GET", "/agent/contacts", AgentContact, "many", query=PAGE)
    add_agent_contact = Route("POST", "/agent/contacts/add", json=("handle", "message?"))
    remove_agent_contact = Route("POST", "/agent/contacts/remove", json=("contact_id?", "handle?"))
    list_agent_contact_requests = Route(
        "GET", "/agent/contacts/requests", Record, "many", query=(*PAGE, "sent_status?")
    )
    respond_to_agent_contact_request = Route(
        "POST", "/agent/contacts/requests/respond", json=("action", "handle?", "request_id?")
    )


class AgentMemoriesApi(Namespace):
    list_agent_memories = Route(
        "GET",
        "/agent/memories",
        AgentMemory,
        "many",
        extra="filters",
        doc="Memories visible to the agent; keyword filters become query parameters.",
    )
    create_agent_memory = Route("POST", "/agent/memories", AgentMemory, wrap="memory")
    get_agent_memory = Route("GET", "/agent/memories/{id}", AgentMemory)
    supersede_agent_memory = Route("POST", "/agent/memories/{id}/supersede", AgentMemory)
    archive_agent_memory = Route("POST", "/agent/memories/{id}/archive", AgentMemory)


class AgentChatTasksApi(Namespace):
    list_chat_tasks = Route(
        "GET", CHAT + "/tasks", Record, "many", query=("state?", "cursor?", "limit?")
    )
    create_chat_task = Route("POST", CHAT + "/tasks", json=("subject", "detail?", "supersedes_id?"))
    get_chat_task = Route("GET", CHAT + "/tasks/{id}", query=("include?",))
    update_chat_task = Route(
        "POST",
        CHAT + "/tasks/{id}",
        extra="changes",
        doc="Change status, state, subject, detail, active_form or add a comment.",
    )
    get_chat_task_history = Route(
        "GET", CHAT + "/tasks/{id}/history", Record, "many", query=("cursor?", "limit?")
    )
    get_chat_board = Route("GET", CHAT + "/board", query=("include?",))
    put_chat_board = Route("PUT", CHAT + "/board", json=("goal_summary?", "goal_title?"))


class AgentDelegationApi(Namespace):
    exchange_delegated_token = Route(
        "POST", "/agent/delegation/token", json=("audience", "message_id")
    )


class AgentFilesApi(Namespace):
    async def upload_agent_chat_file(
        self, chat_id: str, *, request: bytes, request_options: Options = None
    ) -> Answer:
        """Store bytes as a room file; name, type and SHA-256 go in ``additional_headers``
        (``x-file-name``, ``content-type``, ``x-file-sha256``)."""
        path = f"/agent/chats/{chat_id}/files"
        body = await self._c.send("PUT", path, content=bytes(request), options=request_options)
        return ApiResponse(data=Record.model_validate((body or {}).get("data") or {}))

    async def download_agent_chat_file(
        self, chat_id: str, id: str, *, range: str | None = None, request_options: Options = None
    ) -> AsyncIterator[bytes]:
        """The file's bytes (a ``range`` such as ``bytes=0-99`` asks for one span)."""
        path = f"/agent/chats/{chat_id}/files/{id}"
        return await download(self._c, path, range=range, options=request_options)
