"""``HeartbeatWatchdog``: force-close a connection whose heartbeats went unanswered too long."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

__all__ = ["HeartbeatWatchdog"]

logger = logging.getLogger(__name__)


class _Policy(Protocol):
    @property
    def dead_threshold_s(self) -> float: ...


class HeartbeatWatchdog:
    """Once ``policy.dead_threshold_s`` passes without ``reset_deadline()`` (an ack), the
    watched client's connection is closed so it reconnects rather than sits on a dead socket.

    The client is anything with a ``connection`` (None while disconnected) and an async
    ``close_connection(reason)``.
    """

    def __init__(self, policy: _Policy) -> None:
        self.policy = policy
        self._deadline = 0.0
        self._task: asyncio.Task[None] | None = None

    def reset_deadline(self) -> None:
        self._deadline = asyncio.get_running_loop().time() + self.policy.dead_threshold_s

    def start(self, client: Any) -> None:
        """Watch ``client`` (passed in, so a stale watchdog never acts on a newer client)."""
        self.reset_deadline()
        self._task = asyncio.create_task(self._loop(client))

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None

    async def _loop(self, client: Any) -> None:
        while True:
            # Re-read after each wake: an ack moved the deadline forward meanwhile.
            while (remaining := self._deadline - asyncio.get_running_loop().time()) > 0:  # noqa: ASYNC110
                await asyncio.sleep(remaining)
            self.reset_deadline()
            if getattr(client, "connection", None) is None:
                continue
            logger.warning(
                "[WebSocket] No heartbeat ack within %.2fs; forcing reconnect",
                self.policy.dead_threshold_s,
            )
            try:
                await client.close_connection("Heartbeat dead-threshold exceeded")
            except Exception:
                logger.exception("[WebSocket] Failed to force-close dead connection")
