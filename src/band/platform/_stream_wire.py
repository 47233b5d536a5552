"""The REST link's plain wire: HTTP/1.1 on asyncio streams, answers parsed by httptools.

How it works: docs/internals/sdk.md, "The REST link's plain wire".

Used for a direct ``http``/``https`` link that follows no redirects; it sends what httpx
sends, byte for byte. Figures: docs/decisions.md, "The REST link's plain wire".
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import ssl
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import httptools
import httpx

from ._wire import KEEPALIVE_SECONDS, Attempt, Wire, answer_of, needs_httpx_url

__all__ = ["StreamWire"]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})  # httpx sends Content-Length: 0 for these
_METHODS = frozenset({"GET", "DELETE", *_BODY_METHODS})  # the rest (HEAD ...): the fallback
_HIGH_WATER = 65536  # a larger body waits for the socket to take it
_READ = 65536


class _Reading:
    """httptools' callbacks reading one answer (a 1xx before it is skipped)."""

    __slots__ = ("body", "done", "headers", "headers_done", "keep_alive", "parser", "reason")

    def __init__(self) -> None:
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.reason = b""
        self.done = False
        self.headers_done = False
        self.keep_alive = False  # read at the answer's end (the parser forgets it after)
        self.parser = httptools.HttpResponseParser(self)

    def on_message_begin(self) -> None:
        self.headers, self.body, self.reason, self.headers_done = [], [], b"", False

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def ends_at_close(self) -> bool:
        """The headers are in and name no length: the body is what comes until the close."""
        names = {name.lower() for name, _ in self.headers}
        return self.headers_done and not names & {b"content-length", b"transfer-encoding"}

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.done = True
        self.keep_alive = self.parser.should_keep_alive()


class _Connection:
    """One kept-alive connection: its streams and when it was last put back."""

    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def reusable(self, now: float) -> bool:
        return (
            not self.reader.at_eof()
            and not self.writer.is_closing()
            and now - self.idle_since < KEEPALIVE_SECONDS
        )

    def close(self) -> None:
        self.writer.close()


class StreamWire:
    """A pool of HTTP/1.1 connections to the link's origin, sending httpx's bytes.

    The pool belongs to the loop of its first request; a link moved to another loop starts a
    new one (as the aiohttp wire's session does). At most ``limit`` requests are under way.
    A method other than GET, POST, PUT, PATCH and DELETE goes through ``fallback``.
    """

    def __init__(
        self, base_url: str, headers: httpx.Headers, timeout: float, limit: int, fallback: Wire
    ) -> None:
        parts = urlsplit(base_url)
        self.base_url = base_url
        self.fallback = fallback
        self.timeout = timeout
        self.limit = limit
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._tls = parts.scheme == "https"
        self._prefix = parts.path
        netloc = httpx.URL(base_url).netloc.decode("ascii")
        self._defaults = {k.lower(): (k, v) for k, v in headers.multi_items()}
        self._host_line = f"Host: {netloc}\r\n"
        self._idle: deque[_Connection] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    # -- the request's bytes ---------------------------------------------------------------

    def _target(self, path: str, params: dict[str, Any] | None) -> str:
        if needs_httpx_url(path, params):
            # httpx's own quoting, dot segments and merge of params into the path's query.
            url = httpx.Request("GET", self.base_url + path, params=params).url
            return url.raw_path.decode("ascii")
        return self._prefix + path

    def _head(self, method: str, target: str, extra: dict[str, str], length: int | None) -> bytes:
        merged = self._defaults
        if extra:
            merged = dict(merged)
            for name, value in extra.items():
                merged[name.lower()] = (name, value)
        lines = [f"{method} {target} HTTP/1.1\r\n", self._host_line]
        lines += [f"{name}: {value}\r\n" for name, value in merged.values()]
        if length is not None:
            lines.append(f"Content-Length: {length}\r\n")
        lines.append("\r\n")
        return "".join(lines).encode("utf-8")

    def _encode(self, attempt: Attempt) -> tuple[bytes, str]:
        headers = attempt.headers
        body = attempt.content
        if body is None and attempt.json is not None:
            # httpx's encoding of json=, byte for byte.
            text = jsonlib.dumps(
                attempt.json, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            )
            body = text.encode()
            if "content-type" not in (name.lower() for name in headers):
                headers = {**headers, "Content-Type": "application/json"}
        method = attempt.method.upper()
        length = len(body) if body else (0 if method in _BODY_METHODS else None)
        target = self._target(attempt.url, attempt.params)
        return self._head(method, target, headers, length) + (body or b""), target

    # -- the pool ----------------------------------------------------------------------------

    def _bind(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._slots is None:
            for conn in self._idle:
                conn.close()
            self._idle.clear()
            self._loop = loop
            self._slots = asyncio.Semaphore(self.limit)
        return self._slots

    async def _connect(self, seconds: float) -> _Connection:
        if self._tls and self._ssl is None:
            self._ssl = httpx.create_ssl_context()
        try:
            async with asyncio.timeout(seconds):
                reader, writer = await asyncio.open_connection(
                    self._host, self._port, ssl=self._ssl if self._tls else None, limit=_READ
                )
        except TimeoutError as exc:
            raise httpx.ConnectTimeout("connect timed out") from exc
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        return _Connection(reader, writer)

    def _take(self) -> _Connection | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()  # the most recent: the least likely to be closed
            if conn.reusable(now):
                return conn
            conn.close()
        return None

    # -- one request -------------------------------------------------------------------------

    async def request(self, attempt: Attempt) -> httpx.Response:
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        if attempt.method.upper() not in _METHODS:
            return await self.fallback.request(attempt)
        data, target = self._encode(attempt)
        seconds = self.timeout if attempt.timeout is None else attempt.timeout
        async with self._bind():
            conn = self._take() or await self._connect(seconds)
            try:
                answer = await self._exchange(conn, data, seconds)
            except BaseException:
                conn.close()
                raise
            if answer.keep_alive and not self._closed and not conn.writer.is_closing():
                conn.idle_since = time.monotonic()
                self._idle.append(conn)
            else:
                conn.close()
        response = answer_of(
            answer.parser.get_status_code(),
            answer.headers,
            b"".join(answer.body),
            answer.reason.decode("latin-1"),
            as_sent=True,
        )
        response._method, response._url = (
            attempt.method,
            self.base_url + target[len(self._prefix) :],
        )
        return response

    async def _exchange(self, conn: _Connection, data: bytes, seconds: float) -> _Reading:
        answer = _Reading()
        parser = answer.parser
        reader, writer = conn.reader, conn.writer
        try:
            writer.write(data)
            if len(data) > _HIGH_WATER:
                async with asyncio.timeout(seconds):
                    await writer.drain()
            while not answer.done or parser.get_status_code() < 200:
                if answer.done:  # an interim (1xx) answer: the final one follows
                    answer.done = False
                async with asyncio.timeout(seconds):
                    chunk = await reader.read(_READ)
                if not chunk:
                    if answer.ends_at_close() and parser.get_status_code() >= 200:
                        conn.close()  # its end was the body's: never to be reused
                        break
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a complete response."
                    )
                parser.feed_data(chunk)
        except TimeoutError as exc:
            raise httpx.ReadTimeout("read timed out") from exc
        except httptools.HttpParserError as exc:
            raise httpx.RemoteProtocolError(str(exc) or type(exc).__name__) from exc
        except OSError as exc:
            raise httpx.ReadError(str(exc) or type(exc).__name__) from exc
        return answer

    async def aclose(self) -> None:
        self._closed = True
        for conn in self._idle:
            conn.close()
        self._idle.clear()
        await self.fallback.aclose()

    @property
    def is_closed(self) -> bool:
        return self._closed
