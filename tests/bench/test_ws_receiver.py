"""The load generator's listener times each frame by its bytes' arrival, and loses none.

A raw server (websockets' sans-I/O server protocol over a plain asyncio server) controls how
the frames are cut into writes: a burst in one write, a frame split over two writes with a
pause between, after a Phoenix join answered ``ok``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from bench._ws_receiver import listen
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol


def _frame(server: ServerProtocol, value: Any) -> bytes:
    server.send_text(json.dumps(value).encode())
    return b"".join(server.data_to_send())


def _push(token: str) -> list[Any]:
    return ["1", None, "chat_room:r", "message_created", {"content": f"ping {token}"}]


class _Server(asyncio.Protocol):
    def __init__(self, pause: float, status: str = "ok") -> None:
        self.ws = ServerProtocol()
        self.pause = pause
        self.status = status  # the join's answer; pushes follow an "ok" only
        self.headers: dict[str, str] = {}

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Request):
                self.headers = {k.lower(): v for k, v in event.headers.raw_items()}
                ws.send_response(ws.accept(event))
                self.transport.write(b"".join(ws.data_to_send()))
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                join_ref, ref, topic, _, _ = json.loads(bytes(event.data))
                answer = {"status": self.status, "response": {}}
                self.transport.write(_frame(ws, [join_ref, ref, topic, "phx_reply", answer]))
                if self.status == "ok":
                    asyncio.get_running_loop().create_task(self.pushes())

    async def pushes(self) -> None:
        ws = self.ws
        burst = b"".join(_frame(ws, _push(f"b{i}")) for i in range(5))
        self.transport.write(burst)  # five frames, one write
        await asyncio.sleep(self.pause)
        split = _frame(ws, _push("s" * 300))  # a 16-bit length, cut in its payload
        self.transport.write(split[:40])
        await asyncio.sleep(self.pause)
        self.transport.write(split[40:])


async def test_frames_keep_their_arrival_and_none_is_lost() -> None:
    pause = 0.05
    server_side: list[_Server] = []

    def make() -> _Server:
        server_side.append(_Server(pause))
        return server_side[-1]

    loop = asyncio.get_running_loop()
    server = await loop.create_server(make, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    got: list[tuple[str, float]] = []
    done = loop.create_future()

    def on_frame(text: str, arrived: float) -> None:
        got.append((json.loads(text)[4]["content"], arrived))
        if len(got) == 6:
            done.set_result(None)

    try:
        join = [["1", "1", "chat_room:r", "phx_join", {}]]
        listener = await listen(
            f"ws://127.0.0.1:{port}/socket?vsn=2.0.0", {"x-api-key": "k1"}, join, on_frame
        )
        await asyncio.wait_for(done, timeout=5)
        listener.close()
    finally:
        server.close()
    assert server_side[0].headers["x-api-key"] == "k1"
    assert [c for c, _ in got] == [f"ping b{i}" for i in range(5)] + ["ping " + "s" * 300]
    burst_times = {t for _, t in got[:5]}
    assert len(burst_times) == 1  # one write, one arrival
    # The split frame is stamped when its last part came, a pause after its first.
    assert got[5][1] - got[4][1] >= 2 * pause * 0.8


async def test_a_refused_join_is_an_error() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Server(0, status="error"), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(RuntimeError, match="join refused"):
            await listen(
                f"ws://127.0.0.1:{port}/s", {}, [["1", "1", "t", "phx_join", {}]], lambda t, a: None
            )
    finally:
        server.close()
