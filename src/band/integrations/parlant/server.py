"""``running_parlant_server``: a Parlant server run in this process, ready when yielded.

``async with p.Server(...)`` configures in ``__aenter__`` and, in ``__aexit__``, evaluates the
declared entities and then serves until cancelled. So the server is entered by hand:
``__aenter__``, the caller's ``setup`` (declare agents, guidelines, journeys there), then
``__aexit__`` as a background task, and the server is yielded once Parlant says it is ready.
Leaving the block cancels that task; a start that fails closes what Parlant had opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from .ports import reserve_server_ports

__all__ = ["running_parlant_server"]

logger = logging.getLogger(__name__)

READY_TIMEOUT = 120.0
STOP_TIMEOUT = 60.0
INSTALL_HINT = "running a Parlant server needs Parlant: pip install 'openband[parlant]'"

ServerSetup = Callable[[Any], Awaitable[None]]


@asynccontextmanager
async def running_parlant_server(
    *, setup: ServerSetup | None = None, **server_kwargs: Any
) -> AsyncIterator[Any]:
    """Yield a set-up, ready ``p.Server(**server_kwargs)``, and stop it on exit.

    ``port`` and ``tool_service_port`` default to a freshly reserved free pair.
    """
    try:
        import parlant.sdk as p
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    if "port" not in server_kwargs or "tool_service_port" not in server_kwargs:
        ports = reserve_server_ports(server_kwargs.get("host"))
        server_kwargs.setdefault("port", ports.port)
        server_kwargs.setdefault("tool_service_port", ports.tool_service_port)
    server = p.Server(**server_kwargs)
    serving = await _start(server, setup)
    try:
        yield server
    finally:
        await _stop(serving)


async def _start(server: Any, setup: ServerSetup | None) -> asyncio.Task[Any]:
    try:
        await server.__aenter__()
    except SystemExit as exc:  # Parlant exits on a bad configuration
        await _close_private(server)
        raise ValueError(
            "Parlant server failed to start; see stderr above for the underlying "
            "configuration error"
        ) from exc
    try:
        if setup is not None:
            await setup(server)
    except BaseException as exc:
        with contextlib.suppress(BaseException):
            await server.__aexit__(type(exc), exc, exc.__traceback__)
        await _close_private(server)
        raise
    serving = asyncio.create_task(server.__aexit__(None, None, None), name="parlant-server")
    try:
        await _wait_ready(server, serving)
    except BaseException:
        await _stop(serving)
        await _close_private(server)
        raise
    return serving


async def _wait_ready(server: Any, serving: asyncio.Task[Any]) -> None:
    ready = asyncio.ensure_future(server.ready.wait())
    try:
        done, _ = await asyncio.wait(
            {ready, serving}, timeout=READY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        ready.cancel()
    if ready in done:
        return
    if serving in done:
        error = serving.exception() if not serving.cancelled() else None
        raise RuntimeError("Parlant server stopped before becoming ready") from error
    raise TimeoutError(f"Parlant server did not become ready within {READY_TIMEOUT}s")


async def _stop(serving: asyncio.Task[Any]) -> None:
    serving.cancel()
    try:
        await asyncio.wait_for(serving, STOP_TIMEOUT)
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
