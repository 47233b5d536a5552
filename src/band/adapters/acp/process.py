"""A room's ACP agent: an ``ACPRuntime`` whose agent runs as the leader of its own process
group (so it dies whole, wrappers and all), with the room's session on it.

The runtime (``band.integrations.acp.client_runtime``) initialises the agent, drains its
stderr and runs the session calls; this adds the room's state (session id, the Band MCP
URL it was opened with) and :meth:`ACPProcess.call`, which also notices the agent exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from band.adapters._coding.band_tools import require_with_mcp
from band.adapters._coding.child import ChildProcess, describe_exit, spawn_child
from band.adapters._coding.supervisor import TransportClosed
from band.integrations.acp.client_runtime import ACPRuntime
from band.integrations.acp.client_types import RoomSession
from band.integrations.acp.collecting import ACPCollectingClient
from band.integrations.acp.session_config import SessionConfigOption

if TYPE_CHECKING:
    from .config import ACPClientAdapterConfig

__all__ = ["INSTALL_HINT", "STDIO_LIMIT", "ACPProcess", "require_acp"]

INSTALL_HINT = "ACPClientAdapter needs the ACP SDK: pip install 'openband[acp]'"
STDIO_LIMIT = 50 * 1024 * 1024


def require_acp() -> Any:
    """The ``acp`` module; ImportError naming the extra when it (or ``mcp``) is missing."""
    return require_with_mcp("acp", INSTALL_HINT)


class ACPProcess:
    """A room's ACP agent: its runtime, its child process and the room's session."""

    def __init__(
        self, room_id: str, workspace: Path, client: Callable[[], ACPCollectingClient]
    ) -> None:
        self.room_id = room_id
        self.workspace = workspace
        self._client_factory = client
        self.runtime: ACPRuntime | None = None
        self.child: ChildProcess | None = None
        self.session: RoomSession | None = None  # the room's session on this process
        self.turn: Any = None  # the running prompt's ACPTurn
        self._spawned = asyncio.Event()

    @property
    def session_id(self) -> str | None:
        return self.session.session_id if self.session is not None else None

    @property
    def conn(self) -> ACPRuntime:
        """The runtime, which takes the session calls (``set_config_option``, ...)."""
        if self.runtime is None:
            raise RuntimeError("the ACP agent has not started")
        return self.runtime

    @property
    def client(self) -> Any:
        """The collecting client of the open connection."""
        return self.conn.client

    @property
    def can_load(self) -> bool:
        return self.runtime is not None and self.runtime.supports_session_load

    @property
    def config_options(self) -> list[SessionConfigOption]:
        """The room session's catalog, as the agent last answered or pushed it."""
        if self.runtime is None or self.session_id is None:
            return []
        return list(self.runtime.config_options(self.session_id))

    @config_options.setter
    def config_options(self, options: list[SessionConfigOption]) -> None:
        client = self.runtime.client if self.runtime is not None else None
        if client is not None and self.session_id is not None:
            client.record_config_options(self.session_id, options)

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
        if self.child.running:
            return "running"
        tail = self.runtime.stderr_tail if self.runtime is not None else []
        return describe_exit(self.child.proc.returncode, tail)

    def _spawner(
        self, use_unstable_protocol: bool
    ) -> Callable[..., AbstractAsyncContextManager[tuple[object, object]]]:
        """The runtime's spawn seam: the agent as a process-group leader over stdio."""
        acp = require_acp()

        @asynccontextmanager
        async def spawn(
            client: Any, *command: str, env: dict[str, str] | None = None, cwd: str | None = None
        ) -> AsyncIterator[tuple[object, object]]:
            from acp.transports import default_environment

            environment = {**default_environment(), **(env or {})}
            self.child = child = await spawn_child(
                command,
                cwd=cwd,
                env=environment,
                label="ACP agent",
                limit=STDIO_LIMIT,
                read_stderr=False,  # the runtime drains it
            )
            self._spawned.set()
            proc = child.proc
            assert proc.stdin is not None and proc.stdout is not None  # nosec B101 # narrows for mypy: spawned with both pipes
            conn = acp.connect_to_agent(
                client, proc.stdin, proc.stdout, use_unstable_protocol=use_unstable_protocol
            )
            try:
                yield conn, proc
            finally:
                try:
                    with contextlib.suppress(Exception):
                        await conn.close()
                finally:
                    await child.stop()

        return spawn

    async def start(
        self,
        config: ACPClientAdapterConfig,
        capabilities: Any = None,
        *,
        command: list[str] | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """Start ``command`` (the config's by default) in ``cwd`` (None: ours) with ``env``
        (the config's by default) added to the environment, and initialise it."""
        require_acp()
        from acp.schema import ClientCapabilities

        self.runtime = ACPRuntime(
            command=list(command if command is not None else config.command),
            env=dict(env if env is not None else config.env or {}),
            cwd=cwd,
            auth_method=config.auth_method,
            client_factory=self._client_factory,
            spawn_process=self._spawner(config.use_unstable_protocol),
            client_capabilities=capabilities or ClientCapabilities(),
            pass_builtin_transport_options=False,
        )
        await self.call(self.runtime.start())

    async def call(self, work: Any, limit: float | None = None) -> Any:
        """Await an ACP request; TransportClosed if the agent dies first, None on timeout."""
        request = asyncio.ensure_future(work)
        exited = asyncio.create_task(self._exited())
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
                if self.child is not None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.child.proc.wait(), 5)
                raise TransportClosed(f"the ACP agent went away ({self.exit_description})") from exc
        request.cancel()
        with contextlib.suppress(BaseException):
            await request
        if exited in done:
            raise TransportClosed(f"the ACP agent exited ({self.exit_description})")
        return None

    async def _exited(self) -> None:
        """Until the agent's process (once spawned) exits."""
        await self._spawned.wait()
        assert self.child is not None  # nosec B101 # narrows for mypy: set before the event
        await self.child.proc.wait()

    async def close(self) -> None:
        if self.runtime is not None:
            with contextlib.suppress(Exception):
                await self.runtime.stop()
        elif self.child is not None:
            await self.child.stop()
