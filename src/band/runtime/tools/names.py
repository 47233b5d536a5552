"""Names of the platform tools, their groups and the turn effect of each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum

from band.core.types import Capability
from band_protocol import TurnEffect

__all__ = [
    "ALL_TOOL_NAMES",
    "BASE_TOOL_NAMES",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "FILE_TOOL_NAMES",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "TASK_TOOL_NAMES",
    "TOOL_CATEGORIES",
    "TOOL_EFFECTS",
    "BandTool",
    "ToolCategory",
    "canonical_tool_name",
    "mcp_tool_names",
    "turn_effect",
]

MCP_TOOL_PREFIX = "mcp__band__"
LEGACY_NAMES = {"create_agent_chat_message": "band_send_message"}


class BandTool(StrEnum):
    """Every agent-side platform tool, in registry order."""

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


_T = BandTool
CHAT_TOOL_NAMES: frozenset[str] = frozenset(t.value for t in list(_T)[:8])
CONTACT_TOOL_NAMES: frozenset[str] = frozenset(t.value for t in list(_T)[8:13])
MEMORY_TOOL_NAMES: frozenset[str] = frozenset(t.value for t in list(_T)[13:18])
FILE_TOOL_NAMES: frozenset[str] = frozenset(t.value for t in list(_T)[18:21])
TASK_TOOL_NAMES: frozenset[str] = frozenset(t.value for t in list(_T)[21:])
BASE_TOOL_NAMES: frozenset[str] = CHAT_TOOL_NAMES | CONTACT_TOOL_NAMES
ALL_TOOL_NAMES: frozenset[str] = frozenset(t.value for t in _T)

TOOL_CATEGORIES: Mapping[str, ToolCategory] = {
    **dict.fromkeys(CHAT_TOOL_NAMES, ToolCategory.CHAT),
    **dict.fromkeys(CONTACT_TOOL_NAMES, ToolCategory.CONTACTS),
    **dict.fromkeys(MEMORY_TOOL_NAMES, ToolCategory.MEMORY),
    **dict.fromkeys(FILE_TOOL_NAMES, ToolCategory.FILES),
    **dict.fromkeys(TASK_TOOL_NAMES, ToolCategory.TASKS),
}
CATEGORY_OF_CAPABILITY: Mapping[Capability, ToolCategory] = {
    Capability.CONTACTS: ToolCategory.CONTACTS,
    Capability.MEMORY: ToolCategory.MEMORY,
    Capability.FILES: ToolCategory.FILES,
    Capability.TASKS: ToolCategory.TASKS,
}

_REPLY = {_T.SEND_MESSAGE, _T.SEND_ROOM_FILE}
_ACT = {
    _T.ADD_PARTICIPANT,
    _T.REMOVE_PARTICIPANT,
    _T.CREATE_CHATROOM,
    _T.ADD_CONTACT,
    _T.REMOVE_CONTACT,
    _T.RESPOND_CONTACT_REQUEST,
    _T.STORE_MEMORY,
    _T.SUPERSEDE_MEMORY,
    _T.ARCHIVE_MEMORY,
    _T.CREATE_TASK,
    _T.UPDATE_TASK,
    _T.SET_BOARD,
}
TOOL_EFFECTS: Mapping[str, TurnEffect] = {
    t.value: (
        TurnEffect.REPLY
        if t in _REPLY
        else TurnEffect.DECLINE
        if t is _T.NO_REPLY
        else TurnEffect.ACT
        if t in _ACT
        else TurnEffect.OBSERVE
    )
    for t in _T
}
READ_ONLY_TOOL_NAMES: frozenset[str] = frozenset(
    name
    for name, effect in TOOL_EFFECTS.items()
    if effect is TurnEffect.OBSERVE and name != _T.SEND_EVENT
)


def canonical_tool_name(name: str) -> str:
    """Map MCP (``mcp__band__x``, ``band-x``) and legacy spellings to the tool name."""
    if name.startswith(MCP_TOOL_PREFIX):
        name = name[len(MCP_TOOL_PREFIX) :]
    if name.startswith("band-"):
        name = name[len("band-") :]
    return LEGACY_NAMES.get(name, name)


def mcp_tool_names(names: Iterable[str] = ALL_TOOL_NAMES) -> list[str]:
    """The MCP spellings (``mcp__band__<tool>``) of ``names``, sorted."""
    return sorted(MCP_TOOL_PREFIX + name for name in names)


def turn_effect(name: str, *, custom_effects: Mapping[str, TurnEffect] | None = None) -> TurnEffect:
    """The effect a successful call of ``name`` records; Band tools win over custom ones."""
    canonical = canonical_tool_name(name)
    if canonical in TOOL_EFFECTS:
        return TOOL_EFFECTS[canonical]
    if custom_effects and name in custom_effects:
        return custom_effects[name]
    return TurnEffect.OBSERVE
