"""The names Claude Code sees Band's tools under: ``mcp__band__<tool>``.

The tools themselves are served to the CLI by the adapter's loopback MCP server ``band``;
these lists name them, for ``allowed_tools`` and permission rules.
"""

from __future__ import annotations

from band.runtime.tools.registry import BASE_TOOL_NAMES, CHAT_TOOL_NAMES, mcp_tool_names

__all__ = ["BAND_BASE_TOOLS", "BAND_CHAT_TOOLS"]

BAND_CHAT_TOOLS: list[str] = mcp_tool_names(CHAT_TOOL_NAMES)
BAND_BASE_TOOLS: list[str] = mcp_tool_names(BASE_TOOL_NAMES)
