"""Band's room tools as a loopback MCP server, for the coding agents that take MCP servers
(ACP agents, Claude Code, OpenCode): one endpoint per room, bound to the running turn.

The one place the coding adapters get that server from. It is the ACP adapter's server for
now; when the shared local MCP server of Band's tools lands (``band.integrations.mcp``),
this module switches to it and no adapter changes.
"""

from __future__ import annotations

from band.adapters.acp.band_mcp import SERVER_NAME, BandMcpServer, RoomBinding

__all__ = ["SERVER_NAME", "BandMcpServer", "RoomBinding"]
