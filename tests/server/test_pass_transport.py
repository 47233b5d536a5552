"""A held socket's transport (``band_server.ws_protocol.PassTransport``): the same bytes in the
same order as uvicorn's own protocol writes, in fewer writes when a pass pushes several frames.

Both protocols run in process over a recording transport, answer the same upgrade and get the
same program: passes of pushed frames (text and bytes), the peer's pings between them (whose
pongs the protocol writes by itself), then a close. What each wrote, joined, must be the same
bytes; ours writes at most twice a pass (the pass's first write at once, the rest together).
"""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

import uvicorn
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.types import Receive, Scope, Send
from transport_kit import Recorder
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from band_server.pass_transport import PassTransport
from band_server.server_stack import uvicorn_options
from band_server.ws_protocol import HeldSocketProtocol

# A pass: ("push", frames) sends each frame in one step of the app; ("ping", payload) is the
# peer's ping arriving (the protocol answers it with a pong of its own).
FRAME = st.one_of(st.text(max_size=200), st.binary(max_size=200), st.just("x" * 70_000))
PASSES = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.lists(FRAME, min_size=1, max_size=6)),
        st.tuples(st.just("ping"), st.binary(max_size=20)),
    ),
    max_size=10,
)


def _masked(opcode: int, payload: bytes) -> bytes:
    """A client's frame (FIN, masked with a zero mask: the payload as is)."""
    assert len(payload) < 126
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


async def _run(
    protocol_class: type[WebSocketsSansIOProtocol], program: list[Any], key: str
) -> Recorder:
    steps: asyncio.Queue[Any] = asyncio.Queue()
    done = asyncio.get_running_loop().create_future()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (step := await steps.get()) is not None:
            for frame in step:
                if isinstance(frame, str):
                    await send({"type": "websocket.send", "text": frame})
                else:
                    await send({"type": "websocket.send", "bytes": frame})
        await send({"type": "websocket.close", "code": 4000, "reason": "bye"})
        done.set_result(None)

    options = uvicorn_options()
    options.pop("ws", None)
    config = uvicorn.Config(app, ws=protocol_class, lifespan="off", log_level="warning", **options)
    config.load()
    protocol = protocol_class(config, ServerState(), {})
    recorder = Recorder()
    protocol.connection_made(recorder)
    protocol.data_received(
        (
            "GET /socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    for _ in range(5):
        await asyncio.sleep(0)
    for kind, arg in program:
        if kind == "push":
            await steps.put(arg)
        else:
            protocol.data_received(_masked(0x9, arg))
        for _ in range(5):  # the app's step, then the pass that releases what was held
            await asyncio.sleep(0)
    await steps.put(None)
    await done
    for _ in range(5):
        await asyncio.sleep(0)
    protocol.connection_lost(None)
    return recorder


@settings(max_examples=60, deadline=None)
@given(program=PASSES)
def test_the_same_bytes_as_uvicorns_protocol_in_fewer_writes(program: list[Any]) -> None:
    key = base64.b64encode(os.urandom(16)).decode()
    ours = asyncio.run(_run(HeldSocketProtocol, program, key))
    theirs = asyncio.run(_run(WebSocketsSansIOProtocol, program, key))
    # uvicorn's 101 carries a Date header: compare from the end of the response on.
    ours_bytes, theirs_bytes = b"".join(ours.writes), b"".join(theirs.writes)
    assert ours_bytes.split(b"\r\n\r\n", 1)[1] == theirs_bytes.split(b"\r\n\r\n", 1)[1]
    frames = sum(len(arg) for kind, arg in program if kind == "push")
    # uvicorn's: the 101, one write a frame, a pong a ping, the close.
    assert len(theirs.writes) == 1 + frames + sum(kind == "ping" for kind, _ in program) + 1
    assert len(ours.writes) <= len(theirs.writes)
    pushes = [arg for kind, arg in program if kind == "push"]
    # One write for the 101, at most two a pass of pushes, one a pong, one for the close.
    assert len(ours.writes) <= 1 + 2 * len(pushes) + (len(program) - len(pushes)) + 1
    assert ours.closed == theirs.closed


async def test_a_pass_first_write_goes_at_once_and_the_rest_when_the_loop_comes_round() -> None:
    recorder = Recorder()
    transport = PassTransport(recorder, asyncio.get_running_loop())
    transport.write(b"a")
    assert recorder.writes == [b"a"]  # a lone frame waits for nothing
    transport.write(b"b")
    transport.writelines([b"c", b"d"])
    assert recorder.writes == [b"a"] and transport.get_write_buffer_size() == 3
    await asyncio.sleep(0)
    assert recorder.writes == [b"a", b"bcd"]
    transport.write(b"e")  # a new pass: at once again
    assert recorder.writes == [b"a", b"bcd", b"e"]
    await asyncio.sleep(0)
    assert recorder.writes == [b"a", b"bcd", b"e"]


async def test_a_close_writes_what_is_held_first_and_an_abort_drops_it() -> None:
    loop = asyncio.get_running_loop()
    closing = Recorder()
    transport = PassTransport(closing, loop)
    transport.write(b"a")
    transport.write(b"b")
    transport.close()
    assert closing.writes == [b"a", b"b"] and closing.closed and transport.is_closing()
    await asyncio.sleep(0)
    assert closing.writes == [b"a", b"b"]  # nothing written after the close

    aborting = Recorder()
    transport = PassTransport(aborting, loop)
    transport.write(b"a")
    transport.write(b"b")
    transport.abort()
    await asyncio.sleep(0)
    assert aborting.writes == [b"a"] and aborting.aborted


async def test_what_is_held_is_dropped_when_the_peer_is_gone() -> None:
    recorder = Recorder()
    transport = PassTransport(recorder, asyncio.get_running_loop())
    transport.write(b"a")
    transport.write(b"b")
    recorder.aborted = True  # the connection was lost meanwhile
    await asyncio.sleep(0)
    assert recorder.writes == [b"a"]
