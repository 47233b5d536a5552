"""Run an ``Agent`` until SIGINT/SIGTERM, then stop it within a timeout."""

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

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class GracefulShutdown:
    """Turns SIGINT/SIGTERM into an orderly ``agent.stop(timeout)``."""

    def __init__(
        self, agent: Agent, timeout: float = 30.0, on_signal: Callable[[int], None] | None = None
    ) -> None:
        self.agent = agent
        self.timeout = timeout
        self.on_signal = on_signal
        self._requested = asyncio.Event()
        self._installed: list[signal.Signals] = []

    def _fire(self, sig: signal.Signals) -> None:
        log.info("Received %s; shutting down", sig.name)
        if self.on_signal is not None:
            self.on_signal(int(sig))
        self._requested.set()

    def register_signals(self) -> None:
        """Install the handlers on the running loop (main thread only)."""
        loop = asyncio.get_running_loop()
        for sig in _SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._fire, sig)
                self._installed.append(sig)

    def unregister_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed.clear()

    async def wait_for_shutdown(self) -> None:
        """Until a signal arrives, then stop the agent."""
        await self._requested.wait()
        await self.agent.stop(self.timeout)


async def run_with_graceful_shutdown(
    agent: Agent,
    timeout: float = 30.0,  # noqa: ASYNC109
    on_signal: Callable[[int], None] | None = None,
) -> None:
    """Start ``agent``, serve until SIGINT/SIGTERM (or the connection ends), stop it."""
    shutdown = GracefulShutdown(agent, timeout, on_signal)
    shutdown.register_signals()
    try:
        await agent.start()
        serving = asyncio.ensure_future(agent.run_forever(install_signal_handlers=False))
        signalled = asyncio.ensure_future(shutdown._requested.wait())
        await asyncio.wait({serving, signalled}, return_when=asyncio.FIRST_COMPLETED)
        for task in (serving, signalled):
            task.cancel()
    finally:
        shutdown.unregister_signals()
        await agent.stop(timeout)
