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
sockets: 50,000 on a node", "Pushes: one write a pass").
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Generic, TypeVar, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

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


class PassTransport(asyncio.Transport):
    """A socket's transport that joins the writes of one pass of the loop after its first.

    A committed batch wakes each of its posts in the same pass, and each pushes a frame to
    the same sockets: one system call a frame. Here the first write of a pass goes straight
    to the transport (a lone frame waits for nothing); the writes after it are held and
    written together when the loop comes round, before anything written later. Every write
    of the socket's protocol goes through here, so the bytes and their order are the
    protocol's own; a close writes what is held first, an abort drops it.
    """

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        # None: nothing written this pass; a list: a pass's first write is out, these wait.
        self._held: list[bytes] | None = None

    def write(self, data: Any) -> None:
        held = self._held
        if held is not None:
            held.append(bytes(data))
            return
        self._transport.write(data)
        self._held = []
        self._loop.call_soon(self._release)

    def writelines(self, list_of_data: Any) -> None:
        self.write(b"".join(list_of_data))

    def _release(self) -> None:
        held, self._held = self._held, None
        if held and not self._transport.is_closing():
            self._transport.write(b"".join(held))

    def close(self) -> None:
        self._release()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def get_write_buffer_size(self) -> int:
        held = sum(map(len, self._held)) if self._held else 0
        return self._transport.get_write_buffer_size() + held

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def can_write_eof(self) -> bool:
        return False

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()


class HeldSocketProtocol(WebSocketsSansIOProtocol):
    """``ws="websockets-sansio"`` with :class:`ReceiveQueue`, no handshake kept after 101, and
    a :class:`PassTransport`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = ReceiveQueue()  # type: ignore[assignment]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
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
