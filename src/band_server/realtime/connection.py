"""One accepted socket: its identity and its outbound queue.

How it works: docs/internals/server.md, "A socket's outbound queue".

:meth:`SocketConnection.send_text` never blocks; a socket whose queue keeps growing is closed.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from collections.abc import Coroutine, Generator
from typing import Any, Final

from starlette.websockets import WebSocket, WebSocketState

from ..services.background import cancelled
from ..services.identity.principals import Principal
from ..ws_protocol import HeldSocketProtocol

log = logging.getLogger("band_server.realtime")

MAX_QUEUED_FRAMES: Final = 1000
# 1013 "try again later": the official client reconnects after a pause (1008 would be terminal).
SLOW_CONSUMER_CODE: Final = 1013
_CLOSE: Final = object()
_CONNECTED: Final = WebSocketState.CONNECTED


class SocketConnection:
    """A live socket as the :class:`~band_server.realtime.hub.Hub` sees it.

    An idle socket holds no queue and no task (10,000 idle agents must stay cheap): a frame
    pushed to it is sent in the caller's step; only a send that must wait starts a writer task,
    which finishes that send, drains the frames queued meanwhile and ends.
    """

    __slots__ = (
        "_lean",
        "_max_queued",
        "_queue",
        "_started",
        "_writer",
        "_ws",
        "claim_on_push",
        "close_code",
        "close_reason",
        "frames_in",
        "frames_out",
        "id",
        "opened_at",
        "principal",
    )

    def __init__(
        self,
        websocket: WebSocket,
        principal: Principal,
        *,
        max_queued: int = MAX_QUEUED_FRAMES,
        claim_on_push: str | None = None,
    ) -> None:
        self.id = uuid.uuid4().hex
        self.principal = principal
        # An agent socket's ``claim_on_push`` mode (``claim`` or ``working``), else None.
        self.claim_on_push = claim_on_push
        self.opened_at = time.time()  # wall clock: the hub compares it with gap notes
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
        # The server's protocol, when it can write a frame without the ASGI send (set by start).
        self._lean: HeldSocketProtocol | None = None

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
        self._lean = HeldSocketProtocol.serving(self._ws)
        self._kick()

    def send_text(self, frame: str) -> None:
        """Queue one text frame (never blocks); a hopelessly slow socket is closed instead."""
        if self.closing:
            return
        queue = self._queue
        if queue is None and self._started and self._writer is None:
            self._send_now(frame)
            return
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
            await cancelled(writer)

    def _send_now(self, frame: str) -> None:
        """Run the socket's send up to its first wait; a send that waits goes on in a task.

        What Python 3.12's eagerly started tasks do, for 3.11: a push costs no task and no
        loop iteration unless the transport is paused (the peer reads slowly). A protocol that
        can write the frame by itself does (Starlette would send it: the socket is connected).
        """
        lean = self._lean
        if lean is not None and self._ws.application_state is _CONNECTED:
            try:
                pushed = lean.push_text(frame)
            except Exception as exc:  # what send would have raised (a text that is no UTF-8)
                log.debug("socket %s: send failed: %r", self.label, exc)
                return
            if pushed:
                self.frames_out += 1
                return
        send = self._ws.send_text(frame)
        try:
            waiting_on = send.send(None)
        except StopIteration:
            self.frames_out += 1
            return
        except Exception as exc:
            log.debug("socket %s: send failed: %r", self.label, exc)
            return
        self._queue = deque()
        self._writer = asyncio.get_running_loop().create_task(
            self._write_loop(_Resumed(send, waiting_on))
        )

    def _kick(self) -> None:
        if not self._started or not self._queue:
            return
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())

    async def _write_loop(self, pending: _Resumed | None = None) -> None:
        queue = self._queue
        if queue is None:
            return
        try:
            if pending is not None:
                await pending
                self.frames_out += 1
            while queue:
                item = queue.popleft()
                if item is _CLOSE:
                    queue.clear()
                    await self._ws.close(self.close_code or 1000, self.close_reason)
                    return
                assert isinstance(item, str)  # nosec B101 # narrows for mypy: the queue holds frames and _CLOSE
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


class _Resumed:
    """Awaits the rest of a coroutine already run up to its first wait (``waiting_on``).

    The awaiting task gets what the coroutine yielded (the future it waits for) and passes
    back whatever the loop sends or throws, as ``yield from`` would have from the start.
    """

    __slots__ = ("_coro", "_waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self._coro = coro
        self._waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, None]:
        coro, step = self._coro, self._waiting_on
        self._waiting_on = None
        while True:
            try:
                sent = yield step
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # cancellation included: it belongs to the send
                try:
                    step = coro.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    step = coro.send(sent)
                except StopIteration:
                    return
