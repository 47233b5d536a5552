"""``McpCodingAgentAdapter``: a coding agent adapter whose agent reaches Band's tools over the
room-bound MCP server (ACP agents, Claude Code, OpenCode).

The server's life in one place: made with the adapter (serving its capabilities and custom
tools), a room's binding dropped when the room is cleaned up, closed after everything else at
``cleanup_all``. A subclass starts it before its agent needs it and binds a room to the turn's
tools while a prompt runs.
"""

from __future__ import annotations

from typing import Any

from band._signatures import same_parameters_as

from .band_tools import BandMcpServer
from .base import CodingAgentAdapter, P

__all__ = ["McpCodingAgentAdapter"]


class McpCodingAgentAdapter(CodingAgentAdapter[P]):
    """``CodingAgentAdapter`` plus ``mcp``, the Band MCP server of its agent."""

    @same_parameters_as(CodingAgentAdapter.__init__)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mcp = BandMcpServer(lambda: (self.features.capabilities, self.additional_tools))

    async def on_cleanup(self, room_id: str) -> None:
        await super().on_cleanup(room_id)
        self.mcp.bindings.pop(room_id, None)

    async def cleanup_all(self) -> None:
        await super().cleanup_all()
        await self.mcp.close()
