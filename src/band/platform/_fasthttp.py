"""A small keep-alive HTTP/1.1 client for the REST link's default network path.

httpx (client layer + httpcore + anyio + h11) spends ~1-2 ms of CPU per request; the
agent's turn makes ~7 small JSON requests, so on a busy agent that was a large share of
the SDK's own CPU. This client does exactly what the REST link needs -- one request at a
time per connection, JSON bodies, ``Content-Length`` or chunked answers, a pool of idle
keep-alive connections, TLS via ``ssl`` -- on plain asyncio streams, and answers real
``httpx.Response`` objects and raises ``httpx.TransportError`` subclasses, so ``HttpCore``'s
retry logic and every caller stay unchanged.

``HttpCore`` uses it only when no custom transport is given and no proxy is configured in
the environment (``BAND_HTTP_CLIENT=httpx`` forces httpx); everything else goes to httpx.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

__all__ = ["FastHttp", "fast_path_allowed"]

MAX_IDLE = 16
HEAD_LIMIT = 1 << 20
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
_NO_BODY_STATUSES = frozenset({204, 304})


def fast_path_allowed(base_url: str) -> bool:
    """True when the small client can stand in for httpx for ``base_url``."""
    if os.environ.get("BAND_HTTP_CLIENT", "").lower() == "httpx":
        return False
    if any(os.environ.get(name) for name in _PROXY_VARS):
        return False
    parts = urlsplit(base_url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.username


class _Conn:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @property
    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _StaleConnection(Exception):
    """A reused keep-alive connection was closed before any answer byte arrived."""


class FastHttp:
    """Keep-alive HTTP/1.1 requests to one origin; see the module docstring."""

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout: float) -> None:
        parts = urlsplit(base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        default_port = self._port == (443 if self._https else 80)
        host_header = parts.netloc if not default_port else self._host
        if ":" in self._host and not host_header.startswith("["):
            host_header = f"[{self._host}]"
        lines = [f"Host: {host_header}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines.append("Accept-Encoding: identity")
        self._static = ("\r\n".join(lines) + "\r\n").encode("latin-1")
        self._timeout = timeout
        self._ssl: ssl.SSLContext | None = httpx.create_ssl_context() if self._https else None
        self._idle: list[_Conn] = []
        self._closed = False

    @property
    def is_closed(self) -> bool:
        return self._closed

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpx.Response:
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        target = self._prefix + path
        if params:
            query = {k: _query_value(v) for k, v in params.items()}
            target += "?" + urlencode(query, doseq=True)
        head = [f"{method} {target} HTTP/1.1\r\n".encode("latin-1"), self._static]
        if headers:
            head.append("".join(f"{k}: {v}\r\n" for k, v in headers.items()).encode("latin-1"))
        if content is not None:
            # JSON unless the caller said what the bytes are (a file upload).
            if not headers or not any(k.lower() == "content-type" for k in headers):
                head.append(b"Content-Type: application/json\r\n")
            head.append(b"Content-Length: %d\r\n" % len(content))
        elif method in ("POST", "PUT", "PATCH"):
            head.append(b"Content-Length: 0\r\n")
        head.append(b"\r\n")
        if content:
            head.append(content)
        data = b"".join(head)
        limit = self._timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                while self._idle:
                    conn = self._idle.pop()
                    if not conn.usable:
                        conn.close()
                        continue
                    try:
                        return await self._exchange(conn, method, data, reused=True)
                    except _StaleConnection:
                        continue  # the server closed an idle connection: use another one
                conn = await self._connect()
                return await self._exchange(conn, method, data, reused=False)
        except TimeoutError as exc:
            raise httpx.ReadTimeout(f"{method} {target} timed out after {limit}s") from exc

    async def _connect(self) -> _Conn:
        try:
            reader, writer = await asyncio.open_connection(
                self._host,
                self._port,
                ssl=self._ssl,
                server_hostname=self._host if self._ssl is not None else None,
                limit=HEAD_LIMIT,
            )
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(f"{exc!r}") from exc
        return _Conn(reader, writer)

    async def _exchange(
        self, conn: _Conn, method: str, data: bytes, *, reused: bool
    ) -> httpx.Response:
        reader = conn.reader
        started = False
        try:
            conn.writer.write(data)
            await conn.writer.drain()
            try:
                raw_head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                if reused and not exc.partial:
                    raise _StaleConnection from exc
                raise httpx.RemoteProtocolError("Server disconnected without a response") from exc
            started = True
            status, headers, keep_alive, length, chunked = _parse_head(raw_head)
            if method == "HEAD" or status in _NO_BODY_STATUSES or 100 <= status < 200:
                body = b""
            elif chunked:
                body = await _read_chunked(reader)
            elif length is not None:
                body = await reader.readexactly(length)
            else:
                body = await reader.read()  # until the server closes
                keep_alive = False
        except _StaleConnection:
            conn.close()
            raise
        except (OSError, ssl.SSLError) as exc:
            conn.close()
            if reused and not started:
                raise _StaleConnection from exc
            raise httpx.ReadError(f"{exc!r}") from exc
        except asyncio.IncompleteReadError as exc:
            conn.close()
            raise httpx.RemoteProtocolError("Server disconnected mid-response") from exc
        except asyncio.LimitOverrunError as exc:
            conn.close()
            raise httpx.RemoteProtocolError("Response head too large") from exc
        except BaseException:
            conn.close()  # cancelled or timed out mid-exchange: the connection state is unknown
            raise
        if keep_alive and not self._closed and len(self._idle) < MAX_IDLE:
            self._idle.append(conn)
        else:
            conn.close()
        return httpx.Response(status, headers=headers, content=body)


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"  # as httpx encodes it
    return value


def _parse_head(raw: bytes) -> tuple[int, list[tuple[bytes, bytes]], bool, int | None, bool]:
    lines = raw[:-4].split(b"\r\n")
    status_line = lines[0].split(b" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith(b"HTTP/1."):
        raise httpx.RemoteProtocolError(f"Malformed status line: {lines[0][:100]!r}")
    try:
        status = int(status_line[1])
    except ValueError as exc:
        raise httpx.RemoteProtocolError(f"Malformed status line: {lines[0][:100]!r}") from exc
    keep_alive = status_line[0] == b"HTTP/1.1"
    length: int | None = None
    chunked = False
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise httpx.RemoteProtocolError("Malformed response header")
        name = name.strip()
        value = value.strip()
        headers.append((name, value))
        lower = name.lower()
        if lower == b"content-length":
            try:
                length = int(value)
            except ValueError as exc:
                raise httpx.RemoteProtocolError("Malformed Content-Length") from exc
        elif lower == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
        elif lower == b"connection":
            token = value.lower()
            if b"close" in token:
                keep_alive = False
            elif b"keep-alive" in token:
                keep_alive = True
    if chunked:
        length = None
    return status, headers, keep_alive, length, chunked


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError as exc:
            raise httpx.RemoteProtocolError("Malformed chunk size") from exc
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
