"""uvicorn's sans-I/O WebSocket protocol, lighter while a socket is held idle.

A node holds tens of thousands of agent sockets that send a heartbeat every 30 s and little
else, so what each one keeps for its lifetime is the node's memory. uvicorn's protocol keeps
the parsed upgrade request and the 101 response (both with their headers) after the handshake,
and websockets' parser the request too, although nothing reads them again; and it makes its
receive queue an ``asyncio.Queue``: three deques (~620 bytes each, empty) and an ``Event`` with
a fourth, for a queue with one consumer that is empty nearly all the time.
:class:`HeldSocketProtocol` empties and drops the handshake once the 101 is sent and uses
:class:`ReceiveQueue`, which makes its storage on first use and lets it go once drained.
Its transport is a :class:`PassTransport`: what one pass of the loop writes after the first
write goes out in one system call. Everything else is uvicorn's (docs/decisions.md, "Idle
sockets: 50,000 on a node", "Pushes and answers: fewer writes").
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Generic, TypeVar, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .pass_transport import PassTransport

T = TypeVar("T")


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
    """``ws="websockets-sansio"`` with :class:`ReceiveQueue`, no handshake kept after 101, and
    a :class:`PassTransport`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = ReceiveQueue()  # type: ignore[assignment]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, PassTransport):  # upgraded from our HTTP protocol's
            transport = transport.unwrapped()
        super().connection_made(PassTransport(cast(asyncio.Transport, transport), self.loop))

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            # Read only to answer the upgrade (handle_connect, the accept above). websockets'
            # parser keeps the request object for the socket's life (a local of its frame
            # parser), so its headers are emptied rather than merely let go.
            for done in (self.request, self.response):
                done.headers.clear()
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]
