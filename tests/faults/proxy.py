"""A loopback TCP balancer in front of the nodes: the agents' single URL, with failover.

Neither our SDK nor band-sdk 6.0.1 takes more than one platform URL (``BAND_WS_URL`` and
``BAND_REST_URL`` each name one endpoint), so a deployment of several nodes sits behind a
balancer. This is the smallest honest one: each accepted connection is piped to the first
backend, in the balancer's preference order, that accepts a TCP connection. A node that dies
closes its connections, the balancer closes the client side, and the client's reconnect lands
on the next live node. ``cut`` aborts open connections on purpose (a network cut: both sides
see a reset), which is how the socket-cut scenario drops WebSockets and REST calls in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass, field

CONNECT_TIMEOUT = 1.0
CHUNK = 64 * 1024


@dataclass(eq=False)
class Link:
    """One client connection and the backend connection it is piped to."""

    backend: int
    client: asyncio.StreamWriter
    upstream: asyncio.StreamWriter
    websocket: bool
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def abort(self) -> None:
        """A cut: both sides get a reset, nothing buffered is sent."""
        for writer in (self.client, self.upstream):
            writer.transport.abort()

    def close(self) -> None:
        """A clean end: what is buffered is flushed, then both sides are closed."""
        for writer in (self.client, self.upstream):
            if not writer.transport.is_closing():
                writer.close()


@dataclass
class Balancer:
    """Listens on a free loopback port; ``backends`` are node ports, most preferred first."""

    name: str
    backends: list[int]
    port: int = 0
    links: set[Link] = field(default_factory=set)
    cuts: int = 0
    routed: dict[int, int] = field(default_factory=dict)  # backend port -> connections
    _server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in list(self.links):
            link.abort()
        tasks = [t for link in self.links for t in link.tasks]
        await asyncio.gather(*tasks, return_exceptions=True)
        self.links.clear()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)
            self._server = None

    def cut(self, rng: random.Random, share: float = 1.0) -> int:
        """Abort a random ``share`` of the open connections (at least one when any is open)."""
        open_links = list(self.links)
        if not open_links:
            return 0
        count = max(1, round(len(open_links) * share))
        victims = rng.sample(open_links, min(count, len(open_links)))
        for link in victims:
            link.abort()
        self.cuts += len(victims)
        return len(victims)

    def on_backend(self, port: int, *, websocket: bool | None = None) -> int:
        """How many open connections (only WebSockets, or none) go to the node on ``port``."""
        return sum(
            1
            for link in self.links
            if link.backend == port and (websocket is None or link.websocket == websocket)
        )

    def cut_away_from(self, port: int) -> int:
        """Abort every connection that is not on ``port`` (back home, after a failover)."""
        strays = [link for link in self.links if link.backend != port]
        for link in strays:
            link.abort()
        return len(strays)

    async def _connect(self) -> tuple[int, asyncio.StreamReader, asyncio.StreamWriter] | None:
        for port in list(self.backends):
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port), CONNECT_TIMEOUT
                )
            except (OSError, TimeoutError):
                continue
            return port, reader, writer
        return None

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.read(CHUNK)  # the request line and headers: which kind it is
        except OSError:
            head = b""
        found = await self._connect() if head else None
        if found is None:  # no node is up: the client sees a reset and retries
            writer.transport.abort()
            return
        port, up_reader, up_writer = found
        self.routed[port] = self.routed.get(port, 0) + 1
        up_writer.write(head)
        link = Link(port, writer, up_writer, websocket=b"upgrade: websocket" in head.lower())
        self.links.add(link)
        link.tasks = [
            asyncio.create_task(_pipe(reader, up_writer, link)),
            asyncio.create_task(_pipe(up_reader, writer, link)),
        ]
        try:
            await asyncio.gather(*link.tasks, return_exceptions=True)
        finally:
            self.links.discard(link)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter, link: Link) -> None:
    """Copy bytes until either side ends; then end the whole link (no half-open pairs)."""
    try:
        while chunk := await source.read(CHUNK):
            sink.write(chunk)
            await sink.drain()
    except OSError:
        link.abort()
    else:
        link.close()
