"""Band's local MCP server under its older import path (code: ``band.integrations.mcp``)."""

from band.integrations.mcp import local_server
from band.integrations.mcp.engine import (
    MCPToolExecutor,
    MCPToolRegistration,
    RoomToolResolver,
    build_band_mcp_tool_registrations,
    build_resolved_band_mcp_tool_registrations,
)
from band.integrations.mcp.local_server import *  # noqa: F403  (its __all__, added below)

__all__ = [
    "MCPToolExecutor",
    "MCPToolRegistration",
    "RoomToolResolver",
    "build_band_mcp_tool_registrations",
    "build_resolved_band_mcp_tool_registrations",
]
__all__ += local_server.__all__
