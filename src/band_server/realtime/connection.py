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
from collections import deque
from typing import Final

from starlette.websockets import WebSocket

from ..services.principals import Principal

log = logging.getLogger("band_server.realtime")

MAX_QUEUED_FRAMES: Final = 1000
# 1013 "try again later": the official client reconnects after a pause (1008 would be terminal).
SLOW_CONSUMER_CODE: Final = 1013
_CLOSE: Final = object()


class SocketConnection:
    """A live socket as the :class:`~band_server.realtime.hub.Hub` sees it.

    An idle socket holds no queue and no task: the first frame queued starts a writer task,
    which sends until the queue is empty and then ends (10,000 idle agents must stay cheap).
    """

    __slots__ = (
        "_max_queued",
        "_queue",
        "_started",
        "_writer",
        "_ws",
        "close_code",
        "close_reason",
        "frames_in",
        "frames_out",
        "id",
        "opened_at",
        "principal",
    )

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
        # Made on the first frame (an empty deque alone is ~0.6 KiB). The bound is enforced in
        # send_text, so the close marker always fits.
        self._queue: deque[object] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._started = False

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
        """The socket is accepted: frames queued before now may go out."""
        self._started = True
        self._kick()

    def send_text(self, frame: str) -> None:
        """Queue one text frame (never blocks); a hopelessly slow socket is closed instead."""
        if self.closing:
            return
        queue = self._queue
        if queue is None:
            queue = self._queue = deque()
        if len(queue) >= self._max_queued:
            log.warning("socket %s: %d frames unsent, closing", self.label, len(queue))
            queue.clear()
            self.close(SLOW_CONSUMER_CODE, "too slow to read its frames")
            return
        queue.append(frame)
        self._kick()

    def close(self, code: int, reason: str = "") -> None:
        """Close the socket after the frames already queued (the first close wins)."""
        if self.closing:
            return
        self.close_code = code
        self.close_reason = reason
        if self._queue is None:
            self._queue = deque()
        self._queue.append(_CLOSE)
        self._kick()

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

    def _kick(self) -> None:
        if not self._started or not self._queue:
            return
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())

    async def _write_loop(self) -> None:
        queue = self._queue
        if queue is None:
            return
        try:
            while queue:
                item = queue.popleft()
                if item is _CLOSE:
                    queue.clear()
                    await self._ws.close(self.close_code or 1000, self.close_reason)
                    return
                assert isinstance(item, str)
                await self._ws.send_text(item)
                self.frames_out += 1
        except Exception as exc:
            # The peer vanished or the socket closed under us; the reader notices and cleans up.
            queue.clear()
            log.debug("socket %s: writer stopped: %r", self.label, exc)
        finally:
            # Back to idle: an idle socket keeps neither its queue nor its finished task.
            if not queue and self._queue is queue and not self.closing:
                self._queue = None
                self._writer = None
