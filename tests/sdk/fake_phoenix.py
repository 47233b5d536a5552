"""A tiny Phoenix v2 server on ``websockets`` for unit tests of the socket client.

It records every upgrade and inbound frame, answers joins (ok unless a topic is refused),
acks heartbeats (switchable), pushes frames on demand, closes sockets with a given code and
refuses upgrades with a scripted HTTP status and error body.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response


@dataclass
class Upgrade:
    query: dict[str, str]
    headers: dict[str, str]


@dataclass
class FakePhoenix:
    refused_topics: set[str] = field(default_factory=set)
    ack_heartbeats: bool = True
    reject_with: tuple[int, dict[str, Any]] | None = None
    upgrades: list[Upgrade] = field(default_factory=list)
    frames: list[list[Any]] = field(default_factory=list)
    joins: dict[str, str] = field(default_factory=dict)
    connections: list[ServerConnection] = field(default_factory=list)
    frame_event: asyncio.Event = field(default_factory=asyncio.Event)
    _server: Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}/api/v1/socket/websocket"

    async def start(self) -> FakePhoenix:
        self._server = await serve(
            self._handle, "127.0.0.1", 0, process_request=self._process_request, compression=None
        )
        return self

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    def _process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        query = dict(parse_qsl(urlsplit(request.path).query))
        self.upgrades.append(Upgrade(query, {k.lower(): v for k, v in request.headers.raw_items()}))
        if self.reject_with is None:
            return None
        status, body = self.reject_with
        headers = Headers([("Content-Type", "application/json")])
        reason = HTTPStatus(status).phrase
        return Response(status, reason, headers, json.dumps(body).encode())

    async def _handle(self, conn: ServerConnection) -> None:
        self.connections.append(conn)
        async for raw in conn:
            frame = json.loads(raw)
            self.frames.append(frame)
            self.frame_event.set()
            join_ref, ref, topic, event, _payload = frame
            if event == "phx_join":
                status = "error" if topic in self.refused_topics else "ok"
                response = {"reason": "unauthorized"} if status == "error" else {}
                if status == "ok":
                    self.joins[topic] = join_ref
                await conn.send(
                    json.dumps(
                        [
                            join_ref,
                            ref,
                            topic,
                            "phx_reply",
                            {"status": status, "response": response},
                        ]
                    )
                )
            elif event == "phx_leave":
                self.joins.pop(topic, None)
                await conn.send(
                    json.dumps(
                        [join_ref, ref, topic, "phx_reply", {"status": "ok", "response": {}}]
                    )
                )
            elif event == "heartbeat" and self.ack_heartbeats:
                await conn.send(
                    json.dumps(
                        [None, ref, "phoenix", "phx_reply", {"status": "ok", "response": {}}]
                    )
                )

    async def push(
        self, topic: str, event: str, payload: dict[str, Any], join_ref: str | bool | None = True
    ) -> None:
        """Push on the newest connection; ``join_ref=True`` echoes the current join."""
        ref = self.joins.get(topic) if join_ref is True else join_ref
        await self.connections[-1].send(json.dumps([ref, None, topic, event, payload]))

    async def drop(self, code: int = 1000) -> None:
        """Close the newest connection with ``code``."""
        self.joins.clear()
        await self.connections[-1].close(code)

    def sent(self, event: str) -> list[list[Any]]:
        return [f for f in self.frames if f[3] == event]

    async def until(self, predicate: Any, limit: float = 5.0) -> None:
        async def wait() -> None:
            while not predicate():
                self.frame_event.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.frame_event.wait(), 0.05)

        await asyncio.wait_for(wait(), limit)
