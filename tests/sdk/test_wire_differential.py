"""The REST link's wires (aiohttp's, the plain one) against httpx's client: differential tests.

Generated requests (methods, paths with characters that need quoting, query values of every
kind httpx accepts, JSON bodies, raw bodies, extra headers) go once through ``HttpxWire``
(httpx's own client and pool), once through ``AiohttpWire`` and once through ``StreamWire``
to a server that records the bytes it receives and answers a generated response (statuses,
headers, cookies, gzip bodies, empty bodies). The server must see the same request line,
headers and body from each, and each must hand back the same ``httpx.Response`` (status,
reason, headers, decoded content). Then the failures: refused connections, a peer that closes
mid-way, one that never answers: the same ``httpx`` error classes from all three.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from band.platform._http import HttpCore
from band.platform._stream_wire import StreamWire
from band.platform._wire import AiohttpWire, Attempt, HttpxWire, Wire
from band.platform._wire_choice import make_wire
from property_kit import LoopThread, live

HEADERS = {"X-API-Key": "key", "Accept": "application/json"}
LIMITS = httpx.Limits(max_connections=32, max_keepalive_connections=16)


@dataclass
class Recorder:
    """A raw HTTP/1.1 server: records each request's bytes, answers ``answer`` (or acts
    out ``mode``: ``close`` before answering, ``cut`` mid-body, ``silent``)."""

    answer: bytes = b"HTTP/1.1 204 No Content\r\n\r\n"
    mode: str = "answer"
    seen: list[tuple[bytes, list[tuple[bytes, bytes]], bytes]] = field(default_factory=list)
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line, *rest = head[:-4].split(b"\r\n")
                headers = sorted(
                    (name.strip().lower(), value.strip())
                    for name, value in (h.split(b":", 1) for h in rest)
                )
                length = int(dict(headers).get(b"content-length", b"0"))
                self.seen.append((line, headers, await reader.readexactly(length)))
                if self.mode == "silent":
                    await reader.read()  # until the client gives up and closes
                if self.mode == "close":
                    break
                if self.mode == "cut":
                    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc")
                    break
                writer.write(self.answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[LoopThread, Recorder]]:
    loop = LoopThread()
    recorder = Recorder()

    async def start() -> asyncio.Server:
        server = await asyncio.start_server(recorder.handle, "127.0.0.1", 0)
        recorder.port = server.sockets[0].getsockname()[1]
        return server

    server = loop.run(start())
    yield loop, recorder
    loop.run(_close(server))
    loop.stop()


async def _close(server: asyncio.Server) -> None:
    server.close()


def wires(port: int) -> tuple[Wire, Wire, Wire]:
    """httpx's client, then ours: aiohttp's (what a link following redirects uses) and the
    plain wire (a direct link's)."""
    base = f"http://127.0.0.1:{port}"
    theirs = HttpxWire(
        httpx.AsyncClient(base_url=base, headers=HEADERS, timeout=5.0, limits=LIMITS)
    )
    plain = make_wire(base, HEADERS, None, 5.0, LIMITS)
    assert isinstance(plain, StreamWire)
    assert isinstance(plain.fallback, AiohttpWire)
    return theirs, plain.fallback, plain


# -- generated requests and answers ----------------------------------------------------------

text = st.text(st.characters(codec="utf-8"), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
path_chars = st.sampled_from(list("abcXYZ019-._~:@!$'()*+,;= %/?&é中\"<>{}|^`[]"))
paths = st.lists(path_chars, max_size=12).map(lambda cs: "/agent/chats/" + "".join(cs))
query_values = (
    st.none() | st.booleans() | st.integers() | text | st.lists(st.integers() | text, max_size=3)
)
params = st.none() | st.dictionaries(st.text("abcdef_", min_size=1, max_size=6), query_values)
bodies = st.one_of(
    st.tuples(st.just("none"), st.none()),
    st.tuples(st.just("json"), json_values),
    st.tuples(st.just("content"), st.binary(max_size=64)),
)
header_names = st.sampled_from(["Idempotency-Key", "Band-Working", "Range", "X-Trace", "Accept"])
header_values = st.text("abc-XYZ 0189=/", min_size=1, max_size=16).map(str.strip).filter(bool)
extra_headers = st.dictionaries(header_names, header_values, max_size=3)
statuses = st.sampled_from([200, 201, 204, 400, 401, 404, 409, 422, 429, 500, 502, 503])
answer_headers = st.lists(
    st.sampled_from(
        [
            (b"retry-after", b"2"),
            (b"retry-after-ms", b"150"),
            (b"x-request-id", b"req-1"),
            (b"band-working", b"true"),
            (b"set-cookie", b"affinity=node-2; Path=/"),
            (b"content-type", b"application/json"),
            (b"X-Mixed-Case", b"Value"),
        ]
    ),
    max_size=4,
    unique=True,
)
answer_bodies = st.one_of(
    json_values.map(lambda v: json.dumps({"data": v}).encode()),
    st.binary(max_size=40),
    st.just(b""),
)


def build_answer(status: int, headers: list[tuple[bytes, bytes]], body: bytes, gz: bool) -> bytes:
    if status == 204:
        body, gz = b"", False
    if gz:
        body = gzip.compress(body)
        headers = [*headers, (b"content-encoding", b"gzip")]
    lines = [f"HTTP/1.1 {status} Reason {status}".encode()]
    lines += [name + b": " + value for name, value in headers]
    if status != 204:
        lines.append(b"content-length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def outcome(response: httpx.Response) -> tuple[Any, ...]:
    return (
        response.status_code,
        response.reason_phrase,
        sorted(response.headers.multi_items()),
        response.content,
        response.is_success,
    )


@live(120)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    path=paths,
    query=params,
    body=bodies,
    headers=extra_headers,
    status=statuses,
    sent_headers=answer_headers,
    answer_body=answer_bodies,
    gz=st.booleans(),
)
def test_both_wires_send_the_same_bytes_and_read_the_same_answer(
    served: tuple[LoopThread, Recorder],
    method: str,
    path: str,
    query: dict[str, Any] | None,
    body: tuple[str, Any],
    headers: dict[str, str],
    status: int,
    sent_headers: list[tuple[bytes, bytes]],
    answer_body: bytes,
    gz: bool,
) -> None:
    loop, recorder = served
    recorder.answer = build_answer(status, sent_headers, answer_body, gz)
    recorder.mode = "answer"
    kind, value = body
    json_body = value if kind == "json" else None
    content = value if kind == "content" else None

    async def both() -> list[tuple[Any, ...]]:
        results = []
        for wire in wires(recorder.port):
            try:
                attempt = Attempt(
                    method, "/api/v1" + path, query, json_body, dict(headers), None, content
                )
                response = await wire.request(attempt)
                results.append(outcome(response))
            finally:
                await wire.aclose()
        return results

    recorder.seen.clear()
    theirs, aiohttp_answer, plain_answer = loop.run(both())
    assert len(recorder.seen) == 3
    their_request, aiohttp_request, plain_request = recorder.seen
    # The plain wire sends httpx's bytes exactly (headers compared by name, sorted).
    assert plain_request == their_request
    assert plain_answer == theirs
    line, sent, raw = aiohttp_request
    if method == "DELETE" and not raw:
        # aiohttp says "no body" of a bodiless DELETE; httpx says nothing.
        sent = [h for h in sent if h != (b"content-length", b"0")]
    their_line, their_sent, their_raw = their_request
    # An empty query: httpx sends a bare "?", aiohttp (yarl) drops it.
    if line != their_line:
        their_line = their_line.replace(b"? HTTP/1.1", b" HTTP/1.1")
    assert (line, sent, raw) == (their_line, their_sent, their_raw)
    assert aiohttp_answer == theirs


# -- failures ----------------------------------------------------------------------------


def _failures(loop: LoopThread, port: int, timeout: float | None) -> list[type | None]:
    async def both() -> list[type | None]:
        kinds: list[type | None] = []
        for wire in wires(port):
            try:
                await wire.request(Attempt("POST", "/api/v1/x", None, {"a": 1}, {}, timeout, None))
                kinds.append(None)
            except httpx.TransportError as exc:
                kinds.append(type(exc))
            finally:
                await wire.aclose()
        return kinds

    return loop.run(both())


@pytest.mark.parametrize(
    ("mode", "timeout", "expected"),
    [
        ("close", None, httpx.RemoteProtocolError),
        ("cut", None, httpx.RemoteProtocolError),
        ("silent", 1.0, httpx.ReadTimeout),
    ],
)
def test_a_peer_that_fails_fails_the_same_on_both_wires(
    served: tuple[LoopThread, Recorder], mode: str, timeout: float | None, expected: type
) -> None:
    loop, recorder = served
    recorder.mode = mode
    try:
        assert _failures(loop, recorder.port, timeout) == [expected, expected, expected]
    finally:
        recorder.mode = "answer"


def test_a_refused_connection_is_a_connect_error_on_both_wires(
    served: tuple[LoopThread, Recorder],
) -> None:
    loop, _ = served

    async def closed_port() -> int:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port: int = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        return port

    port = loop.run(closed_port())
    assert _failures(loop, port, None) == [httpx.ConnectError] * 3


def test_the_link_uses_its_own_wires_only_without_a_transport_or_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(204)

    base = "http://band.test"
    assert isinstance(HttpCore(base, "k")._wire, StreamWire)
    assert isinstance(HttpCore("https://band.test", "k")._wire, StreamWire)
    assert isinstance(HttpCore(base, "k", follow_redirects=True)._wire, AiohttpWire)
    assert isinstance(HttpCore(base, "k", transport=httpx.MockTransport(answer))._wire, HttpxWire)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # a bypass list alone is no proxy
    assert isinstance(HttpCore(base, "k")._wire, StreamWire)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.test:3128")
    assert isinstance(HttpCore(base, "k")._wire, HttpxWire)
    assert isinstance(HttpCore("http://127.0.0.1:8080", "k")._wire, StreamWire)  # bypassed
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.test:3128")
    assert isinstance(HttpCore("https://band.test", "k")._wire, HttpxWire)


@pytest.mark.parametrize("which", [1, 2], ids=["aiohttp", "plain"])
def test_an_answer_of_our_wires_knows_its_request(
    served: tuple[LoopThread, Recorder], which: int
) -> None:
    loop, recorder = served
    recorder.mode = "answer"
    recorder.answer = build_answer(200, [], b'{"data": 1}', False)

    async def one() -> httpx.Response:
        ours = wires(recorder.port)[which]
        try:
            me = Attempt("GET", "/api/v1/agent/me", {"a": True}, None, {}, None, None)
            return await ours.request(me)
        finally:
            await ours.aclose()

    response = loop.run(one())
    response.raise_for_status()
    assert response.request.method == "GET"
    assert str(response.request.url).endswith("/api/v1/agent/me?a=true")


async def _redirecting(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """``/from`` answers 307 to ``/to``, which answers 200 with the method it saw."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            method, target, _ = head.split(b"\r\n", 1)[0].split(b" ")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            if target.startswith(b"/api/v1/from"):
                writer.write(
                    b"HTTP/1.1 307 Moved\r\nlocation: /api/v1/to\r\ncontent-length: 0\r\n\r\n"
                )
            else:
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(method), method)
                )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


@pytest.mark.parametrize("follow", [False, True])
def test_both_wires_follow_a_redirect_only_when_asked(
    served: tuple[LoopThread, Recorder], follow: bool
) -> None:
    loop, _ = served

    async def both() -> list[tuple[int, bytes]]:
        server = await asyncio.start_server(_redirecting, "127.0.0.1", 0)
        base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        theirs = HttpxWire(
            httpx.AsyncClient(base_url=base, headers=HEADERS, timeout=5.0, follow_redirects=follow)
        )
        ours = make_wire(base, HEADERS, None, 5.0, LIMITS, follow)
        seen = []
        try:
            for wire in (theirs, ours):
                attempt = Attempt("POST", "/api/v1/from", None, {"a": 1}, {}, None, None)
                response = await wire.request(attempt)
                seen.append((response.status_code, response.content))
                await wire.aclose()
        finally:
            server.close()
        return seen

    theirs, ours = loop.run(both())
    assert ours == theirs == ((200, b"POST") if follow else (307, b""))


def test_the_callers_headers_go_with_every_request_and_the_key_stays_its_own(
    served: tuple[LoopThread, Recorder],
) -> None:
    loop, recorder = served
    recorder.mode = "answer"
    recorder.answer = build_answer(200, [], b'{"data": 1}', False)
    extra = {"X-Trace": "trace-1", "x-api-key": "not-the-key", "Accept": "application/json"}

    async def one() -> None:
        for transport in (None, httpx.AsyncHTTPTransport()):
            link = HttpCore(
                f"http://127.0.0.1:{recorder.port}", "key", headers=extra, transport=transport
            )
            try:
                await link.send("GET", "/api/v1/agent/me")
            finally:
                await link.aclose()

    recorder.seen.clear()
    loop.run(one())
    assert len(recorder.seen) == 2
    for _, sent, _ in recorder.seen:
        values = [value for name, value in sent if name == b"x-api-key"]
        assert values == [b"key"]
        assert (b"x-trace", b"trace-1") in sent


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_both_wires_refuse_a_float_json_cannot_say_before_sending(
    served: tuple[LoopThread, Recorder], value: float
) -> None:
    loop, recorder = served
    recorder.mode = "answer"

    async def both() -> list[str]:
        refused = []
        for wire in wires(recorder.port):
            try:
                await wire.request(Attempt("POST", "/api/v1/x", None, {"v": value}, {}, None, None))
            except ValueError as exc:
                refused.append(type(exc).__name__)
            finally:
                await wire.aclose()
        return refused

    recorder.seen.clear()
    assert loop.run(both()) == ["ValueError"] * 3
    assert recorder.seen == []
