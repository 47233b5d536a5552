"""A connection's transport that writes what one pass of the loop sends in fewer system calls.

A committed batch wakes each of its posts in the same pass of the loop, and each pushes a frame
to the same sockets; and uvicorn writes an HTTP answer's head and its body in two calls. On
loopback or a LAN each write is a system call, a segment, and a wake-up of the reader.
:class:`PassTransport` stands between a protocol and its transport and joins them, keeping the
protocol's bytes and their order (docs/decisions.md, "Pushes and answers: fewer writes").
"""

from __future__ import annotations

import asyncio
from typing import Any


class PassTransport(asyncio.Transport):
    """Joins the writes of one pass of the loop; every write of the protocol goes through it.

    Without ``pair`` (a socket's pushes) the first write of a pass goes straight to the
    transport, so a lone frame waits for nothing; the writes after it are held and written
    together when the loop comes round. With ``pair`` (HTTP answers) the first write of a pass
    is held until the second, and both go out in one call (a head and its body, written in the
    same step); a first write alone goes when the loop comes round, and writes after the pair
    are held as without ``pair``. A close writes what is held first; an abort, or a transport
    closed under it, drops it.
    """

    __slots__ = ("_held", "_loop", "_pair", "_paired", "_transport")

    def __init__(
        self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop, *, pair: bool = False
    ) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._pair = pair
        self._paired = False  # this pass's first write waits for its second
        # None: nothing written this pass; a list: what waits for the loop to come round.
        self._held: list[bytes] | None = None

    def write(self, data: Any) -> None:
        held = self._held
        if held is None:
            self._loop.call_soon(self._release)
            if self._pair:
                self._held = [bytes(data)]
                self._paired = True
            else:
                self._held = []
                self._transport.write(data)
        elif self._paired:
            self._paired = False
            self._transport.write(held.pop() + bytes(data))
        else:
            held.append(bytes(data))

    def writelines(self, list_of_data: Any) -> None:
        self.write(b"".join(list_of_data))

    def _release(self) -> None:
        held, self._held = self._held, None
        self._paired = False
        if held and not self._transport.is_closing():
            self._transport.write(b"".join(held))

    def unwrapped(self) -> asyncio.Transport:
        """What is held written, the transport itself (a protocol taking the connection over)."""
        self._release()
        return self._transport

    def close(self) -> None:
        self._release()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._paired = False
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
