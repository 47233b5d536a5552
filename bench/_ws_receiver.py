"""The load generator's WebSocket listener: each frame timed when its bytes arrive.

Bench-only. websockets' sans-I/O client protocol parses the frames; this asyncio protocol
feeds it and stamps every frame with the moment its last bytes reached ``data_received``,
before any of them is decoded. A server that sends a batch's pushes in one write is then
timed by when they arrived, not by how long the generator's own process takes to decode a
burst of frames one after another behind its sender's work (docs/decisions.md, "The 3,000/s
tail follows the loop's thread").
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

OnFrame = Callable[[str, float], None]
"""Called with each text frame's text and the ``perf_counter`` of its arrival."""


class Listener(asyncio.Protocol):
    """One client WebSocket; text frames go to ``on_frame`` with their arrival time."""

    def __init__(self, client: ClientProtocol) -> None:
        self.client = client
        self.on_frame: OnFrame | None = None
        self.replies_due = 0  # the next text frames answer the joins sent
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._replies: asyncio.Queue[str] = asyncio.Queue()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        client = self.client
        client.receive_data(data)
        for event in client.events_received():
            if isinstance(event, Response):
                if not self.opened.done():
                    if client.handshake_exc is not None:
                        self.opened.set_exception(client.handshake_exc)
                    else:
                        self.opened.set_result(event)
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                text = bytes(event.data).decode()
                if self.replies_due:
                    self.replies_due -= 1
                    self._replies.put_nowait(text)
                elif self.on_frame is not None:
                    self.on_frame(text, arrived)
        self._flush()  # pongs, a close's answer

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def _flush(self) -> None:
        if self.transport is None:
            return
        for chunk in self.client.data_to_send():
            if chunk:
                self.transport.write(chunk)
            else:  # the protocol asks for the end of the stream
                self.transport.close()

    def send_json(self, value: Any) -> None:
        self.client.send_text(json.dumps(value).encode())
        self._flush()

    async def reply(self) -> Any:
        """The next answer to a join (a text frame counted in :attr:`replies_due`), decoded."""
        return json.loads(await self._replies.get())

    def close(self) -> None:
        self.client.send_close()
        self._flush()


async def listen(
    url: str, headers: Mapping[str, str], join: Sequence[Any], on_frame: OnFrame
) -> Listener:
    """Connect to ``url`` with ``headers``, send each ``join`` frame and check its ``ok``
    reply, then hand every later text frame to ``on_frame``."""
    uri = parse_uri(url)
    client = ClientProtocol(uri)
    request = client.connect()
    for name, value in headers.items():
        request.headers[name] = value
    loop = asyncio.get_running_loop()
    _, listener = await loop.create_connection(lambda: Listener(client), uri.host, uri.port)
    client.send_request(request)
    listener._flush()
    await listener.opened
    listener.on_frame = on_frame  # from the frame after the last join's answer on
    for frame in join:
        listener.replies_due += 1
        listener.send_json(frame)
        answer = await listener.reply()
        if answer[4]["status"] != "ok":
            raise RuntimeError(f"join refused: {answer}")
    return listener
