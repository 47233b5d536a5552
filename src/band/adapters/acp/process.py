"""A room's ACP agent process: spawned in its own process group, initialised, closed."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from band.adapters._coding.child import ChildProcess, spawn_child
from band.adapters._coding.supervisor import TransportClosed

if TYPE_CHECKING:
    from band.adapters._coding.base import Prompt

    from .config import ACPClientAdapterConfig

__all__ = ["INSTALL_HINT", "STDIO_LIMIT", "ACPProcess", "TurnClient", "require_acp"]

INSTALL_HINT = "ACPClientAdapter needs the ACP SDK: pip install 'openband[acp]'"
STDIO_LIMIT = 50 * 1024 * 1024


def require_acp() -> Any:
    """The ``acp`` module; ImportError naming the extra when it (or ``mcp``) is missing."""
    try:
        import acp
        import mcp  # noqa: F401  (the Band MCP server needs it)
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    return acp


class TurnClient(Protocol):
    """The ``acp.Client`` answering a room's agent, as a turn drives it (``client.RoomClient``)."""

    prompt: Prompt | None

    async def flush_thought(self) -> None: ...


class ACPProcess:
    """A room's ACP agent: the connection, its child process and the room's session."""

    def __init__(self, room_id: str, workspace: Path, client: TurnClient) -> None:
        self.room_id = room_id
        self.workspace = workspace
        self.client = client
        self.conn: Any = None
        self.child: ChildProcess | None = None
        self.session_id: str | None = None
        self.mcp_url: str | None = None
        self.can_load = False
        self.config_options: list[Any] = []

    @property
    def alive(self) -> bool:
        return self.child is not None and self.child.running

    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child is not None else None

    @property
    def exit_description(self) -> str:
        if self.child is None:
            return "not started"
        return "running" if self.child.running else self.child.exit_description

    async def start(self, config: ACPClientAdapterConfig, capabilities: Any = None) -> None:
        acp = require_acp()
        from acp.schema import ClientCapabilities, Implementation
        from acp.transports import default_environment

        env = {**default_environment(), **(config.env or {})}
        self.child = await spawn_child(
            config.command, cwd=str(self.workspace), env=env, label="ACP agent", limit=STDIO_LIMIT
        )
        proc = self.child.proc
        assert proc.stdin is not None and proc.stdout is not None  # nosec B101 # narrows for mypy: spawned with both pipes
        self.conn = acp.connect_to_agent(
            self.client, proc.stdin, proc.stdout, use_unstable_protocol=config.use_unstable_protocol
        )
        init = await self.call(
            self.conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=capabilities or ClientCapabilities(),
                client_info=Implementation(name="band", version="0.1.0"),
            )
        )
        self.can_load = bool(init.agent_capabilities and init.agent_capabilities.load_session)
        if config.auth_method:
            await self.call(self.conn.authenticate(method_id=config.auth_method))

    async def call(self, work: Any, limit: float | None = None) -> Any:
        """Await an ACP request; TransportClosed if the process dies first, None on timeout."""
        assert self.child is not None  # nosec B101 # narrows for mypy: called after start
        request = asyncio.ensure_future(work)
        exited = asyncio.create_task(self.child.proc.wait())
        try:
            done, _ = await asyncio.wait(
                {request, exited}, timeout=limit, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            exited.cancel()
        if request in done:
            try:
                return request.result()
            except ConnectionError as exc:  # the agent's output ended under the request
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.child.proc.wait(), 5)
                raise TransportClosed(f"the ACP agent went away ({self.exit_description})") from exc
        request.cancel()
        with contextlib.suppress(BaseException):
            await request
        if exited in done:
            raise TransportClosed(f"the ACP agent exited ({self.exit_description})")
        return None

    async def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.close()
        if self.child is not None:
            await self.child.stop()
