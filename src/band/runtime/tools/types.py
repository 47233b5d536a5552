"""The tool vocabulary: surfaces, the agent tool names, categories, effects, definitions."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from band_protocol import TurnEffect

__all__ = ["BandTool", "Surface", "ToolCategory", "ToolDefinition", "TurnEffect"]


class Surface(StrEnum):
    """Whose tool it is: an agent's (room-bound ``AgentTools``) or a person's (``HumanTools``)."""

    AGENT = "agent"
    HUMAN = "human"


class BandTool(StrEnum):
    """Every agent-side platform tool (a member compares equal to its wire name)."""

    SEND_MESSAGE = "band_send_message"
    SEND_EVENT = "band_send_event"
    NO_REPLY = "band_no_reply"
    ADD_PARTICIPANT = "band_add_participant"
    REMOVE_PARTICIPANT = "band_remove_participant"
    LOOKUP_PEERS = "band_lookup_peers"
    GET_PARTICIPANTS = "band_get_participants"
    CREATE_CHATROOM = "band_create_chatroom"
    LIST_CONTACTS = "band_list_contacts"
    ADD_CONTACT = "band_add_contact"
    REMOVE_CONTACT = "band_remove_contact"
    LIST_CONTACT_REQUESTS = "band_list_contact_requests"
    RESPOND_CONTACT_REQUEST = "band_respond_contact_request"
    LIST_MEMORIES = "band_list_memories"
    STORE_MEMORY = "band_store_memory"
    GET_MEMORY = "band_get_memory"
    SUPERSEDE_MEMORY = "band_supersede_memory"
    ARCHIVE_MEMORY = "band_archive_memory"
    LIST_ROOM_FILES = "band_list_room_files"
    READ_ROOM_FILE = "band_read_room_file"
    SEND_ROOM_FILE = "band_send_room_file"
    LIST_TASKS = "band_list_tasks"
    CREATE_TASK = "band_create_task"
    GET_TASK = "band_get_task"
    UPDATE_TASK = "band_update_task"
    GET_TASK_HISTORY = "band_get_task_history"
    GET_BOARD = "band_get_board"
    SET_BOARD = "band_set_board"


class ToolCategory(StrEnum):
    """Tool groups; every group but CHAT is switched on by the Capability of that name."""

    CHAT = "chat"
    CONTACTS = "contacts"
    MEMORY = "memory"
    FILES = "files"
    TASKS = "tasks"


@dataclass(frozen=True)
class ToolDefinition:
    """A built-in tool: its name, input model, the method that runs it, and its surface."""

    name: str
    input_model: type[BaseModel]
    method_name: str
    surface: Surface = Surface.AGENT
