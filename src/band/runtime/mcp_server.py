"""Band's local MCP server under its older import path (code: ``band.integrations.mcp``)."""

from band.integrations.mcp.engine import (
    MCPToolExecutor,
    MCPToolRegistration,
    RoomToolResolver,
    build_band_mcp_tool_registrations,
    build_resolved_band_mcp_tool_registrations,
)
from band.integrations.mcp.local_server import (
    LOCAL_MCP_HEALTH_PATH,
    LOCAL_MCP_HOST,
    LOCAL_MCP_HTTP_PATH,
    LOCAL_MCP_MESSAGE_PATH,
    LOCAL_MCP_PORT_MAX,
    LOCAL_MCP_PORT_MIN,
    LOCAL_MCP_SSE_PATH,
    SERVER_START_TIMEOUT_S,
    SERVER_STOP_TIMEOUT_S,
    EmbeddedUvicornServer,
    LocalMCPServer,
)

__all__ = [
    "LOCAL_MCP_HEALTH_PATH",
    "LOCAL_MCP_HOST",
    "LOCAL_MCP_HTTP_PATH",
    "LOCAL_MCP_MESSAGE_PATH",
    "LOCAL_MCP_PORT_MAX",
    "LOCAL_MCP_PORT_MIN",
    "LOCAL_MCP_SSE_PATH",
    "SERVER_START_TIMEOUT_S",
    "SERVER_STOP_TIMEOUT_S",
    "EmbeddedUvicornServer",
    "LocalMCPServer",
    "MCPToolExecutor",
    "MCPToolRegistration",
    "RoomToolResolver",
    "build_band_mcp_tool_registrations",
    "build_resolved_band_mcp_tool_registrations",
]
