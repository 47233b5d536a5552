"""Band's room tools as a loopback MCP server for the coding agents that take MCP servers (ACP
agents, Claude Code, OpenCode): the shared MCP server (``band.integrations.mcp``), room-bound.
It needs no agent's SDK: Claude Code and OpenCode use it without the ACP extra.

``/rooms/<room>/mcp`` serves the tools of that room only: each prompt binds the room to the
current turn's tools, so a call always runs on (and is judged in) the turn it belongs to.
An ACP agent gets the room's URL in ``session/new`` as an ``http`` MCP server named ``band``;
the other coding agents get it in their own configuration.
Contacts tools are always served (the agent may be asked to manage them from any room).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability
from band.runtime.custom_tools import CustomToolDef
from band.runtime.tools.definitions import iter_tool_definitions

__all__ = ["SERVER_NAME", "BandMcpServer", "RoomBinding", "ServedTools", "require_with_mcp"]

SERVER_NAME = "band"
ServedTools = Callable[[], tuple[frozenset[Capability], Sequence[CustomToolDef]]]


def require_with_mcp(module: str, install_hint: str) -> Any:
    """The agent's SDK ``module``, which must come with ``mcp`` (Band's tools reach the agent
    over MCP); ImportError saying ``install_hint`` (the extra to install) when either is
    missing."""
    try:
        sdk = importlib.import_module(module)
        importlib.import_module("mcp")
    except ImportError:
        raise ImportError(install_hint) from None
    return sdk


@dataclass
class RoomBinding:
    """The tools one room's MCP endpoint runs right now (the room's current turn)."""

    tools: AgentToolsProtocol


class BandMcpServer:
    """The room-bound Band MCP server of one ACP adapter; ``url(room)`` is a room's endpoint.

    ``served`` says, when the server starts, which capabilities and custom tools it lists.
    """

    def __init__(self, served: ServedTools) -> None:
        from band.integrations.mcp import BandMCPBackendSettings, SharedBandMCPBackend

        self.bindings: dict[str, RoomBinding] = {}
        self._served = served

        def settings() -> BandMCPBackendSettings:
            capabilities, custom = self._served()
            definitions = iter_tool_definitions(capabilities={*capabilities, Capability.CONTACTS})
            return BandMCPBackendSettings(
                tool_definitions=definitions,
                get_tools=self._tools_of,
                additional_tools=tuple(custom),
                room_bound=True,
                port_min=0,
                port_max=0,
            )

        self._backend = SharedBandMCPBackend(settings)

    @property
    def port(self) -> int:
        backend = self._backend.current
        return backend.local_server.port if backend is not None else 0

    def url(self, room_id: str) -> str:
        from band.integrations.mcp import BandMCPTransport

        backend = self._backend.current
        if backend is None:
            raise RuntimeError("the Band MCP server has not started")
        return backend.endpoint(BandMCPTransport.HTTP, room_id)

    def _tools_of(self, room_id: str) -> AgentToolsProtocol | None:
        binding = self.bindings.get(room_id)
        return binding.tools if binding is not None else None

    async def start(self) -> None:
        """Start the server (again, if it died); a no-op while it runs."""
        await self._backend.ensure()

    async def close(self) -> None:
        await self._backend.close(final=False)
