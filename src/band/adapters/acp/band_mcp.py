"""Band's room tools as one loopback MCP server (streamable HTTP), one endpoint per room.

``/rooms/<room>/mcp`` serves the tools of that room only: each prompt binds the room to the
current turn's tools, so a call always runs on (and is judged in) the turn it belongs to.
An ACP agent gets the room's URL in ``session/new`` as an ``http`` MCP server named ``band``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from band.adapters._tool_events import run_band_tool
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas

__all__ = ["BandMcpServer", "RoomBinding"]

logger = logging.getLogger("band.adapters.acp.mcp")
SERVER_NAME = "band"
_ROOM: contextvars.ContextVar[str] = contextvars.ContextVar("band_mcp_room", default="")
Scope = MutableMapping[str, Any]


@dataclass
class RoomBinding:
    """The tools one room's MCP endpoint serves right now."""

    tools: AgentToolsProtocol
    capabilities: frozenset[Capability]
    custom_tools: Sequence[CustomToolDef]


class BandMcpServer:
    """The loopback MCP server of one adapter; ``url(room)`` is a room's endpoint."""

    def __init__(self) -> None:
        self.bindings: dict[str, RoomBinding] = {}
        self.port = 0
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._manager: Any = None

    def url(self, room_id: str) -> str:
        return f"http://127.0.0.1:{self.port}/rooms/{room_id}/mcp"

    async def start(self) -> None:
        if self._task is not None:
            return
        import uvicorn
        from mcp.server.lowlevel import Server
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        mcp: Any = Server(SERVER_NAME)
        mcp.list_tools()(self._list_tools)
        mcp.call_tool(validate_input=False)(self._call_tool)
        self._manager = StreamableHTTPSessionManager(app=mcp, stateless=True, json_response=True)
        config = uvicorn.Config(
            self._asgi, host="127.0.0.1", port=0, log_level="warning", interface="asgi3"
        )
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._serve(self._manager, self._server))
        while not self._server.started:
            if self._task.done():
                await self._task
                raise RuntimeError("the Band MCP server did not start")
            await asyncio.sleep(0.01)
        self.port = int(self._server.servers[0].sockets[0].getsockname()[1])
        logger.info("Band MCP server on 127.0.0.1:%d", self.port)

    @staticmethod
    async def _serve(manager: Any, server: Any) -> None:
        # One task enters and leaves the manager's task group (anyio requires it).
        async with manager.run():
            await server.serve()

    async def close(self) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 10)
        self._task = self._server = self._manager = None

    async def _asgi(self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        parts = str(scope.get("path", "")).strip("/").split("/")
        if scope["type"] != "http" or len(parts) != 3 or parts[0] != "rooms" or parts[2] != "mcp":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b"not found"})
            return
        token = _ROOM.set(parts[1])
        try:
            await self._manager.handle_request(scope, receive, send)
        finally:
            _ROOM.reset(token)

    def _binding(self) -> RoomBinding:
        binding = self.bindings.get(_ROOM.get())
        if binding is None:
            raise ValueError("this room has no running turn; its Band tools are unavailable")
        return binding

    async def _list_tools(self) -> list[Any]:
        from mcp import types

        binding = self._binding()
        schemas = binding.tools.get_tool_schemas("openai", capabilities=binding.capabilities)
        schemas += custom_tools_to_schemas(binding.custom_tools, "openai")
        return [
            types.Tool(
                name=s["function"]["name"],
                description=s["function"].get("description", ""),
                inputSchema=s["function"].get("parameters") or {"type": "object"},
            )
            for s in schemas
        ]

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        from mcp import types

        binding = self._binding()
        output, is_error = await run_band_tool(
            binding.tools, name, dict(arguments or {}), binding.custom_tools
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=output)], isError=is_error
        )
