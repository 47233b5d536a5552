"""One HTTP attempt of the REST link, on aiohttp or on httpx; both answer an ``httpx.Response``.

How it works: docs/internals/sdk.md, "The REST link's wires".

``HttpCore`` sends every attempt through a wire chosen by ``_wire_choice.make_wire``; each
wire behaves as httpx does (``tests/sdk/test_wire_differential.py``).
"""

from __future__ import annotations

import asyncio
import json as jsonlib
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

__all__ = ["AiohttpWire", "Attempt", "HttpxWire", "Wire", "answer_of", "needs_httpx_url"]

KEEPALIVE_SECONDS = 4.0  # below uvicorn's 5 s, so a reused connection is rarely one it closed
# Characters a path may hold as they are; anything else (and a dot segment) goes through
# httpx.URL, which quotes and normalises it as httpx's client does.
_PLAIN = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:@!$'()*+,;="
)


def needs_httpx_url(path: str, params: dict[str, Any] | None) -> bool:
    """Whether a request's target must be built by ``httpx.URL`` (params to merge, characters
    to quote, dot segments) rather than sent as the path it is."""
    return params is not None or not _PLAIN.issuperset(path) or "/." in path


@dataclass(frozen=True, slots=True)
class Attempt:
    """One request as sent: ``url`` is the path under the link's root (``/api/v1/...``)."""

    method: str
    url: str
    params: dict[str, Any] | None
    json: Any
    headers: dict[str, str]
    timeout: float | None
    content: bytes | None


class Wire(Protocol):
    """Sends one attempt; raises ``httpx.TransportError`` when no answer came."""

    async def request(self, attempt: Attempt) -> httpx.Response: ...

    async def aclose(self) -> None: ...

    @property
    def is_closed(self) -> bool: ...


class HttpxWire:
    """httpx's client: for a caller's own transport, and behind a proxy."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def request(self, attempt: Attempt) -> httpx.Response:
        extra: dict[str, Any] = {} if attempt.timeout is None else {"timeout": attempt.timeout}
        if attempt.content is not None:
            extra["content"] = attempt.content
        return await self.client.request(
            attempt.method,
            attempt.url,
            params=attempt.params,
            json=attempt.json,
            headers=attempt.headers,
            **extra,
        )

    async def aclose(self) -> None:
        await self.client.aclose()

    @property
    def is_closed(self) -> bool:
        return self.client.is_closed


class _Answer(httpx.Response):
    """An ``httpx.Response`` whose ``request`` is built only if someone asks for it."""

    _method = "GET"
    _url = ""

    @property
    def request(self) -> httpx.Request:
        try:
            return super().request
        except RuntimeError:
            self.request = httpx.Request(self._method, self._url)
            return super().request

    @request.setter
    def request(self, value: httpx.Request) -> None:
        self._request = value

    def raise_for_status(self) -> httpx.Response:
        self.request  # noqa: B018 # httpx reads the private slot: build the request first
        return super().raise_for_status()


def answer_of(
    status: int,
    headers: list[tuple[bytes, bytes]],
    body: bytes,
    reason: str | None,
    *,
    as_sent: bool = False,
) -> _Answer:
    """The ``httpx.Response`` httpx's constructor makes from a read body, made directly.

    ``httpx.Response(content=body)`` frames the bytes as a stream and reads it back through
    its decoders, about ten microseconds on every claim, reply and ack; a body without a
    ``Content-Encoding`` decodes to itself, so its fields are set as that read leaves them
    (``tests/sdk/test_wire_answer.py`` compares the two). An encoded body takes the
    constructor. ``as_sent``: the headers as the server sent them (what httpx's client shows
    of an answer it read itself), with no ``Content-Length`` added for a chunked body.
    """
    extensions = {"reason_phrase": (reason or "").encode(), "http_version": b"HTTP/1.1"}
    if any(name.lower() == b"content-encoding" for name, _ in headers):
        answer = _Answer(status, headers=headers, content=body, extensions=extensions)
        if as_sent:
            answer.headers = httpx.Headers(headers)
        return answer
    response = _Answer.__new__(_Answer)
    response.status_code = status
    response.headers = httpx.Headers(headers)
    if body and not as_sent and "content-length" not in response.headers:
        response.headers["Content-Length"] = str(len(body))
    response._request = None
    response.next_request = None
    response.extensions = extensions
    response.history = []
    response.default_encoding = "utf-8"
    response.stream = httpx.ByteStream(body)
    response._content = body
    response.is_stream_consumed = True
    response.is_closed = True
    response._num_bytes_downloaded = 0
    return response


def _timeout_error(exc: BaseException) -> httpx.TransportError:
    import aiohttp

    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(str(exc) or "connect timed out")
    return httpx.ReadTimeout(str(exc) or "read timed out")


def _transport_error(exc: BaseException) -> httpx.TransportError:
    """httpx's error for an aiohttp failure (the same class httpx raises for that failure)."""
    import aiohttp

    text = str(exc) or type(exc).__name__
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx.ConnectError(text)
    if isinstance(
        exc,
        aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError | aiohttp.ClientResponseError,
    ):
        return httpx.RemoteProtocolError(text)
    if isinstance(exc, aiohttp.ClientConnectionError | OSError):
        return httpx.ReadError(text)
    return httpx.TransportError(text)


class AiohttpWire:
    """aiohttp's pool and parser, sending httpx's headers and bodies.

    The session is made on the first request, inside the loop that uses it (a link built
    outside a loop, like ``RestClient``'s, works); a link moved to another loop gets a new one.
    """

    def __init__(
        self,
        base_url: str,
        headers: httpx.Headers,
        timeout: float,
        limit: int,
        follow_redirects: bool = False,
    ) -> None:
        self.base_url = base_url
        self.follow_redirects = follow_redirects
        # Bodies are left encoded: httpx decodes them as it would (the same Accept-Encoding).
        self.headers = dict(headers.multi_items())
        self.timeout = timeout
        self.limit = limit
        self._session: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._timeouts: dict[float, Any] = {}

    def _open(self) -> Any:
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop:
            connector = aiohttp.TCPConnector(
                limit=self.limit,
                keepalive_timeout=KEEPALIVE_SECONDS,
                ssl=httpx.create_ssl_context(),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers=self.headers,
                auto_decompress=False,
                cookie_jar=aiohttp.CookieJar(unsafe=True),
                skip_auto_headers=("Content-Type",),
            )
            self._loop = loop
        return self._session

    def _timeout(self, seconds: float) -> Any:
        found = self._timeouts.get(seconds)
        if found is None:
            import aiohttp

            found = aiohttp.ClientTimeout(
                total=None, connect=seconds, sock_connect=seconds, sock_read=seconds
            )
            self._timeouts[seconds] = found
        return found

    def _url(self, path: str, params: dict[str, Any] | None) -> Any:
        import yarl

        url = self.base_url + path
        if needs_httpx_url(path, params):
            # httpx's own quoting, dot segments and merge of params into the path's query.
            url = str(httpx.Request("GET", url, params=params).url)
        return yarl.URL(url, encoded=True)

    async def request(self, attempt: Attempt) -> httpx.Response:
        import aiohttp

        method, headers, timeout, content = (
            attempt.method,
            attempt.headers,
            attempt.timeout,
            attempt.content,
        )
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        session = self._open()
        data = content or None  # an empty body is no body, as httpx frames it
        if content is None and attempt.json is not None:
            # httpx's encoding of json=, byte for byte.
            text = jsonlib.dumps(
                attempt.json, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            )
            data = text.encode()
            headers = {**headers, "Content-Type": "application/json"}
        target = self._url(attempt.url, attempt.params)
        try:
            async with session.request(
                method,
                target,
                data=data,
                headers=headers,
                timeout=self._timeout(self.timeout if timeout is None else timeout),
                allow_redirects=self.follow_redirects,
            ) as answer:
                body = await answer.read()
        except TimeoutError as exc:
            raise _timeout_error(exc) from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise _transport_error(exc) from exc
        response = answer_of(answer.status, list(answer.raw_headers), body, answer.reason)
        response._method, response._url = method, str(target)
        return response

    async def aclose(self) -> None:
        self._closed = True
        if self._session is not None and self._loop is asyncio.get_running_loop():
            await self._session.close()

    @property
    def is_closed(self) -> bool:
        return self._closed
