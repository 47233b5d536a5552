"""The built-in tools of both surfaces, their groups, and the rules every adapter shares.

``TOOL_DEFINITIONS`` names each tool once with its input model and method (``AgentTools`` for
the agent surface, ``HumanTools`` for a person's). The name sets, the capability gate
(``iter_tool_definitions``, ``selected_tool_definitions``), the Band MCP server's spellings,
and the image passthrough of ``band_read_room_file`` derive from it.
"""

from __future__ import annotations

import base64
from collections.abc import Collection, Mapping
from typing import Any, Literal, TypedDict, cast

from pydantic import BaseModel

from band.core.tool_filter import filter_tool_schemas
from band.core.types import AdapterFeatures, Capability

from . import inputs as i
from .types import BandTool, Surface, ToolCategory, ToolDefinition

__all__ = [
    "AGENT_ROOM_BOUND_TOOL_NAMES",
    "ALL_TOOL_NAMES",
    "BAND_MCP_SERVER_NAME",
    "BASE_TOOL_NAMES",
    "CAPABILITY_TOOL_NAMES",
    "CHAT_ID_FIELD_NAME",
    "CHAT_ID_MAX_LENGTH",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "DEFAULT_CAPABILITIES",
    "EVENT_TOOL_NAMES",
    "FILE_TOOL_NAMES",
    "HUMAN_SURFACE_CONTACT_TOOL_NAMES",
    "HUMAN_SURFACE_MEMORY_TOOL_NAMES",
    "LEGACY_SEND_MESSAGE_TOOL",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "TASK_TOOL_NAMES",
    "TOOL_DEFINITIONS",
    "TOOL_MODELS",
    "ImageContentBlock",
    "ImageContentResult",
    "band_tool_errored",
    "canonicalize_mcp_tool_name",
    "classify_room_binding",
    "decode_image_block",
    "decode_image_blocks",
    "file_content_placeholder",
    "get_band_tool_category",
    "image_block_placeholder",
    "image_passthrough_result",
    "is_image_passthrough_result",
    "is_mcp_content_result",
    "iter_tool_definitions",
    "mcp_tool_names",
    "mcp_tool_spelling",
    "redact_tool_call_args",
    "resolve_capabilities",
    "selected_tool_definitions",
    "withheld_tool_names",
]

BAND_MCP_SERVER_NAME = "band"
LEGACY_SEND_MESSAGE_TOOL = "create_agent_chat_message"  # older MCP servers' send spelling
MCP_TOOL_PREFIX = "mcp__band__"
CHAT_ID_FIELD_NAME = "chat_id"  # what schemas and prompts call a room id
CHAT_ID_MAX_LENGTH = 255

_T = BandTool
_AGENT: tuple[tuple[BandTool, type[BaseModel]], ...] = (
    (_T.SEND_MESSAGE, i.SendMessageInput),
    (_T.SEND_EVENT, i.SendEventInput),
    (_T.NO_REPLY, i.NoReplyInput),
    (_T.ADD_PARTICIPANT, i.AddParticipantInput),
    (_T.REMOVE_PARTICIPANT, i.RemoveParticipantInput),
    (_T.LOOKUP_PEERS, i.LookupPeersInput),
    (_T.GET_PARTICIPANTS, i.GetParticipantsInput),
    (_T.CREATE_CHATROOM, i.CreateChatroomInput),
    (_T.LIST_CONTACTS, i.ListContactsInput),
    (_T.ADD_CONTACT, i.AddContactInput),
    (_T.REMOVE_CONTACT, i.RemoveContactInput),
    (_T.LIST_CONTACT_REQUESTS, i.ListContactRequestsInput),
    (_T.RESPOND_CONTACT_REQUEST, i.RespondContactRequestInput),
    (_T.LIST_MEMORIES, i.ListMemoriesInput),
    (_T.STORE_MEMORY, i.StoreMemoryInput),
    (_T.GET_MEMORY, i.GetMemoryInput),
    (_T.SUPERSEDE_MEMORY, i.SupersedeMemoryInput),
    (_T.ARCHIVE_MEMORY, i.ArchiveMemoryInput),
    (_T.LIST_ROOM_FILES, i.ListRoomFilesInput),
    (_T.READ_ROOM_FILE, i.ReadRoomFileInput),
    (_T.SEND_ROOM_FILE, i.SendRoomFileInput),
    (_T.LIST_TASKS, i.ListTasksInput),
    (_T.CREATE_TASK, i.CreateTaskInput),
    (_T.GET_TASK, i.GetTaskInput),
    (_T.UPDATE_TASK, i.UpdateTaskInput),
    (_T.GET_TASK_HISTORY, i.GetTaskHistoryInput),
    (_T.GET_BOARD, i.GetBoardInput),
    (_T.SET_BOARD, i.SetBoardInput),
)
# A person's tools, by group (contacts and memories are named sets of their own below).
_HUMAN_CONTACTS: tuple[type[BaseModel], ...] = (
    i.ListMyContactsInput,
    i.CreateContactRequestInput,
    i.ListReceivedContactRequestsInput,
    i.ListSentContactRequestsInput,
    i.ApproveContactRequestInput,
    i.RejectContactRequestInput,
    i.CancelContactRequestInput,
    i.ResolveHandleInput,
    i.RemoveMyContactInput,
)
_HUMAN_MEMORIES: tuple[type[BaseModel], ...] = (
    i.ListUserMemoriesInput,
    i.GetUserMemoryInput,
    i.SupersedeUserMemoryInput,
    i.ArchiveUserMemoryInput,
    i.RestoreUserMemoryInput,
    i.DeleteUserMemoryInput,
)
_HUMAN: tuple[type[BaseModel], ...] = (
    i.ListMyAgentsInput,
    i.RegisterMyAgentInput,
    i.ListMyChatsInput,
    i.CreateMyChatRoomInput,
    i.GetMyChatRoomInput,
    *_HUMAN_CONTACTS,
    i.ListMyChatMessagesInput,
    i.SendMyChatMessageInput,
    i.ListMyChatParticipantsInput,
    i.AddMyChatParticipantInput,
    i.RemoveMyChatParticipantInput,
    *_HUMAN_MEMORIES,
    i.GetMyProfileInput,
    i.UpdateMyProfileInput,
    i.ListMyPeersInput,
)


def _snake(model: type[BaseModel]) -> str:
    """``ListMyAgentsInput`` -> ``list_my_agents``: a person's tool is named by its input."""
    stem = model.__name__.removesuffix("Input")
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in stem).lstrip("_")


TOOL_DEFINITIONS: dict[str, ToolDefinition] = {
    **{
        str(name): ToolDefinition(str(name), model, name.removeprefix("band_"))
        for name, model in _AGENT
    },
    **{
        f"band_{_snake(model)}": ToolDefinition(
            f"band_{_snake(model)}", model, _snake(model), Surface.HUMAN
        )
        for model in _HUMAN
    },
}
TOOL_MODELS: dict[str, type[BaseModel]] = {str(name): model for name, model in _AGENT}
ALL_TOOL_NAMES: frozenset[str] = frozenset(TOOL_MODELS)

CONTACT_TOOL_NAMES: frozenset[str] = frozenset(
    {
        _T.LIST_CONTACTS,
        _T.ADD_CONTACT,
        _T.REMOVE_CONTACT,
        _T.LIST_CONTACT_REQUESTS,
        _T.RESPOND_CONTACT_REQUEST,
    }
)
MEMORY_TOOL_NAMES: frozenset[str] = frozenset(
    {_T.LIST_MEMORIES, _T.STORE_MEMORY, _T.GET_MEMORY, _T.SUPERSEDE_MEMORY, _T.ARCHIVE_MEMORY}
)
FILE_TOOL_NAMES: frozenset[str] = frozenset(
    {_T.LIST_ROOM_FILES, _T.READ_ROOM_FILE, _T.SEND_ROOM_FILE}
)
TASK_TOOL_NAMES: frozenset[str] = frozenset(
    {
        _T.LIST_TASKS,
        _T.CREATE_TASK,
        _T.GET_TASK,
        _T.UPDATE_TASK,
        _T.GET_TASK_HISTORY,
        _T.GET_BOARD,
        _T.SET_BOARD,
    }
)
BASE_TOOL_NAMES: frozenset[str] = (
    ALL_TOOL_NAMES - MEMORY_TOOL_NAMES - FILE_TOOL_NAMES - TASK_TOOL_NAMES
)
CHAT_TOOL_NAMES: frozenset[str] = BASE_TOOL_NAMES - CONTACT_TOOL_NAMES
# Tools that only fetch: running them neither answers nor acts.
READ_ONLY_TOOL_NAMES: frozenset[str] = frozenset(
    {
        _T.GET_PARTICIPANTS,
        _T.LOOKUP_PEERS,
        _T.LIST_CONTACTS,
        _T.LIST_CONTACT_REQUESTS,
        _T.LIST_MEMORIES,
        _T.GET_MEMORY,
        _T.LIST_ROOM_FILES,
        _T.READ_ROOM_FILE,
        _T.LIST_TASKS,
        _T.GET_TASK,
        _T.GET_TASK_HISTORY,
        _T.GET_BOARD,
    }
)
EVENT_TOOL_NAMES: frozenset[str] = frozenset({_T.SEND_EVENT})
HUMAN_SURFACE_MEMORY_TOOL_NAMES: frozenset[str] = frozenset(
    f"band_{_snake(m)}" for m in _HUMAN_MEMORIES
)
HUMAN_SURFACE_CONTACT_TOOL_NAMES: frozenset[str] = frozenset(
    f"band_{_snake(m)}" for m in _HUMAN_CONTACTS
)
# Agent tools whose MCP handler takes the room (``chat_id``): AgentTools is room-scoped, so
# an MCP front door adds the field itself.
AGENT_ROOM_BOUND_TOOL_NAMES: frozenset[str] = frozenset(
    {
        _T.SEND_MESSAGE,
        _T.SEND_EVENT,
        _T.ADD_PARTICIPANT,
        _T.REMOVE_PARTICIPANT,
        _T.GET_PARTICIPANTS,
        _T.LOOKUP_PEERS,
        *FILE_TOOL_NAMES,
        *TASK_TOOL_NAMES,
    }
)
_CATEGORIES: dict[str, ToolCategory] = {
    **dict.fromkeys(CHAT_TOOL_NAMES, ToolCategory.CHAT),
    **dict.fromkeys(CONTACT_TOOL_NAMES, ToolCategory.CONTACTS),
    **dict.fromkeys(MEMORY_TOOL_NAMES, ToolCategory.MEMORY),
    **dict.fromkeys(FILE_TOOL_NAMES, ToolCategory.FILES),
    **dict.fromkeys(TASK_TOOL_NAMES, ToolCategory.TASKS),
}
CAPABILITY_TOOL_NAMES: dict[Capability, frozenset[str]] = {
    Capability.MEMORY: MEMORY_TOOL_NAMES | HUMAN_SURFACE_MEMORY_TOOL_NAMES,
    Capability.CONTACTS: CONTACT_TOOL_NAMES | HUMAN_SURFACE_CONTACT_TOOL_NAMES,
    Capability.FILES: FILE_TOOL_NAMES,
    Capability.TASKS: TASK_TOOL_NAMES,
}
# What ``capabilities=None`` means for the tool listings: contacts only (the old default).
DEFAULT_CAPABILITIES: frozenset[Capability] = frozenset({Capability.CONTACTS})


def mcp_tool_spelling(server: str, tool: str) -> str:
    """``<server>-<tool>``: how an MCP client names another server's tool."""
    return f"{server}-{tool}"


def _resolve_mcp_tool_name(tool_name: str, names: Collection[str]) -> str | None:
    """The member of ``names`` behind ``band-<tool>`` (only the Band server's prefix)."""
    if tool_name in names:
        return tool_name
    prefix = mcp_tool_spelling(BAND_MCP_SERVER_NAME, "")
    suffix = tool_name.removeprefix(prefix)
    return suffix if suffix != tool_name and suffix in names else None


def canonicalize_mcp_tool_name(tool_name: str, own_names: Collection[str]) -> str:
    """The tool behind the Band MCP server's ``band-`` spelling; other names unchanged."""
    return _resolve_mcp_tool_name(tool_name, own_names) or tool_name


def classify_room_binding(definition: ToolDefinition) -> tuple[bool, bool]:
    """``(agent tool bound to a room, person's tool bound to a room)`` for a definition."""
    if definition.surface == Surface.AGENT:
        return definition.name in AGENT_ROOM_BOUND_TOOL_NAMES, False
    if definition.surface == Surface.HUMAN:
        return False, CHAT_ID_FIELD_NAME in definition.input_model.model_fields
    return False, False


def band_tool_errored(tool_name: str | None, content: Any) -> bool:
    """Whether a Band tool's answer is its failure text (``"Error ..."``)."""
    return tool_name in ALL_TOOL_NAMES and isinstance(content, str) and content.startswith("Error ")


def withheld_tool_names(capabilities: frozenset[Capability]) -> frozenset[str]:
    """The tools left out when only ``capabilities`` are on."""
    off = [names for cap, names in CAPABILITY_TOOL_NAMES.items() if cap not in capabilities]
    return frozenset().union(*off)


def resolve_capabilities(capabilities: frozenset[Capability] | None) -> frozenset[Capability]:
    """``capabilities``, or ``DEFAULT_CAPABILITIES`` for None."""
    return DEFAULT_CAPABILITIES if capabilities is None else capabilities


def get_band_tool_category(name: str) -> ToolCategory | None:
    """The category of an agent tool (None for any other name)."""
    return _CATEGORIES.get(name)


def mcp_tool_names(names: frozenset[str]) -> list[str]:
    """``mcp__band__<tool>`` for each name, sorted."""
    return [f"{MCP_TOOL_PREFIX}{name}" for name in sorted(names)]


def iter_tool_definitions(
    *,
    surface: Surface | None = Surface.AGENT,
    capabilities: frozenset[Capability] | None = None,
) -> list[ToolDefinition]:
    """The definitions of ``surface`` (None: both) that ``capabilities`` allow."""
    withheld = withheld_tool_names(resolve_capabilities(capabilities))
    return [
        d
        for d in TOOL_DEFINITIONS.values()
        if (surface is None or d.surface == surface) and d.name not in withheld
    ]


def selected_tool_definitions(
    features: AdapterFeatures, *, is_hub_room: bool = False
) -> list[ToolDefinition]:
    """The agent tools an adapter's features allow (the contacts hub room keeps contacts)."""
    capabilities = frozenset(features.capabilities)
    if is_hub_room:
        capabilities |= {Capability.CONTACTS}
    return filter_tool_schemas(
        iter_tool_definitions(capabilities=capabilities),
        features,
        get_name=lambda d: d.name,
        get_category=lambda d: get_band_tool_category(d.name),
    )


class ImageContentBlock(TypedDict):
    """One MCP image block: base64 ``data`` and its ``mimeType``."""

    type: Literal["image"]
    data: str
    mimeType: str


class ImageContentResult(TypedDict):
    """``band_read_room_file``'s answer for an image it can show."""

    content: list[ImageContentBlock]


def is_mcp_content_result(data: Any) -> bool:
    """Whether ``data`` is a non-empty list of complete MCP image blocks."""
    blocks = data.get("content") if isinstance(data, dict) else None
    return (
        isinstance(blocks, list)
        and bool(blocks)
        and all(
            isinstance(b, dict) and b.get("type") == "image" and "data" in b and "mimeType" in b
            for b in blocks
        )
    )


def is_image_passthrough_result(tool_name: str, result: Any) -> bool:
    """Whether ``result`` is ``band_read_room_file``'s image answer."""
    return tool_name == _T.READ_ROOM_FILE and is_mcp_content_result(result)


def image_passthrough_result(tool_name: str, result: Any) -> ImageContentResult | None:
    """``result`` typed as an image answer, or None."""
    if not is_image_passthrough_result(tool_name, result):
        return None
    return cast(ImageContentResult, result)


def image_block_placeholder(block_count: int) -> str:
    """The text that stands for image blocks passed to the model separately."""
    return f"<{block_count} image content block(s)>"


def file_content_placeholder(byte_count: int) -> str:
    """The text a tool-call event shows instead of a file's content."""
    return f"<{byte_count} byte file content>"


def redact_tool_call_args(tool_name: str, args: dict[str, Any]) -> dict[str, Any]:
    """``band_send_room_file``'s arguments with the file content replaced by its size."""
    content = args.get("content") if isinstance(args, dict) else None
    if tool_name != _T.SEND_ROOM_FILE or not isinstance(content, str):
        return args
    return {**args, "content": file_content_placeholder(len(content.encode("utf-8")))}


def decode_image_block(block: Mapping[str, Any]) -> tuple[bytes, str]:
    """``(bytes, mime type)`` of one image block."""
    return base64.b64decode(block["data"]), block["mimeType"]


def decode_image_blocks(result: Mapping[str, Any]) -> list[tuple[bytes, str]]:
    """``(bytes, mime type)`` of every block of an image answer."""
    return [decode_image_block(block) for block in result["content"]]
