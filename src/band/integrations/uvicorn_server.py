"""Serving one ASGI app on a background uvicorn server inside the host's event loop.

Used by the integrations that listen (the MCP tool server, the A2A gateway, Slack's events
endpoint). Signals stay with the host process; ``stop()`` asks uvicorn to exit (cancelling
``serve()`` would skip its shutdown and leave the socket bound).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Generator
from typing import Any

from band._extras import needs_extra

with needs_extra("serving needs uvicorn", "runtime"):
    import uvicorn

__all__ = [
    "SERVER_START_TIMEOUT_S",
    "SERVER_STOP_TIMEOUT_S",
    "EmbeddedUvicornServer",
    "ManagedUvicornServer",
    "wait_until_started",
]

logger = logging.getLogger("band.integrations.uvicorn")
POLL_INTERVAL_S = 0.02
SERVER_START_TIMEOUT_S = 5.0
SERVER_STOP_TIMEOUT_S = 5


class EmbeddedUvicornServer(uvicorn.Server):
    """A uvicorn server that leaves SIGINT/SIGTERM to the process that embeds it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


async def wait_until_started(
    server: uvicorn.Server, serve_task: asyncio.Task[None], *, timeout_s: float
) -> None:
    """Return once ``server`` accepts connections; raise if its task ends or time runs out."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not server.started:
        if serve_task.done():
            await serve_task
            raise RuntimeError("the server stopped while starting")
        if loop.time() > deadline:
            raise TimeoutError(f"the server did not start within {timeout_s:g} s")
        await asyncio.sleep(POLL_INTERVAL_S)


class ManagedUvicornServer:
    """One ASGI app on a background uvicorn server: ``start()``, ``bound_port``, ``stop()``.

    ``sock`` serves an already bound socket (``host`` and ``port`` then only label it).
    """

    def __init__(
        self,
        app: Any,
        *,
        host: str,
        port: int,
        start_timeout_s: float = SERVER_START_TIMEOUT_S,
        stop_timeout_s: int = SERVER_STOP_TIMEOUT_S,
        sock: socket.socket | None = None,
    ) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._timeouts = (start_timeout_s, stop_timeout_s)
        self._sock = sock
        self._server: EmbeddedUvicornServer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def bound_port(self) -> int:
        """The listening port (what the OS chose for ``port=0``)."""
        if self._server is None or not self._server.servers:
            raise RuntimeError("server has not started")
        return int(self._server.servers[0].sockets[0].getsockname()[1])

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        config = uvicorn.Config(
            self._app,
            host=self._host,
            port=self._port,
            lifespan="on",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=self._timeouts[1],
        )
        self._server = server = EmbeddedUvicornServer(config)
        sockets = [self._sock] if self._sock is not None else None
        self._task = task = asyncio.create_task(server.serve(sockets=sockets))
        try:
            await wait_until_started(server, task, timeout_s=self._timeouts[0])
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Ask uvicorn to exit and wait for it; safe to call twice."""
        server, task = self._server, self._task
        if server is None or task is None:
            return
        server.should_exit = True
        try:
            await asyncio.wait_for(task, self._timeouts[1] * 2)
        except TimeoutError:
            logger.warning("the server did not stop in time; cancelled")
        except asyncio.CancelledError:
            raise
        except BaseException:  # uvicorn raises SystemExit when it cannot start
            logger.exception("the embedded server ended with an error")
        self._server = self._task = None
