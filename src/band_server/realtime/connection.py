"""One accepted socket: its identity and its outbound queue.

The hub pushes from whatever task publishes a broadcast, so :meth:`SocketConnection.send_text`
must never block: frames go into a per-connection queue that one writer task drains. A socket
whose queue keeps growing (a client that stopped reading) is closed rather than allowed to hold
memory; everything it missed is durable and recovered through ``/next`` after a reconnect.
(uvicorn's default ws implementation buffers writes without backpressure, so a peer that
stops reading entirely is caught by the websocket ping timeout or the heartbeat timeout.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Final

from starlette.websockets import WebSocket

from ..services.principals import Principal

log = logging.getLogger("band_server.realtime")

MAX_QUEUED_FRAMES: Final = 1000
# 1013 "try again later": the official client reconnects after a pause (1008 would be terminal).
SLOW_CONSUMER_CODE: Final = 1013
_CLOSE: Final = object()


class SocketConnection:
    """A live socket as the :class:`~band_server.realtime.hub.Hub` sees it."""

    def __init__(
        self, websocket: WebSocket, principal: Principal, *, max_queued: int = MAX_QUEUED_FRAMES
    ) -> None:
        self.id = uuid.uuid4().hex
        self.principal = principal
        self.opened_at = time.monotonic()
        self.frames_in = 0
        self.frames_out = 0
        self.close_code: int | None = None
        self.close_reason = ""
        self._ws = websocket
        self._max_queued = max_queued
        # Unbounded on purpose: the bound is enforced in send_text, so the close marker always
        # fits even when the queue is full of frames.
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None

    @property
    def label(self) -> str:
        """A readable name for log lines: ``agent Echo (id)``."""
        p = self.principal
        return f"{p.kind} {p.handle} ({p.id}) conn={self.id[:8]}"

    @property
    def closing(self) -> bool:
        """True once a close was requested; later frames are dropped."""
        return self.close_code is not None

    def start(self) -> None:
        """Start the writer; call once the socket is accepted."""
        self._writer = asyncio.create_task(self._write_loop(), name=f"socket-writer-{self.id}")

    def send_text(self, frame: str) -> None:
        """Queue one text frame (never blocks); a hopelessly slow socket is closed instead."""
        if self.closing:
            return
        if self._queue.qsize() >= self._max_queued:
            log.warning("socket %s: %d frames unsent, closing", self.label, self._queue.qsize())
            self._drop_queued()
            self.close(SLOW_CONSUMER_CODE, "too slow to read its frames")
            return
        self._queue.put_nowait(frame)

    def close(self, code: int, reason: str = "") -> None:
        """Close the socket after the frames already queued (the first close wins)."""
        if self.closing:
            return
        self.close_code = code
        self.close_reason = reason
        self._queue.put_nowait(_CLOSE)

    async def shutdown(self, code: int = 1000, reason: str = "", grace: float = 1.0) -> None:
        """Close (if nobody did yet), let the writer flush for ``grace`` seconds, then stop it."""
        self.close(code, reason)
        writer = self._writer
        if writer is None or writer.done():
            return
        done, _ = await asyncio.wait({writer}, timeout=grace)
        if not done:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    def _drop_queued(self) -> None:
        while not self._queue.empty():
            self._queue.get_nowait()

    async def _write_loop(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                if item is _CLOSE:
                    await self._ws.close(self.close_code or 1000, self.close_reason)
                    return
                assert isinstance(item, str)
                await self._ws.send_text(item)
                self.frames_out += 1
        except Exception as exc:
            # The peer vanished or the socket closed under us; the reader notices and cleans up.
            log.debug("socket %s: writer stopped: %r", self.label, exc)
