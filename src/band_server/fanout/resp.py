"""One lean Redis connection for the bus's per-message work: PUBLISH, and a subscription.

How it works: docs/internals/server.md, "The lean RESP connection".

RESP2 only, on hiredis (already required by the ``redis`` extra).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote, urlsplit

try:
    import hiredis
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("the Redis bus needs the redis extra: pip install 'openband[redis]'") from exc

__all__ = ["Endpoint", "RedisReplyError", "RespConnection", "open_connection", "retrieved"]

_SKIP = hiredis.pack_command(("CLIENT", "REPLY", "SKIP"))  # type: ignore[arg-type]
_PROBE = b"band-quiet-probe"


class RedisReplyError(Exception):
    """Redis answered a command with an error reply."""


@dataclass(frozen=True)
class Endpoint:
    """Where a ``redis://``, ``rediss://`` or ``unix://`` URL points, and how to log in."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a unix socket
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @classmethod
    def from_url(cls, url: str) -> Endpoint:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"not a Redis URL (redis://, rediss:// or unix://): {parts.scheme}")
        username = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        if parts.scheme == "unix":
            return cls(path=parts.path, username=username, password=password)
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 6379,
            username=username,
            password=password,
            tls=parts.scheme == "rediss",
        )


class RespConnection(asyncio.Protocol):
    """Commands answered in order, and (once subscribed) the messages heard, kept in order."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader()
        self._transport: asyncio.Transport | None = None
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._outbox: list[bytes] = []  # commands of this loop pass not yet written
        self.messages: deque[bytes] = deque()  # a subscription's message data, oldest first
        # Messages opening with this are dropped as they are read (a node's own broadcasts,
        # heard back): no wake-up of the reader for them.
        self.drop_prefix: bytes | None = None
        self._heard: asyncio.Future[None] | None = None
        self.heard_at = time.monotonic()
        self.lost: BaseException | None = None
        self._watch: asyncio.TimerHandle | None = None
        self._oldest: asyncio.Future[Any] | None = None  # the oldest unanswered command seen
        self._oldest_since = 0.0

    # -- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio.Transport: no isinstance check
        self._transport = cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family != socket.AF_UNIX:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def data_received(self, data: bytes) -> None:
        self.heard_at = time.monotonic()
        reader = self._reader
        reader.feed(data)
        got_message = False
        while True:
            try:
                reply = reader.gets()
            except hiredis.ProtocolError as exc:
                self._abort(ConnectionError(f"Redis sent what is not RESP: {exc}"))
                return
            if reply is False:
                break
            if type(reply) is list and reply and reply[0] == b"message":
                drop = self.drop_prefix
                if drop is None or not reply[2].startswith(drop):
                    self.messages.append(reply[2])
                    got_message = True
            elif self._waiting:
                waiter = self._waiting.popleft()
                if waiter.done():
                    continue
                if isinstance(reply, hiredis.ReplyError):
                    waiter.set_exception(RedisReplyError(str(reply)))
                else:
                    waiter.set_result(reply)
        if got_message:
            self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self.lost is None:
            self.lost = exc or ConnectionError("Redis closed the connection")
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(ConnectionError(f"Redis connection lost: {self.lost!r}"))
        self._wake()

    # -- use ---------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._transport is not None and self.lost is None

    def command(self, *args: str | bytes | int) -> asyncio.Future[Any]:
        """Send one command; the future gets its reply (``RedisReplyError`` for an error)."""
        transport = self._transport
        if transport is None or self.lost is not None:
            raise ConnectionError(f"Redis connection lost: {self.lost!r}")
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        # hiredis' stub types the command as a 1-tuple; any number of arguments is packed
        packed = hiredis.pack_command(args)  # type: ignore[arg-type]
        if self._outbox:  # after the commands sent before it
            self._outbox.append(packed)
            self._flush()
        else:
            transport.write(packed)
        return waiter

    def command_soon(self, *args: str | bytes | int) -> asyncio.Future[Any]:
        """:meth:`command`, written once this loop pass's work is done, in one write with the
        others sent so meanwhile (the SUBSCRIBEs of sockets that joined at once)."""
        if self._transport is None or self.lost is not None:
            raise ConnectionError(f"Redis connection lost: {self.lost!r}")
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[Any] = loop.create_future()
        self._waiting.append(waiter)
        if not self._outbox:
            loop.call_soon(self._flush)
        self._outbox.append(hiredis.pack_command(args))  # type: ignore[arg-type]
        return waiter

    def _flush(self) -> None:
        """Write what :meth:`command_soon` holds (a lost connection failed its waiters)."""
        out, self._outbox = self._outbox, []
        if out and self._transport is not None and self.lost is None:
            self._transport.write(b"".join(out))

    def send_quiet(self, *args: str | bytes | int) -> None:
        """Send one command whose reply Redis skips (``CLIENT REPLY SKIP``, Redis 3.2 and
        newer): no reply to read, nothing to wait for. What it did is known only from a
        later command's reply (commands run in order); :meth:`quiet_supported` first."""
        self.send_quiet_many([args])

    def send_quiet_many(self, commands: list[tuple[str | bytes | int, ...]]) -> None:
        """:meth:`send_quiet` for several commands, in order, in one write."""
        transport = self._transport
        if transport is None or self.lost is not None:
            raise ConnectionError(f"Redis connection lost: {self.lost!r}")
        self._flush()  # after the commands sent before them
        transport.write(b"".join(_SKIP + hiredis.pack_command(c) for c in commands))  # type: ignore[arg-type]

    async def quiet_supported(self) -> bool:
        """Whether the server skips replies as :meth:`send_quiet` asks. False leaves this
        connection unusable (replies it did send are unaccounted for): close it.

        A server that does not know ``CLIENT REPLY`` (or an ACL that denies it) answers it
        with an error, then answers the skipped PING: the ECHO's waiter gets the error."""
        self.send_quiet("PING")
        try:
            return bool(await self.command("ECHO", _PROBE) == _PROBE)
        except RedisReplyError:
            return False

    def watch(self, answer_within: float, ping_after: float | None = None) -> None:
        """Give the connection up (``TimeoutError``, every waiter failed) when a command is left
        unanswered ``answer_within`` seconds; with ``ping_after``, PING a connection that was
        silent that long (a subscription's sign of life). One timer for the connection, a few
        times per ``answer_within``: nothing per command (``asyncio.timeout`` around each
        publish and each wait for a message was a timer per message)."""
        loop = asyncio.get_running_loop()
        every = answer_within / 4

        def check() -> None:
            self._watch = None
            if not self.alive:
                return
            now = time.monotonic()
            oldest = self._waiting[0] if self._waiting else None
            if oldest is not self._oldest:
                self._oldest, self._oldest_since = oldest, now
            elif oldest is not None and now - self._oldest_since >= answer_within:
                self._abort(TimeoutError(f"Redis did not answer within {answer_within:g}s"))
                return
            if ping_after is not None and oldest is None and now - self.heard_at >= ping_after:
                self.command("PING").add_done_callback(retrieved)
            self._watch = loop.call_later(every, check)

        if self._watch is not None:
            self._watch.cancel()
        self._watch = loop.call_later(every, check)

    async def heard(self) -> None:
        """Return once a message is waiting in ``messages``; a lost connection raises (a
        connection :meth:`watch` gave up on included)."""
        while not self.messages:
            if self.lost is not None:
                raise ConnectionError(f"Redis connection lost: {self.lost!r}")
            self._heard = asyncio.get_running_loop().create_future()
            try:
                await self._heard
            finally:
                self._heard = None

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _wake(self) -> None:
        heard = self._heard
        if heard is not None and not heard.done():
            heard.set_result(None)

    def _abort(self, exc: Exception) -> None:
        self.lost = exc
        if self._transport is not None:
            self._transport.abort()


def retrieved(future: asyncio.Future[Any]) -> None:
    """A reply nobody awaits (the watchdog's PING): its failure is the connection's, seen
    there; retrieved here so asyncio does not report it as never retrieved."""
    if not future.cancelled():
        future.exception()


async def open_connection(url: str, *, within: float = 5.0) -> RespConnection:
    """A connection to ``url``, logged in (AUTH) when the URL names a password."""
    endpoint = Endpoint.from_url(url)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(within):
        if endpoint.path is not None:
            _, conn = await loop.create_unix_connection(RespConnection, endpoint.path)
        else:
            context = ssl.create_default_context() if endpoint.tls else None
            _, conn = await loop.create_connection(
                RespConnection, endpoint.host, endpoint.port, ssl=context
            )
        try:
            if endpoint.password is not None:
                login = [endpoint.username] if endpoint.username else []
                await conn.command("AUTH", *login, endpoint.password)
        except BaseException:
            conn.close()
            raise
    return conn
