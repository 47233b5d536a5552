"""Cursor's names for MCP tools, and the words of its room decisions.

Cursor titles an MCP tool call ``<provider>-<tool>: <tool>``; a Band tool is recognised only
when both halves name the same registered tool on the ``band`` server (anything else is
left to the generic MCP reading). The ``/cursor`` room command's words and its messages'
templates are here too.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from band.runtime.tools.registry import (
    BAND_MCP_SERVER_NAME,
    canonicalize_mcp_tool_name,
    mcp_tool_spelling,
)

__all__ = [
    "CURSOR_CLI_BINARY",
    "CURSOR_TITLE_SEPARATOR",
    "ROOM_COMMAND",
    "CursorCommandWord",
    "canonicalize_cursor_tool_name",
    "cursor_mcp_title",
    "is_cursor_band_tool",
]

ROOM_COMMAND = "/cursor"
CURSOR_CLI_BINARY = "agent"
CURSOR_TITLE_SEPARATOR = ": "


class CursorCommandWord(StrEnum):
    """The words after ``/cursor`` in a room."""

    DECISIONS = "decisions"
    SELECT = "select"
    DENY = "deny"
    ACCEPT = "accept"
    REJECT = "reject"
    ANSWER = "answer"


DECISION_NOT_PENDING_TEMPLATE = "Cursor decision `{token}` is not pending."
DECISION_UNAUTHORIZED_MESSAGE = "You may not decide Cursor's requests in this room."
DECISION_RESOLVED_TEMPLATE = "Cursor {kind} decision `{token}` is decided."
DECISION_TIMED_OUT_TEMPLATE = "Cursor {kind} decision `{token}` was not made in time; cancelled."
PERMISSION_REQUESTED_TEMPLATE = (
    "Cursor asks to run `{tool}`. Answer "
    f"`{ROOM_COMMAND} {CursorCommandWord.SELECT} {{token}} <option-id>` or "
    f"`{ROOM_COMMAND} {CursorCommandWord.DENY} {{token}}`. Options: {{options}}"
)
PLAN_REQUESTED_TEMPLATE = (
    "{plan} waits for approval: answer "
    f"`{ROOM_COMMAND} {CursorCommandWord.ACCEPT} {{token}}` or "
    f"`{ROOM_COMMAND} {CursorCommandWord.REJECT} {{token}}`."
)


def cursor_mcp_title(title: str) -> tuple[str, str] | None:
    """``(provider spelling, tool)`` of a ``<spelling>: <tool>`` title; None for any title
    that is not exactly that (blanks, extra colons, equal halves)."""
    spelling, separator, tool = title.partition(CURSOR_TITLE_SEPARATOR)
    if not (separator and spelling and tool) or spelling == tool:
        return None
    both = spelling + tool
    if ":" in both or any(ch.isspace() for ch in both):
        return None
    return spelling, tool


def is_cursor_band_tool(title: str, own_names: Collection[str]) -> bool:
    """The title names one of ``own_names`` on the ``band`` MCP server, in both halves."""
    parsed = cursor_mcp_title(title)
    if parsed is None:
        return False
    spelling, tool = parsed
    return tool in own_names and spelling == mcp_tool_spelling(BAND_MCP_SERVER_NAME, tool)


def canonicalize_cursor_tool_name(name: str, own_names: Collection[str]) -> str:
    """Band's name for a Cursor-titled Band tool; other names as MCP names are read."""
    if is_cursor_band_tool(name, own_names):
        return name.partition(CURSOR_TITLE_SEPARATOR)[2]
    return canonicalize_mcp_tool_name(name, own_names)
