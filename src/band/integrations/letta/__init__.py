"""Letta: configuration, Band's tools on a Letta server (MCP), the agent's instructions, its
rooms and what its answers say.

The adapter is ``band.adapters.letta.LettaAdapter`` (``pip install 'openband[letta]'``).
"""

from .config import LettaAdapterConfig, LettaMCPConfig, MCPTransport
from .mcp import LettaMCPBridge, bounded_teardown
from .prompts import SEND_EVENT_TOOL_NAMES, SEND_MESSAGE_TOOL_NAMES, render_tool_enforcement

__all__ = [
    "SEND_EVENT_TOOL_NAMES",
    "SEND_MESSAGE_TOOL_NAMES",
    "LettaAdapterConfig",
    "LettaMCPBridge",
    "LettaMCPConfig",
    "MCPTransport",
    "bounded_teardown",
    "render_tool_enforcement",
]
