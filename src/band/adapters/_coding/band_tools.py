"""Band's room tools as a loopback MCP server, for the coding agents that take MCP servers
(ACP agents, Claude Code, OpenCode): one endpoint per room, bound to the running turn.

The one place the coding adapters get that server from: the ACP adapter's room-bound server,
itself on the shared MCP server of Band's tools (``band.integrations.mcp``).
"""

from __future__ import annotations

from band.adapters.acp.band_mcp import SERVER_NAME, BandMcpServer, RoomBinding

__all__ = ["SERVER_NAME", "BandMcpServer", "RoomBinding"]
