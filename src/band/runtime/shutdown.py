"""``GracefulShutdown``: SIGINT / SIGTERM / SIGHUP become one orderly ``agent.stop(timeout)``.

Pair it with ``install_signal_handlers=False`` on ``agent.run``: it owns the signals. The first
signal calls ``on_signal(signum)`` and starts ``agent.stop(timeout)`` (which makes ``run``
return); later signals are ignored while that stop runs. ``async with GracefulShutdown(agent):``
registers the handlers and, on the way out, waits for a stop a signal started, then removes
them. SIGHUP means shutdown here, not a configuration reload.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ["GracefulShutdown", "run_with_graceful_shutdown"]

log = logging.getLogger("band.runtime.shutdown")

SIGNALS = tuple(
    s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None
)


class GracefulShutdown:
    """Signal handling that stops ``agent`` within ``timeout`` (see the module docstring)."""

    def __init__(
        self, agent: Agent, timeout: float = 30.0, on_signal: Callable[[int], None] | None = None
    ) -> None:
        self.agent = agent
        self.timeout = timeout
        self.on_signal = on_signal
        self._event = asyncio.Event()
        self._installed: list[signal.Signals] = []
        self._stopping: asyncio.Task[None] | None = None

    @property
    def shutting_down(self) -> bool:
        return self._stopping is not None

    def register_signals(self) -> None:
        """Install the handlers on the running loop (ignored where the loop cannot)."""
        loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._handle_signal, int(sig))
                self._installed.append(sig)

    def unregister_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed.clear()

    def _handle_signal(self, signum: int) -> None:
        if self._stopping is not None:
            log.debug("Received %s during shutdown; ignored", signal.Signals(signum).name)
            return
        log.info("Received %s, initiating graceful shutdown...", signal.Signals(signum).name)
        if self.on_signal is not None:
            try:
                self.on_signal(signum)
            except Exception as exc:
                log.warning("Error in on_signal callback: %s", exc)
        self._event.set()
        self._stopping = asyncio.ensure_future(self._stop())

    async def _stop(self) -> None:
        log.info("Shutting down agent (timeout: %ss)...", self.timeout)
        try:
            graceful = await asyncio.shield(self.agent.stop(self.timeout))
        except Exception:
            log.exception("Error during shutdown")
            return
        if graceful:
            log.info("Agent shut down gracefully")
        else:
            log.warning("Agent shut down with processing interrupted")

    async def wait_for_shutdown(self) -> None:
        """Until a shutdown signal arrives (the stop it starts runs on its own)."""
        await self._event.wait()

    async def __aenter__(self) -> GracefulShutdown:
        self.register_signals()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._stopping is not None:
                await self._stopping
        finally:
            self.unregister_signals()


async def run_with_graceful_shutdown(
    agent: Agent,
    timeout: float = 30.0,  # noqa: ASYNC109
    on_signal: Callable[[int], None] | None = None,
) -> None:
    """Run ``agent`` until SIGINT/SIGTERM/SIGHUP (or the connection ends), then stop it."""
    async with GracefulShutdown(agent, timeout=timeout, on_signal=on_signal):
        with contextlib.suppress(asyncio.CancelledError):
            await agent.run(shutdown_timeout=timeout, install_signal_handlers=False)
