"""Running the Parlant server: an adapter-owned one in-process, or a borrowed one.

``async with p.Server(...)`` configures in ``__aenter__`` and, in ``__aexit__``,
evaluates the declared entities and then serves until cancelled. The owned server is
therefore entered by hand: ``__aenter__``, the adapter's setup, then ``__aexit__`` as
a background task that we cancel to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ._require import require_parlant_sdk
from .ports import reserve_port_pair

__all__ = ["READY_TIMEOUT", "ServerLifecycle"]

logger = logging.getLogger("band.adapters.parlant.server")
READY_TIMEOUT = 120.0
STOP_TIMEOUT = 60.0

Prepare = Callable[[Any], Awaitable[None]]


class ServerLifecycle:
    """Starts and stops the Parlant server of one adapter; never stops a borrowed one."""

    def __init__(self, *, borrowed: Any | None, options: Mapping[str, Any]) -> None:
        self._borrowed = borrowed
        self._options = dict(options)
        self._owned: Any | None = None
        self._serve_task: asyncio.Task[Any] | None = None

    @property
    def owns_server(self) -> bool:
        return self._borrowed is None

    @property
    def server(self) -> Any | None:
        return self._borrowed if self._borrowed is not None else self._owned

    async def start(self, prepare: Prepare) -> Any:
        """Bring the server up, run ``prepare(server)`` in its configuration phase."""
        if self._borrowed is not None:
            await prepare(self._borrowed)
            return self._borrowed
        p = require_parlant_sdk()
        kwargs = dict(self._options)
        if "port" not in kwargs or "tool_service_port" not in kwargs:
            api_port, tool_port = reserve_port_pair(kwargs.get("host"))
            kwargs.setdefault("port", api_port)
            kwargs.setdefault("tool_service_port", tool_port)
        server = p.Server(**kwargs)
        try:
            await server.__aenter__()
        except SystemExit as exc:
            await _close_private(server)
            raise ValueError(
                "Parlant server failed to start; see stderr above for the underlying "
                "configuration error"
            ) from exc
        try:
            await prepare(server)
        except BaseException as exc:
            with contextlib.suppress(BaseException):
                await server.__aexit__(type(exc), exc, exc.__traceback__)
            await _close_private(server)
            raise
        self._owned = server
        self._serve_task = asyncio.create_task(
            server.__aexit__(None, None, None), name="parlant-server"
        )
        try:
            await self._wait_ready(server)
        except BaseException:
            await self.stop()
            await _close_private(server)
            raise
        return server

    async def _wait_ready(self, server: Any) -> None:
        assert self._serve_task is not None  # nosec B101 # narrows for mypy: set just before
        ready = asyncio.ensure_future(server.ready.wait())
        try:
            done, _ = await asyncio.wait(
                {ready, self._serve_task},
                timeout=READY_TIMEOUT,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            ready.cancel()
        if ready in done:
            return
        if self._serve_task in done:
            error = self._serve_task.exception() if not self._serve_task.cancelled() else None
            raise RuntimeError("Parlant server stopped before becoming ready") from error
        raise TimeoutError(f"Parlant server did not become ready within {READY_TIMEOUT}s")

    async def stop(self) -> None:
        """Stop an owned server (cancel its serve task); a borrowed one keeps running."""
        task, self._serve_task = self._serve_task, None
        self._owned = None
        if task is None:
            return
        task.cancel()
        try:
            await asyncio.wait_for(task, STOP_TIMEOUT)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
        except Exception as exc:
            logger.warning("Parlant server stopped with an error: %s", exc)


async def _close_private(server: Any) -> None:
    """After a failed start, close what Parlant's half-entered server still holds."""
    for attr in ("_startup_context_manager", "_exit_stack"):
        holder = getattr(server, attr, None)
        closer = getattr(holder, "aclose", None) or getattr(holder, "__aexit__", None)
        if closer is None:
            continue
        with contextlib.suppress(BaseException):
            if attr == "_exit_stack":
                await closer()
            else:
                await closer(None, None, None)
