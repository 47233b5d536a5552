"""A REST proxy that kills its client at one exact request: crash points for kill -9 tests.

An agent process is pointed at the proxy for REST (``BAND_REST_URL``) and at the platform for
its socket. Every request is forwarded unchanged, except the first one ``crash_on`` picks:
then the proxy runs ``crash()`` (a ``kill -9`` of the agent) *before* forwarding, so the
platform never sees that request, exactly as if the process died just before sending it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn

__all__ = ["CrashProxy", "Request"]

_HOP = {
    "host",
    "content-length",
    "content-encoding",
    "connection",
    "keep-alive",
    "transfer-encoding",
}


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes


@dataclass
class CrashProxy:
    upstream: str
    crash_on: Callable[[Request], bool]
    crash: Callable[[], None]
    seen: list[Request] = field(default_factory=list)
    crashed: Request | None = None
    port: int = 0
    _server: Any = None
    _task: asyncio.Task[None] | None = None
    _client: httpx.AsyncClient | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> CrashProxy:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self._client = httpx.AsyncClient(base_url=self.upstream, timeout=60)
        config = uvicorn.Config(
            self._app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            interface="asgi3",
        )
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise RuntimeError("the crash proxy did not start")
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 15)
        if self._client is not None:
            await self._client.aclose()

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        request = Request(scope["method"], scope["path"], b"".join(chunks))
        self.seen.append(request)
        if self.crashed is None and self.crash_on(request):
            self.crashed = request
            self.crash()
            await _answer(send, 502, b"crashed", [])
            return
        assert self._client is not None
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if k.decode("latin-1").lower() not in _HOP
        ]
        query = scope.get("query_string", b"").decode("latin-1")
        url = request.path + (f"?{query}" if query else "")
        response = await self._client.request(
            request.method, url, headers=headers, content=request.body
        )
        out = [
            (k.encode("latin-1"), v.encode("latin-1"))
            for k, v in response.headers.items()
            if k.lower() not in _HOP
        ]
        await _answer(send, response.status_code, response.content, out)


async def _answer(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
