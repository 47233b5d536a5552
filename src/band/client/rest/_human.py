"""The people side of ``AsyncRestClient`` (``/api/v1/me/...``): one declared row a method."""

from __future__ import annotations

from collections.abc import AsyncIterator

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

from ._core import Record, RequestOptions, download
from ._routes import Namespace, Route

__all__ = [
    "HumanAgentsApi",
    "HumanBulkDeletionsApi",
    "HumanChatTasksApi",
    "HumanChatsApi",
    "HumanContactsApi",
    "HumanFilesApi",
    "HumanMemoriesApi",
    "HumanMessagesApi",
    "HumanParticipantsApi",
    "HumanPeersApi",
    "HumanProfileApi",
]

CHAT = "/me/chats/{chat_id}"
PAGE = ("page?", "page_size?")
REQUEST = "/me/contacts/requests/{id}"
MEMORY = "/me/memories/{id}"


class HumanProfileApi(Namespace):
    get_my_profile = Route("GET", "/me/profile", UserProfile)
    update_my_profile = Route("PUT", "/me/profile", UserProfile, wrap="user")


class HumanAgentsApi(Namespace):
    list_my_agents = Route(
        "GET",
        "/me/agents",
        AgentInfo,
        "many",
        extra="filters",
        doc="The agents this person owns (filters: name, sort, order, page, page_size...).",
    )
    register_my_agent = Route(
        "POST",
        "/me/agents/register",
        AgentRegistered,
        wrap="agent",
        doc="Create an agent; ``data.credentials.api_key`` is shown this once.",
    )
    delete_my_agent = Route("DELETE", "/me/agents/{id}", query=("force?",))


class HumanBulkDeletionsApi(Namespace):
    bulk_delete_my_agents = Route("POST", "/me/agents/bulk-delete", json=("ids", "force?"))
    bulk_delete_my_chats = Route("POST", "/me/chats/bulk-delete", json=("ids",))
    show_my_bulk_deletion = Route("GET", "/me/bulk-deletions/{id}")


class HumanChatsApi(Namespace):
    list_my_chats = Route(
        "GET",
        "/me/chats",
        ChatRoom,
        "many",
        extra="filters",
        doc="The person's rooms (filters: cursor, limit, page, page_size, status, type...).",
    )
    create_my_chat_room = Route("POST", "/me/chats", ChatRoom, wrap="chat")
    get_my_chat_room = Route("GET", "/me/chats/{id}", ChatRoom)


class HumanMessagesApi(Namespace):
    list_my_chat_messages = Route(
        "GET",
        CHAT + "/messages",
        ChatMessage,
        "many",
        extra="filters",
        doc="The room's timeline, newest first (filters: cursor, limit, sort_order, "
        "message_type, since, after, before, around...).",
    )
    send_my_chat_message = Route("POST", CHAT + "/messages", MessageSentResponse, wrap="message")


class HumanParticipantsApi(Namespace):
    list_my_chat_participants = Route(
        "GET", CHAT + "/participants", ChatParticipant, "many", extra="filters"
    )
    add_my_chat_participant = Route("POST", CHAT + "/participants", wrap="participant")
    remove_my_chat_participant = Route("DELETE", CHAT + "/participants/{id}")


class HumanPeersApi(Namespace):
    list_my_peers = Route("GET", "/me/peers", Peer, "many", extra="filters")


class HumanContactsApi(Namespace):
    list_my_contacts = Route("GET", "/me/contacts", AgentContact, "many", query=PAGE)
    remove_my_contact = Route("POST", "/me/contacts/remove", json=("contact_id?", "handle?"))
    list_received_contact_requests = Route(
        "GET", "/me/contacts/requests", Record, "many", query=PAGE
    )
    list_sent_contact_requests = Route(
        "GET", "/me/contacts/requests/sent", Record, "many", query=("status?", *PAGE)
    )
    create_contact_request = Route("POST", "/me/contacts/requests", wrap="contact_request")
    approve_contact_request = Route("POST", REQUEST + "/approve")
    reject_contact_request = Route("POST", REQUEST + "/reject")
    cancel_contact_request = Route("DELETE", REQUEST)
    resolve_handle = Route("POST", "/me/contacts/resolve", json=("handle",))


class HumanMemoriesApi(Namespace):
    list_user_memories = Route("GET", "/me/memories", AgentMemory, "many", extra="filters")
    get_user_memory = Route("GET", MEMORY, AgentMemory)
    delete_user_memory = Route("DELETE", MEMORY, shape="none")
    supersede_user_memory = Route("POST", MEMORY + "/supersede", AgentMemory)
    archive_user_memory = Route("POST", MEMORY + "/archive", AgentMemory)
    restore_user_memory = Route("POST", MEMORY + "/restore", AgentMemory)


# Ours (band-client-rest has no person-side tasks, board or files): the same paths under /me.
class HumanChatTasksApi(Namespace):
    list_my_chat_tasks = Route(
        "GET", CHAT + "/tasks", Record, "many", query=("state?", "cursor?", "limit?")
    )
    get_my_chat_task_history = Route(
        "GET", CHAT + "/tasks/{id}/history", Record, "many", query=("cursor?", "limit?")
    )
    get_my_chat_board = Route("GET", CHAT + "/board", query=("include?",))


class HumanFilesApi(Namespace):
    async def download_my_chat_file(
        self,
        chat_id: str,
        id: str,
        *,
        range: str | None = None,
        request_options: RequestOptions | None = None,
    ) -> AsyncIterator[bytes]:
        """The file's bytes (a ``range`` such as ``bytes=0-99`` asks for one span)."""
        path = f"/me/chats/{chat_id}/files/{id}"
        return await download(self._c, path, range=range, options=request_options)
