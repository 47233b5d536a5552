"""uvicorn's sans-I/O WebSocket protocol, lighter while a socket is held idle.

How it works: docs/internals/server.md, "The held-socket WebSocket protocol".

A subclass of uvicorn's ``websockets-sansio`` protocol, given to uvicorn as its ``ws`` class
(``server_stack``).
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from typing import Any, Final, Generic, TypeVar, cast

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import OPEN

from .pass_transport import PassTransport

T = TypeVar("T")

# A server's text frame, FIN set and unmasked (RFC 6455 5.2): 0x81, then the payload's length
# in 7 bits, or 126 and 16 bits, or 127 and 64 bits.
_SHORT_HEADS: Final = tuple(bytes((0x81, n)) for n in range(126))
_HEAD_16: Final = struct.Struct("!BBH").pack
_HEAD_64: Final = struct.Struct("!BBQ").pack


class ReceiveQueue(Generic[T]):
    """An unbounded FIFO with one consumer: what uvicorn's protocol asks of ``asyncio.Queue``.

    ``put_nowait`` never blocks; ``get`` waits for an item. The deque exists only while items
    wait and the waiter only while the consumer waits. A cancelled ``get`` loses nothing: an
    item leaves the queue only when ``get`` returns it. (Differential test against
    ``asyncio.Queue``: tests/server/test_ws_protocol.py.)
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        if self._items is None:
            self._items = deque()
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        items = self._items
        item = items.popleft()
        if not items:
            self._items = None
        return item

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items) if self._items else 0


class HeldSocketProtocol(WebSocketsSansIOProtocol):
    """``ws="websockets-sansio"`` with :class:`ReceiveQueue`, no handshake kept after 101, a
    :class:`PassTransport`, and :meth:`push_text`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = ReceiveQueue()  # type: ignore[assignment]
        # The 101 went out with no extension negotiated and websockets logs no frame.
        self.plain = False
        self._sends = 0  # calls of send() under way (one may wait for the transport to drain)

    @staticmethod
    def serving(websocket: WebSocket) -> HeldSocketProtocol | None:
        """The protocol a socket's sends go straight to, if it is one of these (None when a
        layer stands between, or another protocol serves the socket). Asked once a socket."""
        owner = getattr(getattr(websocket, "_send", None), "__self__", None)
        return owner if isinstance(owner, HeldSocketProtocol) else None

    def push_text(self, text: str) -> bool:
        """Write one text frame at once, as ``send`` would, if the socket is in its plain
        steady state: open, no close sent, writing not paused, no other send under way,
        nothing of websockets' waiting to go out. False (nothing written): use ``send``.

        The bytes are the frame websockets' ``send_text`` makes on a server without
        extensions; its state is left as ``send_text`` leaves it for a final frame
        (tests/server/test_ws_push.py holds the two equal).
        """
        conn = self.conn
        if (
            not self.plain
            or self._sends
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or conn.state is not OPEN
            or conn.writes
            or conn.expect_continuation_frame
        ):
            return False
        data = text.encode()
        size = len(data)
        if size < 126:
            head = _SHORT_HEADS[size]
        elif size < 65536:
            head = _HEAD_16(0x81, 126, size)
        else:
            head = _HEAD_64(0x81, 127, size)
        self.transport.write(head + data)
        return True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, PassTransport):  # upgraded from our HTTP protocol's
            transport = transport.unwrapped()
        super().connection_made(PassTransport(cast(asyncio.Transport, transport), self.loop))

    async def send(self, message: Any) -> None:
        self._sends += 1
        try:
            await super().send(message)
        finally:
            self._sends -= 1
        if message["type"] == "websocket.accept" and self.handshake_complete:
            conn = self.conn
            self.plain = conn.state is OPEN and not conn.extensions and not conn.debug
            # Read only to answer the upgrade (handle_connect, the accept above). websockets'
            # parser keeps the request object for the socket's life (a local of its frame
            # parser), so its headers are emptied rather than merely let go.
            for done in (self.request, self.response):
                done.headers.clear()
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]
