"""The plain wire's own pool and framing, beside httpx's client where an answer is read.

A raw server answers each request with the next bytes of a script and counts connections:
answers framed by length, by chunks, by the close, after an interim ``100 Continue``; kept-alive
connections reused, and not reused once the server closed them, said ``Connection: close``, or
a request on them was cancelled mid-way; HEAD goes through the fallback wire; an ``https``
link speaks TLS and refuses a certificate it does not trust.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from band.platform._stream_wire import StreamWire
from band.platform._wire import Attempt, HttpxWire, Wire
from band.platform._wire_choice import make_wire
from property_kit import LoopThread
from tls_kit import self_signed

HEADERS = {"X-API-Key": "key"}
LIMITS = httpx.Limits(max_connections=8)
OK = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"


@dataclass
class Script:
    """Answers requests with ``answers`` in turn (then ``OK``); ``close_after`` closes the
    connection once it has answered; ``hold`` leaves a request unanswered for that long."""

    answers: list[bytes] = field(default_factory=list)
    close_after: bool = False
    hold: float = 0.0
    connections: int = 0
    port: int = 0
    handlers: set[asyncio.Task[None]] = field(default_factory=set)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self.handlers.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                answer = self.answers.pop(0) if self.answers else OK  # before any wait
                if self.hold:
                    await asyncio.sleep(self.hold)
                writer.write(answer)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def start(self, tls: ssl.SSLContext | None = None) -> asyncio.Server:
        """Listen on loopback (``port`` set), with TLS when given."""
        server = await asyncio.start_server(self.handle, "127.0.0.1", 0, ssl=tls)
        self.port = server.sockets[0].getsockname()[1]
        return server

    async def stop(self, server: asyncio.Server) -> None:
        """Close ``server`` and end its handlers (none left running on a closed loop)."""
        server.close()
        for task in self.handlers:
            task.cancel()
        await asyncio.gather(*self.handlers, return_exceptions=True)


@pytest.fixture
def served() -> Iterator[tuple[LoopThread, Script]]:
    loop, script = LoopThread(), Script()
    server = loop.run(script.start())
    yield loop, script
    loop.run(script.stop(server))
    loop.stop()


def plain_at(base: str) -> StreamWire:
    wire = make_wire(base, HEADERS, None, 5.0, LIMITS)
    assert isinstance(wire, StreamWire)
    return wire


def plain(port: int) -> StreamWire:
    return plain_at(f"http://127.0.0.1:{port}")


def get(path: str = "/api/v1/x", method: str = "GET") -> Attempt:
    return Attempt(method, path, None, None, {}, None, None)


def test_sequential_requests_share_one_connection(served: tuple[LoopThread, Script]) -> None:
    loop, script = served

    async def run() -> list[bytes]:
        wire = plain(script.port)
        try:
            return [(await wire.request(get())).content for _ in range(5)]
        finally:
            await wire.aclose()

    assert loop.run(run()) == [b"ok"] * 5
    assert script.connections == 1


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",  # and then the server closes
    ],
    ids=["connection-close", "closed-while-idle"],
)
def test_a_connection_the_server_ends_is_not_reused(
    served: tuple[LoopThread, Script], answer: bytes
) -> None:
    loop, script = served
    script.close_after = True
    script.answers = [answer]

    async def run() -> list[bytes]:
        wire = plain(script.port)
        try:
            first = (await wire.request(get())).content
            await asyncio.sleep(0.1)  # the close reaches the idle connection
            return [first, (await wire.request(get())).content]
        finally:
            await wire.aclose()

    assert loop.run(run()) == [b"ok", b"ok"]
    assert script.connections == 2


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 3\r\n\r\nabc",
        b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the close",
        b"HTTP/1.1 304 Not Modified\r\netag: x\r\n\r\n",
    ],
    ids=["chunked", "interim-100", "until-close", "not-modified"],
)
def test_an_answer_reads_as_httpx_reads_it(
    served: tuple[LoopThread, Script], answer: bytes
) -> None:
    loop, script = served
    script.close_after = True  # an answer framed by the close needs it; the others allow it

    async def run() -> list[tuple[int, str, list[tuple[str, str]], bytes]]:
        base = f"http://127.0.0.1:{script.port}"
        theirs = HttpxWire(httpx.AsyncClient(base_url=base, headers=HEADERS, timeout=5.0))
        seen = []
        for wire in (theirs, plain(script.port)):
            script.answers = [answer]
            try:
                response = await wire.request(get())
                seen.append(
                    (
                        response.status_code,
                        response.reason_phrase,
                        sorted(response.headers.multi_items()),
                        response.content,
                    )
                )
            finally:
                await wire.aclose()
        return seen

    theirs, ours = loop.run(run())
    assert ours == theirs


def test_a_cancelled_request_leaves_no_answer_behind(served: tuple[LoopThread, Script]) -> None:
    loop, script = served
    script.hold = 0.2
    script.answers = [b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nstale"]

    async def run() -> bytes:
        wire = plain(script.port)
        try:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.05):
                    await wire.request(get())
            script.hold = 0.0
            return (await wire.request(get())).content
        finally:
            await wire.aclose()

    assert loop.run(run()) == b"ok"
    assert script.connections == 2


def test_other_methods_go_through_the_fallback(served: tuple[LoopThread, Script]) -> None:
    loop, script = served
    sent: list[str] = []

    class Fallback:
        async def request(self, attempt: Attempt) -> httpx.Response:
            sent.append(attempt.method)
            return httpx.Response(204)

        async def aclose(self) -> None:
            sent.append("closed")

        @property
        def is_closed(self) -> bool:
            return False

    async def run() -> int:
        fallback: Wire = Fallback()
        base = f"http://127.0.0.1:{script.port}"
        wire = StreamWire(base, httpx.Headers(HEADERS), 5.0, 8, fallback)
        try:
            return (await wire.request(get(method="HEAD"))).status_code
        finally:
            await wire.aclose()

    assert loop.run(run()) == 204
    assert sent == ["HEAD", "closed"]
    assert script.connections == 0


def test_a_closed_wire_refuses_to_send(served: tuple[LoopThread, Script]) -> None:
    loop, script = served

    async def run() -> None:
        wire = plain(script.port)
        await wire.aclose()
        assert wire.is_closed
        with pytest.raises(RuntimeError):
            await wire.request(get())

    loop.run(run())


def test_an_https_link_speaks_tls_and_checks_the_certificate(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    cert, key = self_signed(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))
    loop, script = LoopThread(), Script()

    async def run() -> tuple[bytes, type[BaseException]]:
        server = await script.start(server_tls)
        base = f"https://127.0.0.1:{script.port}"
        trusted, untrusted = plain_at(base), plain_at(base)
        trusted._ssl = trusting  # the system's roots do not know this certificate
        try:
            first = (await trusted.request(get())).content
            with pytest.raises(httpx.ConnectError) as refused:
                await untrusted.request(get())
            return first, refused.type
        finally:
            await trusted.aclose()
            await untrusted.aclose()
            await script.stop(server)

    try:
        assert loop.run(run()) == (b"ok", httpx.ConnectError)
    finally:
        loop.stop()
