"""``LettaMCPBridge``: Band's tools on a Letta server, through an MCP server registered there.

Self-hosted (the default), the adapter serves the tools itself (one multi-room
``band.integrations.mcp`` server: each tool takes ``chat_id``, and runs on the tools of that
room's turn in progress) and registers it in Letta under a fresh ``band-<suffix>`` name
(Letta keeps deleted names, so one is never reused); a registration is never deleted
(Letta's MCP tools are rows per organization, shared by every registration there). External,
it registers the server at ``server_url`` once. Either way Letta lists the server's tools,
whose ids the adapter attaches to its agents.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from band.core.protocols import AgentToolsProtocol
from band.integrations.mcp import BandMCPBackendSettings, SharedBandMCPBackend
from band.integrations.mcp.local_server import LOCAL_MCP_HTTP_PATH, LOCAL_MCP_SSE_PATH
from band.runtime.tools.definitions import ToolDefinition

from .config import LettaMCPConfig
from .prompts import SEND_EVENT_TOOL_NAMES, SEND_MESSAGE_TOOL_NAMES

__all__ = ["LettaMCPBridge", "bounded_teardown"]

logger = logging.getLogger("band.integrations.letta")
_PATHS = {"sse": LOCAL_MCP_SSE_PATH, "streamable_http": LOCAL_MCP_HTTP_PATH}


async def bounded_teardown(operation: Awaitable[Any], *, timeout_s: float, action: str) -> bool:
    """Run a best-effort teardown call; False (logged) when it failed or took too long."""
    try:
        await asyncio.wait_for(operation, timeout=timeout_s)
    except TimeoutError:
        logger.warning("Gave up after %.1f s trying to %s", timeout_s, action)
    except Exception as exc:
        logger.warning("Could not %s: %s", action, exc)
    else:
        return True
    return False


class LettaMCPBridge:
    """One adapter's Band tools on its Letta server (see the module docstring)."""

    def __init__(
        self,
        config: LettaMCPConfig,
        *,
        tool_definitions: Sequence[ToolDefinition],
        get_tools: Callable[[str], AgentToolsProtocol | None],
        teardown_timeout_s: float,
    ) -> None:
        self._config = config
        self._definitions = list(tool_definitions)
        self._get_tools = get_tools
        self._teardown_timeout_s = teardown_timeout_s
        self.backend = SharedBandMCPBackend(self._settings)
        self.server_id: str | None = None
        self.tool_ids: list[str] = []
        self._url: str | None = None
        self.send_message_tool = SEND_MESSAGE_TOOL_NAMES[0]
        self.send_event_tool = SEND_EVENT_TOOL_NAMES[0]

    @property
    def ready(self) -> bool:
        """Registered, its tools listed, and (self-hosted) its server still running there."""
        if self.server_id is None:
            return False
        backend = self.backend.current
        if self._config.mode == "external":
            return True
        return backend is not None and backend.is_running and self._url == self._served(backend)

    @property
    def silent_reporting_tools(self) -> frozenset[str]:
        """Tools whose calls are not reported as events (their result is already visible)."""
        return frozenset({self.send_message_tool, self.send_event_tool})

    async def ensure_ready(self, client: Any) -> None:
        """Serve (self-hosted) and register the tools; a no-op once ready."""
        if self.ready:
            return
        if self._config.mode == "external":
            name = self._config.server_name or "band"
            await self.register(client, server_name=name, server_url=self._config.server_url)
            return
        backend = await self.backend.ensure()
        url = self._served(backend)
        if self.server_id is not None:  # a replaced server: point the registration at it
            await client.mcp_servers.update(self.server_id, config=self._registration(url))
            self._url = url
            return
        name = self._config.server_name or f"band-{uuid.uuid4().hex[:8]}"
        await self.register(client, server_name=name, server_url=url)

    async def register(self, client: Any, *, server_name: str, server_url: str) -> None:
        """Register (or adopt, by name) the server at ``server_url`` and list its tools."""
        try:
            server = await self._find(client, server_name)
            if server is not None and _registered_url(server) not in (None, server_url):
                raise RuntimeError(
                    f"the Letta MCP registration {server_name!r} points at "
                    f"{_registered_url(server)!r}, not {server_url!r}; remove it or use "
                    "another server_name"
                )
            if server is None:
                server = await client.mcp_servers.create(
                    server_name=server_name, config=self._registration(server_url)
                )
            tools = list(await client.mcp_servers.tools.list(mcp_server_id=server.id))
        except Exception as exc:
            raise RuntimeError(
                f"Registering Band's MCP server in Letta failed (Letta must reach it at "
                f"{server_url}): {exc}"
            ) from exc
        names = {str(t.name) for t in tools}
        self.tool_ids = [str(t.id) for t in tools if getattr(t, "id", None)]
        self.send_message_tool = next(
            (n for n in SEND_MESSAGE_TOOL_NAMES if n in names), SEND_MESSAGE_TOOL_NAMES[0]
        )
        self.send_event_tool = next(
            (n for n in SEND_EVENT_TOOL_NAMES if n in names), SEND_EVENT_TOOL_NAMES[0]
        )
        self.server_id, self._url = str(server.id), server_url
        logger.info("Letta MCP server %s: %d Band tools", server_name, len(self.tool_ids))

    async def release(self, client: Any = None) -> None:
        """Forget the registration (kept in Letta; see the module docstring)."""
        if self._config.mode != "external":
            self.server_id, self.tool_ids = None, []

    async def close(self) -> None:
        """Stop the self-hosted server."""
        await self.backend.close(final=True)

    def advertised_url(self, port: int) -> str:
        """The URL Letta dials for the self-hosted server."""
        host = self._config.advertised_host or self._config.bind_host
        if host in ("0.0.0.0", "::"):  # nosec B104 # compares with the wildcards, binds nothing
            host = "127.0.0.1"  # a listening wildcard is no address to dial
        return f"http://{host}:{port}{_PATHS[self._config.transport]}"

    def _served(self, backend: Any) -> str:
        return self.advertised_url(backend.local_server.port)

    def _registration(self, url: str) -> dict[str, str]:
        return {"mcp_server_type": self._config.transport, "server_url": url}

    def _settings(self) -> BandMCPBackendSettings:
        return BandMCPBackendSettings(
            tool_definitions=self._definitions,
            get_tools=self._get_tools,
            host=self._config.bind_host,
            port_min=0,
            port_max=0,
        )

    @staticmethod
    async def _find(client: Any, name: str) -> Any:
        for server in await client.mcp_servers.list():
            if getattr(server, "server_name", None) == name:
                return server
        return None


def _registered_url(server: Any) -> str | None:
    config = getattr(server, "config", None)
    url = getattr(config, "server_url", None) or getattr(server, "server_url", None)
    if url is None and isinstance(config, dict):
        url = config.get("server_url")
    return str(url) if url else None
