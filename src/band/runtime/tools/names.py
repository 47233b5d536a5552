"""Names of the platform tools, their groups and the turn effect of each.

The definitions live in ``registry`` (names and groups) and ``types`` (the vocabulary); this
module adds each tool's ``TurnEffect`` and the name canonicalisation the dispatcher uses.
"""

from __future__ import annotations

from collections.abc import Mapping

from band.core.types import Capability
from band_protocol import TurnEffect

from .registry import (
    ALL_TOOL_NAMES,
    BASE_TOOL_NAMES,
    CHAT_TOOL_NAMES,
    CONTACT_TOOL_NAMES,
    FILE_TOOL_NAMES,
    LEGACY_SEND_MESSAGE_TOOL,
    MCP_TOOL_PREFIX,
    MEMORY_TOOL_NAMES,
    READ_ONLY_TOOL_NAMES,
    TASK_TOOL_NAMES,
    get_band_tool_category,
    mcp_tool_names,
)
from .types import BandTool, ToolCategory

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

LEGACY_NAMES = {LEGACY_SEND_MESSAGE_TOOL: str(BandTool.SEND_MESSAGE)}
TOOL_CATEGORIES: Mapping[str, ToolCategory] = {
    str(t): category for t in BandTool if (category := get_band_tool_category(t)) is not None
}
CATEGORY_OF_CAPABILITY: Mapping[Capability, ToolCategory] = {
    Capability.CONTACTS: ToolCategory.CONTACTS,
    Capability.MEMORY: ToolCategory.MEMORY,
    Capability.FILES: ToolCategory.FILES,
    Capability.TASKS: ToolCategory.TASKS,
}

_T = BandTool
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
    str(t): (
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


def canonical_tool_name(name: str) -> str:
    """Map MCP (``mcp__band__x``, ``band-x``) and legacy spellings to the tool name."""
    if name.startswith(MCP_TOOL_PREFIX):
        name = name[len(MCP_TOOL_PREFIX) :]
    if name.startswith("band-"):
        name = name[len("band-") :]
    return LEGACY_NAMES.get(name, name)


def turn_effect(
    tool_name: str, *, custom_effects: Mapping[str, TurnEffect] | None = None
) -> TurnEffect:
    """The effect a successful call of ``tool_name`` records; Band tools win over custom ones.

    A tool that declared no effect is ``OBSERVE``.
    """
    canonical = canonical_tool_name(tool_name)
    if canonical in TOOL_EFFECTS:
        return TOOL_EFFECTS[canonical]
    if custom_effects and tool_name in custom_effects:
        return custom_effects[tool_name]
    return TurnEffect.OBSERVE
