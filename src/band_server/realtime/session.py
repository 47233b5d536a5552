"""The inbound side of one socket: read frames, answer joins, leaves and heartbeats.

A client of the v2 protocol only ever sends ``phx_join``, ``phx_leave`` and ``heartbeat``
(all writes go through REST), so anything else is answered with an error reply. No frame,
however malformed, may end the socket or reach other sockets.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.websockets import WebSocket

from ..context import Platform
from .channels import REFUSED, may_join
from .connection import SocketConnection
from .phoenix import (
    HEARTBEAT,
    JOIN,
    LEAVE,
    PHOENIX_TOPIC,
    BadFrame,
    Frame,
    error_reply,
    ok_reply,
    parse_frame,
)

log = logging.getLogger("band_server.realtime")

# Close codes chosen so the official client reconnects (1000) rather than giving up (1008).
HEARTBEAT_TIMEOUT_CODE = 1000


class ChannelSession:
    """Reads one accepted socket until it closes and dispatches every frame."""

    def __init__(self, platform: Platform, websocket: WebSocket, conn: SocketConnection) -> None:
        self._platform = platform
        self._ws = websocket
        self._conn = conn

    async def run(self) -> str:
        """Serve frames until the socket ends; return why it ended (for the log line)."""
        timeout = self._platform.settings.heartbeat_timeout
        while True:
            try:
                # asyncio.timeout, not wait_for: no extra task per idle socket.
                async with asyncio.timeout(timeout):
                    message = await self._ws.receive()
            except TimeoutError:
                self._conn.close(HEARTBEAT_TIMEOUT_CODE, "heartbeat timeout")
                return f"no frame for {timeout:g}s"
            except Exception as exc:
                # The transport broke in a way the ASGI server reports as an error, not a close.
                return f"receive failed ({exc!r})"
            if message["type"] == "websocket.disconnect":
                code = message.get("code", 1000)
                if self._conn.closing:
                    return f"closed by server ({self._conn.close_code})"
                return f"closed by client ({code})"
            text = message.get("text")
            if text is None:
                # Binary frames are not part of the JSON v2 serializer's client side.
                continue
            self._conn.frames_in += 1
            try:
                await self.handle(text)
            except Exception:
                # A bug in one frame's handling must not take the socket down.
                log.exception("socket %s: frame handling failed", self._conn.label)

    async def handle(self, text: str) -> None:
        """Answer one inbound text frame."""
        frame = parse_frame(text)
        if isinstance(frame, BadFrame):
            if frame.ref is None:
                log.debug("socket %s: ignored frame (%s)", self._conn.label, frame.reason)
                return
            self._reply_error(frame.join_ref, frame.ref, frame.topic, frame.reason)
            return
        if frame.topic == PHOENIX_TOPIC:
            if frame.event == HEARTBEAT:
                self._conn.send_text(ok_reply(None, frame.ref, PHOENIX_TOPIC))
            else:
                self._reply_error(frame.join_ref, frame.ref, frame.topic, "unknown event")
            return
        if frame.event == JOIN:
            await self._join(frame)
        elif frame.event == LEAVE:
            self._platform.hub.leave(self._conn, frame.topic)
            self._conn.send_text(ok_reply(frame.join_ref, frame.ref, frame.topic))
        elif self._platform.hub.join_ref(self._conn, frame.topic) is None:
            self._reply_error(frame.join_ref, frame.ref, frame.topic, "unmatched topic")
        else:
            self._reply_error(frame.join_ref, frame.ref, frame.topic, "unknown event")

    async def _join(self, frame: Frame) -> None:
        # The client always sends join_ref == ref; fall back to ref like Phoenix does.
        join_ref = frame.join_ref or frame.ref
        if join_ref is None:
            return
        try:
            allowed = await may_join(self._platform.db, self._conn.principal, frame.topic)
        except Exception:
            log.exception("socket %s: join check for %s failed", self._conn.label, frame.topic)
            self._reply_error(join_ref, frame.ref, frame.topic, "join failed")
            return
        if not allowed:
            log.debug("socket %s: refused join of %s", self._conn.label, frame.topic)
            self._reply_error(join_ref, frame.ref, frame.topic, REFUSED)
            return
        if self._platform.hub.join_ref(self._conn, frame.topic) is None:
            # The bus hears the topic from the other nodes before the reply (the first socket
            # of this node on it waits a round trip to Redis).
            await self._platform.bus.follow(frame.topic)
        # Reply, then subscribe, with no await between: no push for this topic can overtake
        # the join reply, and none is missed after it.
        self._conn.send_text(ok_reply(join_ref, frame.ref, frame.topic))
        self._platform.hub.join(self._conn, frame.topic, join_ref)

    def _reply_error(self, join_ref: str | None, ref: str | None, topic: str, reason: str) -> None:
        self._conn.send_text(error_reply(join_ref, ref, topic, reason))
