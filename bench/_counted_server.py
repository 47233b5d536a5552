"""Serve the platform with a request counter: `python -m bench._counted_server DATA_DIR PORT`.

Run with the project's venv. A tiny ASGI middleware in front of ``create_app`` counts every
HTTP request and WebSocket upgrade per API key, keyed ``"METHOD /path/with/{id} STATUS"``
(UUIDs folded to ``{id}``). ``GET /__bench/counts`` answers the tallies as JSON, and
``GET /__bench/connections`` how many TCP connections (client address and port) each key's
requests came over; neither is counted itself. Bench-only: never part of the platform.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import uvicorn

from band_server.app import create_app
from band_server.config import Settings
from band_server.server_stack import uvicorn_options

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
COUNTS_PATH = "/__bench/counts"
CONNECTIONS_PATH = "/__bench/connections"


class CountRequests:
    def __init__(self, app: App) -> None:
        self.app = app
        self.counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.peers: defaultdict[str, set[tuple[str, int]]] = defaultdict(set)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if kind == "http" and scope["path"] == COUNTS_PATH:
            await self._answer(send, {k: dict(v) for k, v in self.counts.items()})
            return
        if kind == "http" and scope["path"] == CONNECTIONS_PATH:
            await self._answer(send, {k: len(v) for k, v in self.peers.items()})
            return
        key = ""
        for name, value in scope.get("headers", []):
            if name.lower() == b"x-api-key":
                key = value.decode("latin-1")
                break
        method = "WS" if kind == "websocket" else scope["method"]
        route = f"{method} {_UUID.sub('{id}', scope['path'])}"
        tally = self.counts[key or "-"]
        if scope.get("client"):
            self.peers[key or "-"].add(tuple(scope["client"]))

        async def counted_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                tally[f"{route} {message['status']}"] += 1
            elif message["type"] == "websocket.accept":
                tally[f"{route} 101"] += 1
            await send(message)

        await self.app(scope, receive, counted_send)

    async def _answer(self, send: Send, tallies: dict[str, Any]) -> None:
        body = json.dumps(tallies).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m bench._counted_server DATA_DIR PORT")
    data_dir, port = Path(argv[0]), int(argv[1])
    settings = Settings(data_dir=data_dir, database_url=None, redis_url=None, port=port)
    uvicorn.run(
        CountRequests(create_app(settings)),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        **uvicorn_options(),
    )


if __name__ == "__main__":
    main(sys.argv[1:])
