"""``LocalMCPServer``: an MCP server on loopback serving both transports, SSE and streamable HTTP.

A multi-room server answers at ``/sse`` (with ``/messages/``) and ``/mcp``; a room-bound one
answers the same paths under ``/rooms/<room_id>/``, and its tools take their room from there.
``/healthz`` says ``ok``. The port is bound before uvicorn starts (from a random point of
``port_min..port_max``, or the OS's choice when ``port_min`` is 0), so a start never races
another process for it. Signals stay with the host process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from typing import Any, Self
from urllib.parse import quote

try:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import BaseRoute, Mount, Route
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "Band's MCP server needs mcp, starlette and uvicorn: pip install 'openband[acp]' "
        "(the letta extra brings them too)"
    ) from exc

from band.integrations.uvicorn_server import (
    SERVER_START_TIMEOUT_S,
    SERVER_STOP_TIMEOUT_S,
    EmbeddedUvicornServer,
    ManagedUvicornServer,
)

from .engine import (
    ROOM_PATH_PARAM,
    EngineSpec,
    MCPToolRegistration,
    build_engine,
    validate_unique_tool_names,
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
]

logger = logging.getLogger("band.integrations.mcp")

LOCAL_MCP_HOST = "127.0.0.1"
LOCAL_MCP_PORT_MIN = 50000
LOCAL_MCP_PORT_MAX = 60000
LOCAL_MCP_SSE_PATH = "/sse"
LOCAL_MCP_HTTP_PATH = "/mcp"
LOCAL_MCP_MESSAGE_PATH = "/messages/"
LOCAL_MCP_HEALTH_PATH = "/healthz"
LOCAL_MCP_ROOMS_PATH = "/rooms"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def _security(host: str) -> Any:
    """DNS-rebinding protection for a loopback server: only loopback Host/Origin headers."""
    if host not in LOOPBACK:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


class LocalMCPServer:
    """A local MCP server for ``tool_registrations`` (see the module docstring).

    ``host`` other than loopback (a client in a container) exposes the tools to that network:
    opt in only on a trusted host. Use as ``async with`` or ``start()`` / ``stop()``.
    """

    def __init__(
        self,
        name: str,
        tool_registrations: Sequence[MCPToolRegistration],
        *,
        host: str = LOCAL_MCP_HOST,
        port_min: int = LOCAL_MCP_PORT_MIN,
        port_max: int = LOCAL_MCP_PORT_MAX,
        sse_path: str = LOCAL_MCP_SSE_PATH,
        http_path: str = LOCAL_MCP_HTTP_PATH,
        message_path: str = LOCAL_MCP_MESSAGE_PATH,
        room_bound: bool = False,
        avoid_port: int | None = None,
    ) -> None:
        if port_min > port_max:
            raise ValueError("port_min must be less than or equal to port_max")
        self._registrations = list(tool_registrations)
        validate_unique_tool_names(self._registrations)
        self._name = name
        self._host = host
        self._port_range = (port_min, port_max)
        self._paths = (sse_path, http_path, message_path)
        self._room_bound = room_bound
        self._avoid_port = avoid_port
        self._lock = asyncio.Lock()
        self._server: ManagedUvicornServer | None = None
        self._socket: socket.socket | None = None
        self._port: int | None = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # -- addresses ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port of the last start (kept after a stop, so handed-out URLs still read right)."""
        if self._port is None:
            raise RuntimeError("Local MCP server has not started")
        return self._port

    @property
    def url(self) -> str:
        return self.sse_url

    @property
    def sse_url(self) -> str:
        return f"{self._origin(None)}{self._paths[0]}"

    @property
    def http_url(self) -> str:
        return f"{self._origin(None)}{self._paths[1]}"

    def room_sse_url(self, room_id: str) -> str:
        return f"{self._origin(room_id)}{self._paths[0]}"

    def room_http_url(self, room_id: str) -> str:
        return f"{self._origin(room_id)}{self._paths[1]}"

    def _origin(self, room_id: str | None) -> str:
        if self._room_bound != (room_id is not None):
            how = "room_http_url/room_sse_url" if self._room_bound else "http_url/sse_url"
            kind = "room-bound" if self._room_bound else "multi-room"
            raise ValueError(f"Local MCP server {self._name} is {kind}; address it with {how}")
        host = f"[{self._host}]" if ":" in self._host else self._host
        origin = f"http://{host}:{self.port}"
        if room_id is None:
            return origin
        return f"{origin}{LOCAL_MCP_ROOMS_PATH}/{quote(room_id, safe='')}"

    @property
    def is_running(self) -> bool:
        """False once the serve task ended, by a stop or a crash."""
        return self._server is not None and self._server.is_running

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the port and serve; returns once uvicorn accepts connections."""
        async with self._lock:
            if self.is_running:
                return
            self._socket, self._port = self._reserve_socket()
            self._server = ManagedUvicornServer(
                self._build_app(), host=self._host, port=self._port, sock=self._socket
            )
            try:
                await self._server.start()
            except BaseException:
                await self._stop_locked()
                raise
        logger.info(
            "MCP server %s on %s:%d (%d tools)",
            self._name,
            self._host,
            self._port,
            len(self._registrations),
        )

    async def stop(self) -> None:
        """Stop serving and close the port; safe to call twice."""
        async with self._lock:
            await self._stop_locked()

    async def _stop_locked(self) -> None:
        try:
            if self._server is not None:
                await self._server.stop()
        finally:
            if self._socket is not None:
                self._socket.close()
            self._server = None
            self._socket = None

    # -- the ASGI app ------------------------------------------------------------------------

    def _build_app(self) -> Any:
        sse_path, http_path, message_path = self._paths
        engine = build_engine(
            EngineSpec(self._name, tuple(self._registrations)),
            host=self._host,
            transport_security=_security(self._host),
            sse_path=sse_path,
            message_path=message_path,
            streamable_http_path=http_path,
        )
        engine.settings.stateless_http = True  # each request stands alone: no session state
        engine.settings.json_response = True
        routes: list[BaseRoute] = [
            *engine.sse_app().routes,
            *engine.streamable_http_app().routes,
        ]
        if self._room_bound:
            routes = [Mount(f"{LOCAL_MCP_ROOMS_PATH}/{{{ROOM_PATH_PARAM}}}", routes=routes)]

        @contextlib.asynccontextmanager
        async def lifespan(_: Any) -> AsyncIterator[None]:
            async with engine.session_manager.run():
                yield

        async def healthz(_: Any) -> Any:
            return PlainTextResponse("ok")

        health = Route(LOCAL_MCP_HEALTH_PATH, endpoint=healthz, methods=["GET"])
        return Starlette(routes=[*routes, health], lifespan=lifespan)

    # -- the port ----------------------------------------------------------------------------

    def _reserve_socket(self) -> tuple[socket.socket, int]:
        low, high = self._port_range
        candidates = [0] if low == 0 else self._candidate_ports(low, high)
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        last: OSError | None = None
        for port in candidates:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((self._host, port))
            except OSError as exc:
                last = exc
                sock.close()
                continue
            sock.listen(2048)
            sock.setblocking(False)
            return sock, int(sock.getsockname()[1])
        raise RuntimeError(f"No free port for the MCP server in {low}-{high}") from last

    def _candidate_ports(self, low: int, high: int) -> list[int]:
        """Every port of the range from a random start (a just-freed port is not reused
        first: a client of its old server may still be talking to it); ``avoid_port`` last."""
        span = high - low + 1
        start = random.randrange(span)  # nosec B311 # an order of ports, no secret
        ports = [low + (start + i) % span for i in range(span)]
        return sorted(ports, key=lambda port: port == self._avoid_port)
