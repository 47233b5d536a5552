"""``fake_phoenix_server``: a real loopback Phoenix Channels v2 server, the platform side faked.

How it works: docs/internals/sdk.md, "Fake Phoenix server".

A ``BandLink``, a ``WebSocketClient`` or an ``Agent`` runs unmocked against it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from enum import StrEnum
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from band.client.streaming.errors import CONNECTION_CONFLICT_CODE

__all__ = ["FakePhoenixServer", "JoinOutcome", "Upgrade", "fake_phoenix_server"]

logger = logging.getLogger(__name__)
CONFLICT_BODY = {
    "error": {
        "code": CONNECTION_CONFLICT_CODE,
        "message": "An active connection already exists for this agent. "
        "Set on_conflict=supersede or omit on_conflict to take over.",
        "request_id": None,
    }
}


class JoinOutcome(StrEnum):
    """The fake's answer to one ``phx_join``."""

    OK = "ok"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Upgrade:
    """One upgrade request received (refused ones too): its query and headers."""

    query: dict[str, str]
    headers: Headers

    @classmethod
    def from_request(cls, request: Request) -> Upgrade:
        return cls(dict(parse_qsl(urlsplit(request.path).query)), request.headers)


class FakePhoenixServer:
    """The server; build it with ``fake_phoenix_server`` (it binds and yields it).

    Besides the scripted joins, ``refuse_upgrades`` answers every upgrade 409
    ``connection_conflict``; ``refuse_with = (status, body)`` any other refusal;
    ``ack_heartbeats = False`` leaves heartbeats unanswered.
    """

    def __init__(
        self, *, join_outcomes: dict[str, Sequence[JoinOutcome]], refuse_upgrades: bool
    ) -> None:
        self._outcomes = {topic: list(seq) for topic, seq in join_outcomes.items()}
        self.refuse_with: tuple[int, dict[str, Any]] | None = (
            (HTTPStatus.CONFLICT, CONFLICT_BODY) if refuse_upgrades else None
        )
        self.ack_heartbeats = True
        self.url = ""
        self.joined_topics: set[str] = set()
        self.join_refs: dict[str, str | None] = {}
        self.received: list[list[Any]] = []  # every inbound frame
        self.upgrades: list[Upgrade] = []
        self.connections: list[ServerConnection] = []
        self._arrived = asyncio.Event()
        self._connected = asyncio.Event()

    @property
    def connection_count(self) -> int:
        """Upgrades accepted so far."""
        return len(self.connections)

    def script_joins(self, topic: str, *outcomes: JoinOutcome) -> None:
        """Script the next joins of ``topic`` (the last outcome repeats)."""
        self._outcomes[topic] = list(outcomes)

    def _next_outcome(self, topic: str) -> JoinOutcome:
        """One outcome off the topic's script; the last one repeats (unlisted topics join)."""
        script = self._outcomes.get(topic)
        if not script:
            return JoinOutcome.OK
        return script.pop(0) if len(script) > 1 else script[0]

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        self.upgrades.append(Upgrade.from_request(request))
        if self.refuse_with is None:
            return None
        status, body = self.refuse_with
        headers = Headers([("Content-Type", "application/json")])
        return Response(status, HTTPStatus(status).phrase, headers, json.dumps(body).encode())

    async def _reply(self, conn: ServerConnection, frame: list[Any], ok: bool) -> None:
        join_ref, ref, topic, _event, _payload = frame
        response = {} if ok else {"reason": "rejected by fake server"}
        payload = {"status": "ok" if ok else "error", "response": response}
        await conn.send(json.dumps([join_ref, ref, topic, "phx_reply", payload]))

    async def _handle(self, conn: ServerConnection) -> None:
        self.connections.append(conn)
        self._connected.set()
        try:
            async for raw in conn:
                frame = json.loads(raw)
                self.received.append(frame)
                self._arrived.set()
                join_ref, _ref, topic, event, _payload = frame
                if event == "phx_join":
                    ok = self._next_outcome(topic) is JoinOutcome.OK
                    if ok:
                        self.joined_topics.add(topic)
                        self.join_refs[topic] = join_ref
                    else:
                        self._forget(topic)
                    await self._reply(conn, frame, ok)
                elif event == "phx_leave":
                    self._forget(topic)
                    await self._reply(conn, frame, True)
                elif topic == "phoenix" and self.ack_heartbeats:
                    await self._reply(conn, frame, True)
        except ConnectionClosed:
            logger.debug("fake phoenix: connection closed")

    def _forget(self, topic: str) -> None:
        self.joined_topics.discard(topic)
        self.join_refs.pop(topic, None)

    async def _live(self) -> ServerConnection:
        await self._connected.wait()
        return self.connections[-1]

    async def push(
        self, topic: str, event: str, payload: dict[str, Any], *, join_ref: Any = True
    ) -> None:
        """Push an event on ``topic`` (``join_ref=True`` echoes the topic's current join)."""
        ref = self.join_refs.get(topic) if join_ref is True else join_ref
        await (await self._live()).send(json.dumps([ref, None, topic, event, payload]))

    async def close_connection(self, *, code: int = 1000, reason: str = "") -> None:
        """Close the live connection from the server side with ``code``."""
        self.join_refs.clear()
        self.joined_topics.clear()
        await (await self._live()).close(code=code, reason=reason)

    @contextmanager
    def stalled(self) -> Iterator[None]:
        """Stop reading the client (a slow peer): whatever it sends waits unanswered."""
        transport = self.connections[-1].transport
        transport.pause_reading()
        try:
            yield
        finally:
            transport.resume_reading()

    async def abort_connection(self) -> None:
        """Cut the connection with no close handshake, as a network failure does."""
        (await self._live()).transport.abort()

    def sent(self, event: str) -> list[list[Any]]:
        """The inbound frames of ``event`` (``phx_join``, ``heartbeat``...)."""
        return [frame for frame in self.received if frame[3] == event]

    async def until(self, predicate: Callable[[], bool], limit: float = 5.0) -> None:
        """Wait (up to ``limit`` s) until ``predicate()`` holds, re-checked on each frame."""

        async def wait() -> None:
            while not predicate():
                self._arrived.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._arrived.wait(), 0.05)

        await asyncio.wait_for(wait(), limit)


@asynccontextmanager
async def fake_phoenix_server(
    *,
    join_outcomes: dict[str, Sequence[JoinOutcome]] | None = None,
    refuse_upgrades: bool = False,
) -> AsyncIterator[FakePhoenixServer]:
    """A bound fake server (``server.url``), for the ``async with`` block."""
    server = FakePhoenixServer(join_outcomes=join_outcomes or {}, refuse_upgrades=refuse_upgrades)
    async with serve(
        server._handle,
        "127.0.0.1",
        0,
        process_request=server._process_request,
        compression=None,
    ) as bound:
        port = next(iter(bound.sockets)).getsockname()[1]
        server.url = f"ws://127.0.0.1:{port}/api/v1/socket/websocket"
        yield server
