"""How an ACP client reaches its agent: the connection's shape, and a TCP endpoint dialled
through the same seam a spawned process uses.

``ACPRuntime`` opens its agent with a *spawn* callable ``(client, *command, env=...,
transport_kwargs=...)`` returning an async context manager of ``(connection, transport)``;
``acp.spawn_agent_process`` is one, :func:`tcp_spawn_process` another (no process: it
dials ``host:port``; the command and environment are ignored).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

__all__ = [
    "ACP_STDIO_LIMIT_BYTES",
    "ACPConnectionProtocol",
    "ACPSpawnContextProtocol",
    "tcp_spawn_process",
]

logger = logging.getLogger(__name__)
ACP_STDIO_LIMIT_BYTES = 16 * 1024 * 1024


def tcp_spawn_process(
    host: str, port: int, *, limit: int = ACP_STDIO_LIMIT_BYTES
) -> Callable[..., AbstractAsyncContextManager[tuple[object, object]]]:
    """A spawn callable that connects to an ACP agent listening on ``host:port``; the
    transport it yields is the stream writer, closed (with the connection) on exit."""
    from acp import connect_to_agent

    @asynccontextmanager
    async def dial(
        client: Any, *command: object, **options: object
    ) -> AsyncIterator[tuple[object, object]]:
        reader, writer = await asyncio.open_connection(host, port, limit=limit)
        conn = connect_to_agent(client, writer, reader)
        try:
            yield conn, writer
        finally:
            try:
                await conn.close()
            finally:
                writer.close()
                try:
                    await writer.wait_closed()
                except Exception:
                    logger.debug("Closing the ACP TCP connection failed", exc_info=True)

    return dial


class ACPConnectionProtocol(Protocol):
    """What a client calls on its agent connection (``acp.ClientSideConnection`` is one)."""

    async def initialize(self, *, protocol_version: int) -> object: ...

    async def authenticate(self, *, method_id: str) -> object: ...

    async def new_session(self, *, cwd: str, mcp_servers: list[object]) -> Any: ...

    async def load_session(
        self, *, cwd: str, session_id: str, mcp_servers: list[object]
    ) -> Any: ...

    async def prompt(self, *, session_id: str, prompt: list[object]) -> object: ...

    async def set_config_option(self, *, config_id: str, session_id: str, value: str) -> Any: ...

    async def close_session(self, session_id: str) -> object: ...

    async def cancel(self, session_id: str) -> None: ...


class ACPSpawnContextProtocol(Protocol):
    """What a spawn callable returns: entered, the connection and its transport."""

    async def __aenter__(self) -> tuple[ACPConnectionProtocol, object]: ...

    async def __aexit__(self, exc_type: object, exc: object, tb: object) -> object: ...
