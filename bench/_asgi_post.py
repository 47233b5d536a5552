"""A JSON POST handed straight to an ASGI app, as uvicorn hands it (the in-process benches)."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any


async def asgi_post(
    app: Any, path: str, raw: bytes, key: str, extra: list[tuple[bytes, bytes]] | None = None
) -> int:
    """POST ``raw`` (a JSON body) to ``path`` with ``x-api-key: key`` and ``extra`` headers;
    the answer's status. The client never goes away while the app answers."""
    headers = [
        (b"host", b"band.test"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(raw)).encode()),
        (b"x-api-key", key.encode()),
        *(extra or ()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("band.test", 80),
    }
    given = False

    async def receive() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.Event().wait()  # the client never goes away
        raise AssertionError

    status: list[int] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    return status[0] if len(status) == 1 else -len(status)
