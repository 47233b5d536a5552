"""The HTTP protocol the server runs (``band_server.http_protocol``): the same bytes as uvicorn's
own httptools protocol, an answer's head and body in one write, and WebSocket upgrades through
it as before.

Two servers of the same app, ours and uvicorn's ``httptools``, get the same generated
conversations on raw sockets (requests pipelined or one by one, answers of every shape: a JSON
body, an empty one, a streamed one with waits between its chunks, HEAD, a request the parser
refuses); what each answers, its ``date`` header aside, must be the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Iterator

import pytest
import uvicorn
import websockets
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.types import Receive, Scope, Send
from transport_kit import Recorder
from uvicorn.server import ServerState

from band_server.http_protocol import JoinedHttpProtocol
from band_server.server_stack import uvicorn_options
from property_kit import serve_beside


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers by path: /json/<n>, /empty, /stream/<n>, /echo (the body back)."""
    if scope["type"] == "websocket":
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] != "websocket.disconnect":
            await send({"type": "websocket.send", "text": "echo " + message["text"]})
        return
    assert scope["type"] == "http"
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    kind, _, arg = scope["path"].strip("/").partition("/")
    if kind == "stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for i in range(int(arg or 0)):
            await asyncio.sleep(0)
            await send({"type": "http.response.body", "body": b"%d;" % i, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    if kind == "json":
        payload = json.dumps({"n": int(arg or 0), "x": "y" * int(arg or 0)}).encode()
    elif kind == "echo":
        payload = body
    else:
        payload = b""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(payload))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, int]]:
    """Two servers of the same app: ours (``JoinedHttpProtocol``) and uvicorn's httptools."""
    with serve_beside(_app, {"joined": {}, "stock": {"http": "httptools"}}) as ports:
        yield ports


REQUEST = st.one_of(
    st.builds(lambda n: f"GET /json/{n} HTTP/1.1\r\nHost: x\r\n\r\n", st.integers(0, 3000)),
    st.just("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n"),
    st.just("HEAD /json/5 HTTP/1.1\r\nHost: x\r\n\r\n"),
    st.builds(lambda n: f"GET /stream/{n} HTTP/1.1\r\nHost: x\r\n\r\n", st.integers(0, 4)),
    st.builds(
        lambda b: f"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: {len(b)}\r\n\r\n{b}",
        st.text(alphabet="abc{}:\"' ", max_size=200),
    ),
)


def _talk(port: int, requests: list[str], pipelined: bool, refused: bool) -> bytes:
    """Send the requests, then one the parser refuses or a closing one; all that came back.

    Pipelined: everything in one send (and never the refused one: whether the parser meets it
    before or after an answer streams out depends on how the kernel splits the segments).
    One by one: each answer read to its end before the next request goes.
    """
    closing = "GET /empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        received = b""
        if pipelined:
            conn.sendall("".join([*requests, closing]).encode())
        else:
            for request in requests:
                conn.sendall(request.encode())
                received += _one_answer(conn, head_only=request.startswith("HEAD"))
            conn.sendall(("GARBAGE\r\n\r\n" if refused else closing).encode())
        while chunk := conn.recv(65536):
            received += chunk
    return received


def _one_answer(conn: socket.socket, head_only: bool) -> bytes:
    """Read one answer to its end (its length, or a chunked body's last chunk)."""
    data = b""
    while True:
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep:
            length = re.search(rb"(?im)^content-length: (\d+)", head)
            if head_only or (length is not None and len(body) >= int(length.group(1))):
                return data
            if length is None and body.endswith(b"0\r\n\r\n"):
                return data
        chunk = conn.recv(65536)
        assert chunk, "the server closed mid-answer"
        data += chunk


def _without_dates(data: bytes) -> bytes:
    return re.sub(rb"(?im)^date: [^\r]*\r\n", b"", data)


@settings(max_examples=40, deadline=None)
@given(requests=st.lists(REQUEST, max_size=6), pipelined=st.booleans(), refused=st.booleans())
def test_the_joined_protocol_answers_as_uvicorns_httptools(
    servers: dict[str, int], requests: list[str], pipelined: bool, refused: bool
) -> None:
    ours = _talk(servers["joined"], requests, pipelined, refused)
    theirs = _talk(servers["stock"], requests, pipelined, refused)
    assert _without_dates(ours) == _without_dates(theirs)
    assert ours.count(b"HTTP/1.1 ") == len(requests) + 1


async def test_a_socket_upgrades_through_the_joined_protocol(servers: dict[str, int]) -> None:
    url = f"ws://127.0.0.1:{servers['joined']}/socket"
    async with websockets.connect(url, compression=None) as ws:
        for text in ("one", "two"):
            await ws.send(text)
            assert await ws.recv() == "echo " + text


async def test_an_answer_goes_out_in_one_write() -> None:
    options = uvicorn_options()
    options.pop("http")
    config = uvicorn.Config(_app, http=JoinedHttpProtocol, lifespan="off", **options)
    config.load()
    protocol = JoinedHttpProtocol(config, ServerState(), {})
    recorder = Recorder()
    protocol.connection_made(recorder)
    protocol.data_received(b"GET /json/3 HTTP/1.1\r\nHost: x\r\n\r\n")
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(recorder.writes) == 1
    head, body = recorder.writes[0].split(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK") and json.loads(body) == {"n": 3, "x": "yyy"}
    protocol.data_received(b"GET /stream/2 HTTP/1.1\r\nHost: x\r\n\r\n")
    for _ in range(10):
        await asyncio.sleep(0)
    # Streamed: the head with nothing after it in its step goes when the loop comes round.
    assert b"".join(recorder.writes[1:]).endswith(b"0;\r\n2\r\n1;\r\n0\r\n\r\n")
    protocol.connection_lost(None)
