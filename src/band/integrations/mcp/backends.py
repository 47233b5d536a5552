"""The shared Band MCP backend: one ``LocalMCPServer`` of Band's tools for an adapter.

``SharedBandMCPBackend`` starts it on first use (``ensure()``), starts a new one on another
port when it died, and refuses to start again once closed for good, so a message still
queued at shutdown cannot leave a server behind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Self

from band.runtime.custom_tools import CustomToolDef, get_custom_tool_name
from band.runtime.tools.definitions import ToolDefinition
from band.runtime.tools.names import MCP_TOOL_PREFIX

from .engine import RoomToolResolver, build_resolved_band_mcp_tool_registrations
from .local_server import LOCAL_MCP_HOST, LOCAL_MCP_PORT_MAX, LOCAL_MCP_PORT_MIN, LocalMCPServer

__all__ = [
    "BAND_MCP_SERVER_NAME",
    "BandMCPBackend",
    "BandMCPBackendSettings",
    "BandMCPBackendStoppedError",
    "BandMCPTransport",
    "SharedBandMCPBackend",
    "create_band_mcp_backend",
]

logger = logging.getLogger("band.integrations.mcp")
BAND_MCP_SERVER_NAME = "band"


class BandMCPTransport(StrEnum):
    """The transports every Band MCP server serves."""

    HTTP = "http"
    SSE = "sse"


class BandMCPBackendStoppedError(RuntimeError):
    """``ensure()`` after the backend was closed for good."""


@dataclass(frozen=True)
class BandMCPBackend:
    """A running Band MCP server and the MCP names (``mcp__band__<tool>``) of its tools.

    Never restarted: its URLs name this one server for its whole life.
    """

    allowed_tools: list[str]
    local_server: LocalMCPServer

    @property
    def is_running(self) -> bool:
        return self.local_server.is_running

    def endpoint(self, transport: BandMCPTransport, room_id: str | None = None) -> str:
        """The URL a client dials: the room's (room-bound server) or the multi-room one.

        ValueError when ``room_id`` does not match how the server was built.
        """
        server = self.local_server
        if BandMCPTransport(transport) is BandMCPTransport.HTTP:
            return server.http_url if room_id is None else server.room_http_url(room_id)
        return server.sse_url if room_id is None else server.room_sse_url(room_id)

    async def stop(self) -> None:
        await self.local_server.stop()


@dataclass(frozen=True)
class BandMCPBackendSettings:
    """What an adapter's Band MCP server serves, and where.

    ``room_bound``: one endpoint per room, its tools without ``chat_id``; otherwise one
    endpoint whose tools route by a required ``chat_id``. ``port_min=0``: any free port.
    """

    tool_definitions: Sequence[ToolDefinition]
    get_tools: RoomToolResolver
    additional_tools: Sequence[CustomToolDef] = ()
    room_bound: bool = False
    host: str = LOCAL_MCP_HOST
    port_min: int = LOCAL_MCP_PORT_MIN
    port_max: int = LOCAL_MCP_PORT_MAX


def allowed_tool_names(
    definitions: Sequence[ToolDefinition], additional_tools: Sequence[CustomToolDef]
) -> list[str]:
    """The served tools as MCP clients name them (``mcp__band__<tool>``)."""
    names = [d.name for d in definitions] + [get_custom_tool_name(m) for m, _ in additional_tools]
    return [MCP_TOOL_PREFIX + name for name in names]


async def create_band_mcp_backend(
    settings: BandMCPBackendSettings, *, avoid_port: int | None = None
) -> BandMCPBackend:
    """Start a Band MCP server as ``settings`` say."""
    extra = list(settings.additional_tools)
    server = LocalMCPServer(
        BAND_MCP_SERVER_NAME,
        build_resolved_band_mcp_tool_registrations(
            get_tools=settings.get_tools,
            additional_tools=extra,
            tool_definitions=settings.tool_definitions,
            room_from_connection=settings.room_bound,
        ),
        host=settings.host,
        port_min=settings.port_min,
        port_max=settings.port_max,
        room_bound=settings.room_bound,
        avoid_port=avoid_port,
    )
    await server.start()
    return BandMCPBackend(allowed_tool_names(settings.tool_definitions, extra), server)


class SharedBandMCPBackend:
    """An adapter's Band MCP backend over its life (see the module docstring).

    ``settings`` is called at every start: capabilities, and with them the tools, are
    settled only when the agent starts.
    """

    def __init__(self, settings: Callable[[], BandMCPBackendSettings]) -> None:
        self._settings = settings
        self._backend: BandMCPBackend | None = None
        self._closed = False
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close(final=True)

    @property
    def current(self) -> BandMCPBackend | None:
        """The backend serving now, if any."""
        return self._backend

    async def ensure(self) -> BandMCPBackend:
        """The running backend: started on first use, replaced if its server died."""
        async with self._lock:
            if self._closed:
                raise BandMCPBackendStoppedError("the Band MCP backend was closed")
            backend = self._backend
            if backend is None or not backend.is_running:
                avoid = None
                if backend is not None:
                    avoid = backend.local_server.port
                    logger.warning("Band MCP server on port %d died; starting another", avoid)
                    await backend.stop()
                backend = await create_band_mcp_backend(self._settings(), avoid_port=avoid)
                self._backend = backend
            return backend

    async def detach(self, *, final: bool) -> BandMCPBackend | None:
        """Hand the backend over (the caller stops it); ``final`` refuses later ``ensure()``."""
        async with self._lock:
            self._closed = self._closed or final
            backend, self._backend = self._backend, None
            return backend

    async def close(self, *, final: bool) -> None:
        """Stop the backend; ``final`` also refuses later ``ensure()`` until ``reopen()``."""
        backend = await self.detach(final=final)
        if backend is not None:
            await backend.stop()

    async def reopen(self) -> None:
        """Accept ``ensure()`` again after a final close (an agent starting again)."""
        async with self._lock:
            self._closed = False
