"""A text frame written without the ASGI send (``HeldSocketProtocol.push_text``): the bytes
websockets' server protocol makes for ``send_text``, and the library's own path whenever the
socket is not in its plain steady state, in the order the frames were pushed.

The protocol runs in process over a recording transport; a websockets client protocol reads
what it wrote back into frames.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from hypothesis import example, given, settings
from hypothesis import strategies as st
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from transport_kit import Recorder
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.exceptions import ProtocolError
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from band_server.realtime.connection import SocketConnection
from band_server.server_stack import uvicorn_options
from band_server.services.identity.principals import Principal
from band_server.ws_protocol import HeldSocketProtocol

AGENT = Principal("agent", "a1", "Echo", "alice/echo", owner_id="u1")

# The payload lengths at and around each of the three length forms, in UTF-8 bytes.
EDGES = [0, 1, 125, 126, 127, 65535, 65536, 70000]


def _text_of(size: int, filler: str) -> str:
    """A text of exactly ``size`` UTF-8 bytes: ``filler`` (multi-byte, perhaps) padded with a."""
    width = len(filler.encode())
    return filler * (size // width) + "a" * (size % width)


def _library_frame(text: str) -> bytes:
    """What websockets' own server protocol, open, writes for ``send_text``."""
    server = ServerProtocol(state=OPEN)
    server.send_text(text.encode())
    return b"".join(server.data_to_send())


def _frames(data: bytes) -> list[Frame]:
    """The frames a server wrote, read by websockets' client protocol."""
    client = ClientProtocol(parse_uri("ws://x/socket"), state=OPEN, max_size=None)
    client.receive_data(data)
    return [e for e in client.events_received() if isinstance(e, Frame)]


@dataclass
class Served:
    """One socket, upgraded and accepted, and what its app received."""

    protocol: HeldSocketProtocol
    recorder: Recorder
    websocket: WebSocket
    after_upgrade: int  # bytes written by then (the 101)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def finish(self) -> None:
        """The app returns (and uvicorn closes the transport)."""
        self.done.set()
        for _ in range(3):
            await asyncio.sleep(0)

    def frames(self) -> list[Frame]:
        return _frames(b"".join(self.recorder.writes)[self.after_upgrade :])


async def _serve(
    *,
    deflate: bool = False,
    accept: bool = True,
    log_level: str = "warning",
    protocol_class: type[WebSocketsSansIOProtocol] = HeldSocketProtocol,
) -> Served:
    """A protocol over a recording transport; its app accepts (through Starlette) and holds."""
    ready: asyncio.Future[Served] = asyncio.get_running_loop().create_future()
    recorder = Recorder()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive, send)
        if accept:
            await websocket.accept()
        served = Served(protocol, recorder, websocket, sum(map(len, recorder.writes)))
        ready.set_result(served)
        await served.done.wait()

    options = uvicorn_options()
    options.pop("ws", None)
    options["ws_per_message_deflate"] = deflate
    config = uvicorn.Config(app, ws=protocol_class, lifespan="off", log_level=log_level, **options)
    config.load()
    protocol: Any = protocol_class(config, ServerState(), {})
    protocol.connection_made(recorder)
    key = base64.b64encode(os.urandom(16)).decode()
    extensions = "Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else ""
    protocol.data_received(
        (
            "GET /socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extensions}\r\n"
        ).encode()
    )
    served = await asyncio.wait_for(ready, 5)
    await asyncio.sleep(0)  # what PassTransport held is written
    return served


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    socket = await _serve()
    yield socket
    await socket.finish()


# -- the bytes ----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text())
@example("")
@example("\U0001f600" * 40_000)  # 160,000 bytes: the 64-bit length form
def test_push_text_writes_the_frame_websockets_makes(text: str) -> None:
    assert asyncio.run(_pushed(text)) == _library_frame(text)


@pytest.mark.parametrize("size", EDGES)
@pytest.mark.parametrize("filler", ["a", "\u00e9", "\u20ac", "\U0001f600"])
def test_every_length_form_is_the_frame_websockets_makes(size: int, filler: str) -> None:
    text = _text_of(size, filler)
    assert len(text.encode()) == size
    pushed = asyncio.run(_pushed(text))
    assert pushed == _library_frame(text)
    (frame,) = _frames(pushed)
    assert (frame.opcode, frame.fin, frame.data.decode()) == (Opcode.TEXT, True, text)


async def _pushed(text: str) -> bytes:
    """The bytes ``push_text`` wrote, in the one write it made."""
    served = await _serve()
    writes = len(served.recorder.writes)
    assert served.protocol.push_text(text) is True
    assert len(served.recorder.writes) == writes + 1
    await served.finish()
    return served.recorder.writes[-1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(max_size=300), max_size=8))
def test_a_socket_pushed_to_writes_as_the_asgi_send_does(texts: list[str]) -> None:
    """The same texts, one socket pushed to and one sent to: the same bytes after the 101, and
    websockets' state as ``send_text`` leaves it."""

    async def run(push: bool) -> tuple[bytes, tuple[object, ...]]:
        served = await _serve()
        for text in texts:
            if push:
                assert served.protocol.push_text(text)
            else:
                await served.websocket.send_text(text)
        await asyncio.sleep(0)
        conn = served.protocol.conn
        state = (
            conn.state,
            conn.expect_continuation_frame,
            conn.writes,
            served.protocol.close_sent,
        )
        await served.finish()
        return b"".join(served.recorder.writes)[served.after_upgrade :], state

    assert asyncio.run(run(True)) == asyncio.run(run(False))


async def test_a_text_that_is_no_utf8_raises_as_the_asgi_send_does(served: Served) -> None:
    with pytest.raises(UnicodeEncodeError):
        await served.websocket.send_text("\ud800")
    writes = list(served.recorder.writes)
    with pytest.raises(UnicodeEncodeError):
        served.protocol.push_text("\ud800")
    assert served.recorder.writes == writes


# -- when the library's path is taken ------------------------------------------------------------


async def test_a_paused_transport_takes_the_library_path(served: Served) -> None:
    served.protocol.pause_writing()
    assert served.protocol.push_text("x") is False
    served.protocol.resume_writing()
    assert served.protocol.push_text("x") is True


async def test_a_send_under_way_is_not_overtaken(served: Served) -> None:
    protocol = served.protocol
    protocol.pause_writing()
    waiting = asyncio.ensure_future(served.websocket.send_text("first"))
    await asyncio.sleep(0)
    protocol.resume_writing()  # writable again, but the first send has not run yet
    assert protocol.push_text("second") is False
    await waiting
    assert protocol.push_text("second") is True
    await asyncio.sleep(0)
    assert [f.data for f in served.frames()] == [b"first", b"second"]


async def test_a_close_sent_takes_the_library_path(served: Served) -> None:
    await served.websocket.close(4000)
    assert served.protocol.push_text("x") is False


async def test_a_close_received_takes_the_library_path(served: Served) -> None:
    # The peer's close (masked with a zero mask): websockets' connection is closing.
    served.protocol.data_received(bytes([0x88, 0x82, 0, 0, 0, 0]) + (1000).to_bytes(2, "big"))
    assert served.protocol.push_text("x") is False


async def test_a_lost_connection_takes_the_library_path(served: Served) -> None:
    served.protocol.connection_lost(None)
    assert served.protocol.push_text("x") is False


async def test_output_of_websockets_not_yet_written_takes_the_library_path(served: Served) -> None:
    served.protocol.conn.send_ping(b"p")  # queued in websockets, not yet taken by uvicorn
    assert served.protocol.push_text("x") is False
    await served.websocket.send_text("x")  # takes the ping out first
    await asyncio.sleep(0)
    assert [(f.opcode, f.data) for f in served.frames()] == [
        (Opcode.PING, b"p"),
        (Opcode.TEXT, b"x"),
    ]
    assert served.protocol.push_text("y") is True


async def test_a_fragmented_message_under_way_takes_the_library_path(served: Served) -> None:
    served.protocol.conn.send_text(b"a", fin=False)
    served.protocol.conn.data_to_send()
    assert served.protocol.push_text("x") is False
    with pytest.raises(ProtocolError):
        await served.websocket.send_text("x")


async def test_before_the_handshake_completes_the_library_path_is_taken() -> None:
    served = await _serve(accept=False)
    assert served.protocol.handshake_complete is False
    assert served.protocol.push_text("x") is False
    await served.finish()


async def test_an_extension_negotiated_takes_the_library_path() -> None:
    served = await _serve(deflate=True)
    assert served.protocol.conn.extensions  # permessage-deflate
    assert served.protocol.push_text("x" * 300) is False
    await served.finish()


async def test_websockets_logging_frames_takes_the_library_path() -> None:
    logger = logging.getLogger("uvicorn.error")
    level = logger.level
    try:
        served = await _serve(log_level="debug")
    finally:
        logger.setLevel(level)
    assert served.protocol.conn.debug
    assert served.protocol.push_text("x") is False
    await served.finish()


async def test_only_a_send_going_straight_to_our_protocol_is_pushed_to() -> None:
    served = await _serve()
    assert HeldSocketProtocol.serving(served.websocket) is served.protocol
    scope, receive = served.websocket.scope, served.websocket._receive

    async def wrapped(message: Any) -> None:
        await served.protocol.send(message)

    assert HeldSocketProtocol.serving(WebSocket(scope, receive, wrapped)) is None
    await served.finish()
    stock = await _serve(protocol_class=WebSocketsSansIOProtocol)
    assert HeldSocketProtocol.serving(stock.websocket) is None
    await stock.finish()


# -- through the socket's connection ------------------------------------------------------------


def _spy(protocol: HeldSocketProtocol, monkeypatch: pytest.MonkeyPatch) -> list[bool | None]:
    """What each push_text call answered (True: written without the ASGI send; None: raised)."""
    answers: list[bool | None] = []
    push: Callable[[str], bool] = protocol.push_text

    def spy(text: str) -> bool:
        answers.append(None)
        answers[-1] = push(text)
        return answers[-1]

    monkeypatch.setattr(protocol, "push_text", spy)
    return answers


def _connection(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> tuple[SocketConnection, list[bool | None]]:
    """The socket's connection, started, and what its protocol's push_text answers."""
    answers = _spy(served.protocol, monkeypatch)
    conn = SocketConnection(served.websocket, AGENT)
    conn.start()
    return conn, answers


async def test_pushes_keep_their_order_across_both_paths(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, answers = _connection(served, monkeypatch)
    tasks = asyncio.all_tasks()
    conn.send_text("1")  # plain: written at once, no task
    assert answers == [True] and asyncio.all_tasks() == tasks
    served.protocol.pause_writing()
    conn.send_text("2")  # paused: the library's send waits in a writer task
    conn.send_text("3")  # queued behind it
    assert answers == [True, False]
    served.protocol.resume_writing()
    conn.send_text("4")  # writable again, but queued: the writer has not drained
    assert answers == [True, False]
    (writer,) = asyncio.all_tasks() - tasks
    await writer
    conn.send_text("5")  # idle again: written at once
    assert answers == [True, False, True]
    await asyncio.sleep(0)
    assert [f.data for f in served.frames()] == [b"1", b"2", b"3", b"4", b"5"]
    assert conn.frames_out == 5


async def test_a_connection_on_a_deflating_socket_sends_as_the_library_does() -> None:
    texts = ["a" * 500, "\u20ac" * 100, "", "a" * 500]

    async def run(through_connection: bool) -> bytes:
        served = await _serve(deflate=True)
        if through_connection:
            conn = SocketConnection(served.websocket, AGENT)
            conn.start()
            for text in texts:
                conn.send_text(text)
            assert conn.frames_out == len(texts)
        else:
            for text in texts:
                await served.websocket.send_text(text)
        await asyncio.sleep(0)
        await served.finish()
        return b"".join(served.recorder.writes)[served.after_upgrade :]

    ours = await run(True)
    assert ours[0] & 0x40  # RSV1: compressed by permessage-deflate
    assert ours == await run(False)


async def test_a_connection_after_its_close_pushes_nothing(served: Served) -> None:
    conn = SocketConnection(served.websocket, AGENT)
    conn.start()
    conn.send_text("before")
    conn.close(4000)
    conn.send_text("after")
    await conn.shutdown()
    frames = served.frames()
    assert [(f.opcode, f.data[:6]) for f in frames] == [
        (Opcode.TEXT, b"before"),
        (Opcode.CLOSE, (4000).to_bytes(2, "big")),
    ]


async def test_a_socket_starlette_saw_closed_is_not_pushed_to(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, answers = _connection(served, monkeypatch)
    served.protocol.transport.close()
    await served.websocket.close(4000)  # Starlette sends nothing more; uvicorn wrote no close
    assert served.protocol.close_sent is False
    conn.send_text("x")
    assert answers == [] and conn.frames_out == 0
