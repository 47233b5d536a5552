"""The WebSocket protocol the server runs (``band_server.ws_protocol``): a held socket keeps no
handshake, and its receive queue behaves as ``asyncio.Queue`` does for uvicorn's one consumer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
import websockets
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.types import Receive, Scope, Send

from band_server.server_stack import uvicorn_options
from band_server.ws_protocol import HeldSocketProtocol, ReceiveQueue
from conftest import free_port
from property_kit import serve_beside, serve_in_thread

# -- the queue, beside asyncio.Queue ------------------------------------------------------------

# ("put", n): put_nowait(n); ("get",): get() once something is there; ("cancel",): a get()
# that waits and is cancelled before anything comes (only on an empty queue); ("peek",):
# empty() and qsize().
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, 1000)),
        st.tuples(st.just("get")),
        st.tuples(st.just("cancel")),
        st.tuples(st.just("peek")),
    ),
    max_size=60,
)


async def _play(queue: Any, ops: list[tuple[Any, ...]]) -> list[object]:
    seen: list[object] = []
    for op in ops:
        if op[0] == "put":
            queue.put_nowait(op[1])
        elif op[0] == "get" and not queue.empty():
            seen.append(await queue.get())
        elif op[0] == "cancel" and queue.empty():
            waiting = asyncio.ensure_future(queue.get())
            await asyncio.sleep(0)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            seen.append("cancelled")
        seen.append((queue.empty(), queue.qsize()))
    while not queue.empty():
        seen.append(await queue.get())
    # A consumer waiting first, then woken by a put, as uvicorn's receive() is.
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait("woken")
    seen.append(await waiting)
    seen.append((queue.empty(), queue.qsize()))
    return seen


@given(OPS)
def test_the_receive_queue_answers_as_asyncio_queue_does(ops: list[tuple[Any, ...]]) -> None:
    ours = asyncio.run(_play(ReceiveQueue(), ops))
    theirs = asyncio.run(_play(asyncio.Queue(), ops))
    assert ours == theirs


async def test_a_cancelled_wait_loses_no_item_put_meanwhile() -> None:
    queue: ReceiveQueue[str] = ReceiveQueue()
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait("a")  # wakes the waiter ...
    waiting.cancel()  # ... which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await waiting
    queue.put_nowait("b")
    assert [await queue.get(), await queue.get()] == ["a", "b"]
    assert queue.empty() and queue._items is None  # drained: no storage held


# -- a real server ---------------------------------------------------------------------------


async def _echo(scope: Scope, receive: Receive, send: Send) -> None:
    """Accept, then answer every text frame with its number and text, until the close."""
    assert scope["type"] == "websocket"
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    n = 0
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        n += 1
        await send({"type": "websocket.send", "text": json.dumps([n, message["text"]])})


@pytest.fixture
def server() -> Iterator[tuple[uvicorn.Server, str]]:
    port = free_port()
    config = uvicorn.Config(
        _echo, host="127.0.0.1", port=port, log_level="warning", **uvicorn_options()
    )
    config.lifespan = "off"
    served, thread = serve_in_thread(config)
    try:
        yield served, f"ws://127.0.0.1:{port}/socket?x=1"
    finally:
        served.should_exit = True
        thread.join(30)


async def test_a_held_socket_keeps_no_handshake_and_serves_frames_in_order(
    server: tuple[uvicorn.Server, str],
) -> None:
    served, url = server
    async with websockets.connect(
        url, additional_headers={"x-api-key": "secret-" + "k" * 200}, compression=None
    ) as ws:
        await ws.send("first")
        assert json.loads(await ws.recv()) == [1, "first"]
        (protocol,) = served.server_state.connections
        assert isinstance(protocol, HeldSocketProtocol)
        # The handshake is gone: neither uvicorn nor websockets' parser holds its headers.
        assert protocol.request is None and protocol.response is None
        held = [
            v
            for v in protocol.conn.parser.gi_frame.f_locals.values()  # type: ignore[attr-defined]
            if isinstance(v, websockets.http11.Request)
        ]
        assert all(len(r.headers) == 0 for r in held)
        assert isinstance(protocol.queue, ReceiveQueue) and protocol.queue.empty()
        texts = [f"frame {i}" for i in range(200)]
        for text in texts:
            await ws.send(text)
        answers = [json.loads(await ws.recv()) for _ in texts]
        assert answers == [[i + 2, t] for i, t in enumerate(texts)]


# -- the held socket beside uvicorn's own websockets protocol -----------------------------------


async def _echo_any(scope: Scope, receive: Receive, send: Send) -> None:
    """Accept, then answer every frame (text or bytes) with its kind, number and content."""
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    n = 0
    while (message := await receive())["type"] != "websocket.disconnect":
        n += 1
        if message.get("text") is not None:
            await send({"type": "websocket.send", "text": json.dumps(["text", n, message["text"]])})
        else:
            await send({"type": "websocket.send", "bytes": message["bytes"]})


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    """Two servers of the same app: ours (``HeldSocketProtocol``) and uvicorn's own
    ``websockets-sansio`` protocol, which ours subclasses."""
    variants: dict[str, dict[str, Any]] = {"held": {}, "stock": {"ws": "websockets-sansio"}}
    with serve_beside(_echo_any, variants) as ports:
        yield {name: f"ws://127.0.0.1:{port}/socket" for name, port in ports.items()}


FRAMES = st.lists(
    st.one_of(
        st.text(max_size=300),
        st.binary(max_size=300),
        # a frame over 64 KiB (the 8-byte length form): a short text repeated
        st.builds(lambda t, n: (t or "x") * n, st.text(min_size=1, max_size=8), st.just(70_000)),
    ),
    max_size=12,
)


async def _conversation(url: str, frames: list[str | bytes], close_code: int) -> list[Any]:
    seen: list[Any] = []
    async with websockets.connect(url, compression=None, max_size=None) as ws:
        for frame in frames:
            await ws.send(frame)
            answer = await ws.recv()
            seen.append(json.loads(answer) if isinstance(answer, str) else answer)
        await ws.close(close_code)
        seen.append(ws.close_code)
    return seen


@settings(max_examples=40, deadline=None)
@given(frames=FRAMES, close_code=st.sampled_from([1000, 1001, 4000]))
def test_the_held_socket_answers_as_uvicorns_own_protocol(
    servers: dict[str, str], frames: list[str | bytes], close_code: int
) -> None:
    """The same frames (text, odd unicode, bytes, a frame over 64 KiB) and close, through our
    protocol and through the one it stands beside, get the same answers and close code."""
    ours = asyncio.run(_conversation(servers["held"], frames, close_code))
    theirs = asyncio.run(_conversation(servers["stock"], frames, close_code))
    assert ours == theirs
