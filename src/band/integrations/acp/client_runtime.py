"""``ACPRuntime``: one ACP agent connection, opened, initialised and closed, with the
session operations of :class:`~band.integrations.acp.sessions.ACPSessionOperations`.

How it works: docs/internals/sdk.md, "ACP: the agent connection".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

from band.core.retention.cleanup import rejoin_owned, report_owned
from band.integrations.acp import permissions
from band.integrations.acp._sdk import require_acp
from band.integrations.acp.collecting import ACPCollectingClient
from band.integrations.acp.permissions import *  # noqa: F403  (its __all__, added below)
from band.integrations.acp.sessions import ACP_SESSION_LOAD_TIMEOUT_SECONDS, ACPSessionOperations
from band.integrations.acp.stderr import STDERR_DRAIN_TIMEOUT_S, STDERR_TAIL_LINES, ACPStderrDrain
from band.integrations.acp.stream import ChunkSink
from band.integrations.acp.transport import (
    ACP_STDIO_LIMIT_BYTES,
    ACPConnectionProtocol,
    ACPSpawnContextProtocol,
    tcp_spawn_process,
)
from band.integrations.mcp.backends import BandMCPTransport

_acp = require_acp()

__all__ = [
    "ACP_SESSION_LOAD_TIMEOUT_SECONDS",
    "ACP_STDIO_LIMIT_BYTES",
    "STDERR_DRAIN_TIMEOUT_S",
    "STDERR_TAIL_LINES",
    "ACPCollectingClient",
    "ACPConnectionProtocol",
    "ACPRuntime",
    "ACPSpawnContextProtocol",
    "ChunkSink",
    "tcp_spawn_process",
]
__all__ += permissions.__all__

logger = logging.getLogger(__name__)
STDOUT_DISCARD_CHUNK_BYTES = 65536
STDOUT_HELD_WARNING_SECONDS = 5.0
INJECTED_TRANSPORT = "<injected transport>"
Spawned = AbstractAsyncContextManager[tuple[ACPConnectionProtocol, object]]


class ACPRuntime(ACPSessionOperations):
    """An ACP agent started (or dialled) for an outbound Band bridge."""

    def __init__(
        self,
        *,
        command: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        auth_method: str | None = None,
        client_factory: Callable[[], ACPCollectingClient] | None = None,
        spawn_process: Callable[..., object] | None = None,
        client_capabilities: Any = None,
        use_unstable_protocol: bool = False,
        pass_builtin_transport_options: bool = True,
    ) -> None:
        super().__init__()
        self._command = list(command)
        self._env = env
        self._cwd = cwd
        self._auth_method = auth_method
        self._client_factory = client_factory or ACPCollectingClient
        self._spawn_process = spawn_process or _acp.spawn_agent_process
        self._client_capabilities = client_capabilities
        self._use_unstable_protocol = use_unstable_protocol
        self._pass_builtin_transport_options = pass_builtin_transport_options
        self._conn: ACPConnectionProtocol | None = None
        self._ctx: Spawned | None = None
        self._transport: object = None
        self._exit_attempted = False
        self._closure: asyncio.Task[None] | None = None
        self._stderr = ACPStderrDrain(logger)

    @property
    def transport(self) -> object:
        """What the spawn context yielded beside the connection (the process, for stdio)."""
        return self._transport

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the agent wrote to stderr."""
        return list(self._stderr.tail)

    async def start(self) -> None:
        """Open the agent and initialise it; a failed start closes what it opened."""
        if self._ctx is not None:
            raise RuntimeError("ACP runtime is already started or not yet closed")
        self._connection_failed = False
        self._client = self._client_factory()
        options: dict[str, Any] = {}
        if self._pass_builtin_transport_options:
            options["transport_kwargs"] = {"limit": ACP_STDIO_LIMIT_BYTES}
            if self._use_unstable_protocol:
                options["use_unstable_protocol"] = True
        self._ctx = cast(
            Spawned,
            self._spawn_process(
                self._client, *self._command, env=self._env, cwd=self._cwd, **options
            ),
        )
        try:
            self._conn, self._transport = await self._ctx.__aenter__()
            if isinstance(self._transport, asyncio.subprocess.Process):
                self._stderr.start(self._transport)
            await self._initialize(self._conn)
        except BaseException as error:
            if isinstance(error, (asyncio.CancelledError, KeyboardInterrupt)):
                self._stderr.expect_exit(connection_failed=self._connection_failed)
            await self._close_failed_start()
            raise
        logger.info("Connected to ACP agent: %s", " ".join(self._command) or INJECTED_TRANSPORT)

    async def _initialize(self, conn: ACPConnectionProtocol) -> None:
        options: dict[str, Any] = {"protocol_version": _acp.PROTOCOL_VERSION}
        if self._client_capabilities is not None:
            options["client_capabilities"] = self._client_capabilities
        answer = await self._request(cast(Any, conn).initialize(**options))
        offered = getattr(answer, "agent_capabilities", None)
        mcp = getattr(offered, "mcp_capabilities", None)
        only_sse = not getattr(mcp, "http", False) and getattr(mcp, "sse", False)
        self._agent_mcp_transport = BandMCPTransport.SSE if only_sse else BandMCPTransport.HTTP
        self._agent_supports_session_load = getattr(offered, "load_session", False) is True
        sessions = getattr(offered, "session_capabilities", None)
        self._agent_supports_session_close = getattr(sessions, "close", None) is not None
        if self._auth_method:
            await self._request(conn.authenticate(method_id=self._auth_method))

    async def ensure_connection(self) -> ACPConnectionProtocol:
        if self._conn is None:
            raise RuntimeError("ACP client connection is not open")
        return self._conn

    @property
    def closed(self) -> bool:
        """Nothing is left to close."""
        return self._ctx is None

    async def stop(self) -> None:
        """Close the connection and see the process end (raises if closing failed)."""
        if self._ctx is None:
            return
        self._stderr.expect_exit(connection_failed=self._connection_failed)
        await self._join_closure()

    async def _join_closure(self) -> None:
        self._closure = rejoin_owned(self._closure, self._close, label="ACP runtime closure")
        await report_owned(self._closure, None)

    async def _close(self) -> None:
        try:
            await self._exit_transport()
        finally:
            await self._stderr.finish()
        self._ctx = self._conn = self._client = self._closure = None
        self._transport = None
        self._exit_attempted = False
        self._agent_supports_session_load = self._agent_supports_session_close = False

    async def _exit_transport(self) -> None:
        process = self._transport
        with _warn_if_held(process):
            if not self._exit_attempted and self._ctx is not None:
                self._exit_attempted = True  # the context is exited once; then the process
                try:
                    await self._ctx.__aexit__(None, None, None)
                except Exception:
                    logger.warning("ACP agent %s failed to exit", _pid(process))
                    raise
            elif isinstance(process, asyncio.subprocess.Process):
                if process.returncode is None:
                    logger.warning("Killing ACP agent %s after its exit failed", process.pid)
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                await process.wait()
            if isinstance(process, asyncio.subprocess.Process) and process.stdout is not None:
                while await process.stdout.read(STDOUT_DISCARD_CHUNK_BYTES):
                    pass

    async def _close_failed_start(self) -> None:
        try:
            await self._join_closure()
        except Exception:
            logger.warning(
                "Closing ACP agent %s after a failed start failed; stop() retries",
                _pid(self._transport),
                exc_info=True,
            )


def _pid(transport: object) -> int | str:
    if isinstance(transport, asyncio.subprocess.Process):
        return transport.pid
    return INJECTED_TRANSPORT


@contextlib.contextmanager
def _warn_if_held(transport: object) -> Iterator[None]:
    """One warning when a process's stdout stays open ``STDOUT_HELD_WARNING_SECONDS``."""
    if not isinstance(transport, asyncio.subprocess.Process):
        yield
        return
    timer = asyncio.get_running_loop().call_later(
        STDOUT_HELD_WARNING_SECONDS,
        lambda: logger.warning(
            "ACP agent %s (exit code %s) has not closed its stdout; a descendant may hold "
            "it, and its room stays owned until it does",
            transport.pid,
            transport.returncode,
        ),
    )
    try:
        yield
    finally:
        timer.cancel()
