"""A Phoenix Channels v2 client on ``websockets`` (asyncio): joins, heartbeat, reconnects.

How it works: docs/internals/sdk.md, "The Phoenix socket client".

Why our own client: ``docs/decisions.md`` ("Our own Phoenix v2 socket client").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from . import phoenix as phx
from .channels import Channels, PushHandler
from .handshake import TRANSPORT_ERRORS, first_connect, open_websocket, reconnect
from .phoenix import ChannelState, Frame, RefCounter
from .socket_policy import (
    CLOSE_POLICY,
    CLOSE_WATCHDOG,
    JoinError,
    ReconnectPolicy,
    SocketError,
    SocketTerminated,
    SocketTimings,
    UpgradeRejected,
    build_socket_url,
)

__all__ = [
    "JoinError",
    "PhoenixSocket",
    "SocketError",
    "SocketTerminated",
    "SocketTimings",
    "UpgradeRejected",
    "build_socket_url",
]

log = logging.getLogger("band.platform.socket")

ReconnectHandler = Callable[[], Awaitable[None]]
DisconnectHandler = Callable[[int | None, str], None]


class PhoenixSocket:
    """One supervised Phoenix v2 connection with any number of joined topics."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        initial_params: Mapping[str, str] | None = None,
        on_push: PushHandler | None = None,
        on_reconnect: ReconnectHandler | None = None,
        on_disconnect: DisconnectHandler | None = None,
        timings: SocketTimings | None = None,
    ) -> None:
        self._url = url
        self._headers = dict(headers or {})
        self._params = dict(params or {})
        self._initial_params = dict(initial_params or {})
        self.on_push = on_push
        self.on_reconnect = on_reconnect
        self.on_disconnect = on_disconnect
        self.timings = timings or SocketTimings()
        self._refs = RefCounter()
        self._ws: ClientConnection | None = None
        self._channels = Channels(
            self.timings,
            self._refs,
            connection=lambda: self._ws,
            spawn=self._spawn,
            on_push=self._push,
        )
        self._supervisor: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._terminal: SocketTerminated | None = None
        self._terminated_by_request = False
        self._done = asyncio.Event()
        self._wake = asyncio.Event()
        self._policy = ReconnectPolicy(self.timings)
        self._heartbeat_ref: str | None = None
        self._last_ack = 0.0
        self._forced = False
        self.connect_count = 0
        self.last_disconnect_reason: str | None = None

    @property
    def connected(self) -> bool:
        """True while a WebSocket is open."""
        return self._ws is not None

    @property
    def connection(self) -> ClientConnection | None:
        """The live WebSocket connection, None between connections."""
        return self._ws

    @property
    def topics(self) -> list[str]:
        """Topics this client holds (joined or waiting for a rejoin)."""
        return list(self._channels.by_topic)

    def is_joined(self, topic: str) -> bool:
        channel = self._channels.by_topic.get(topic)
        return channel is not None and channel.joined

    @property
    def terminal_error(self) -> SocketTerminated | None:
        """Why the client stopped for good, if it did."""
        return self._terminal

    async def connect(self) -> None:
        """Open the first connection (retrying transient failures) and start supervising."""
        if self._supervisor is not None:
            return
        ws = await first_connect(
            lambda: self._open(initial=True), self.timings.initial_retry_delays
        )
        self._ws = ws
        self._supervisor = asyncio.create_task(self._supervise(ws), name="band-socket")

    async def close(self) -> None:
        """Close the socket for good (code 1000) and wait for the supervisor to end."""
        self._closing = True
        self._wake.set()
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(*TRANSPORT_ERRORS):
                await ws.close(1000)
        if self._supervisor is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        await self._cancel_tasks()
        self._done.set()

    def terminate(self, reason: str) -> None:
        """End the client without reconnecting (e.g. a non-retryable ``supersede``)."""
        if self._terminal is None:
            self._terminal = SocketTerminated(reason)
            self._terminated_by_request = True
        self.last_disconnect_reason = reason
        self._closing = True
        self._wake.set()
        ws = self._ws
        if ws is not None:
            self._spawn(ws.close(1000))
        elif self._supervisor is None:
            self._done.set()

    async def wait_closed(self) -> None:
        """Block until the client ended; raise ``SocketTerminated`` when it ended on an error."""
        await self._done.wait()
        if self._terminal is not None and not self._terminated_by_request:
            raise self._terminal

    async def join(self, topic: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Join ``topic`` and return the reply's ``response``; raise ``JoinError`` if refused.

        While disconnected the topic is only recorded and joined on the next reconnect.
        """
        topics = self._channels.by_topic
        channel = topics.get(topic)
        if channel is None:
            channel = ChannelState(topic, dict(payload or {}))
            topics[topic] = channel
        if not self.connected:
            return {}
        try:
            return await self._channels.join(channel)
        except JoinError:
            if topics.get(topic) is channel:
                del topics[topic]
            raise

    async def leave(self, topic: str) -> None:
        """Leave ``topic``; a missing reply within 5 s is only logged."""
        channel = self._channels.by_topic.pop(topic, None)
        if channel is None or channel.join_ref is None or not self.connected:
            return
        ref = self._refs.next()
        try:
            await self._channels.request(
                Frame(channel.join_ref, ref, topic, phx.PHX_LEAVE, {}), self.timings.leave_timeout
            )
        except (SocketError, TimeoutError) as exc:
            log.info("Leave %s not confirmed: %s", topic, exc)

    async def _open(self, *, initial: bool) -> ClientConnection:
        params = dict(self._params)
        if initial:
            params.update(self._initial_params)
        url = build_socket_url(self._url, params)
        ws = await open_websocket(url, self._headers, self.timings.open_timeout)
        self.connect_count += 1
        log.info("Connected to %s", urlsplit(url).netloc)
        return ws

    async def _supervise(self, ws: ClientConnection) -> None:
        reconnected = False
        try:
            while True:
                self._ws = ws
                opened = time.monotonic()
                reader = asyncio.create_task(self._serve(ws))
                if reconnected:
                    self._spawn(self._after_reconnect())
                code = await reader
                self._ws = None
                self._channels.drop_session()
                lived = time.monotonic() - opened
                if self._closing:
                    return
                reason = "watchdog" if self._forced else f"closed with code {code}"
                self.last_disconnect_reason = reason
                log.warning("Disconnected from platform (%s)", reason)
                if self.on_disconnect is not None:
                    self.on_disconnect(code, reason)
                if code == CLOSE_POLICY:
                    self._terminal = SocketTerminated("closed by server: policy violation", code)
                    return
                next_ws = await self._reconnect(code, lived)
                if next_ws is None:
                    return
                ws = next_ws
                reconnected = True
        finally:
            self._ws = None
            self._done.set()

    async def _serve(self, ws: ClientConnection) -> int | None:
        self._forced = False
        self._last_ack = time.monotonic()
        heartbeat = asyncio.create_task(self._heartbeat(ws))
        try:
            async for raw in ws:
                self._dispatch(raw)
        except ConnectionClosed:
            pass
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
        return ws.close_code

    async def _heartbeat(self, ws: ClientConnection) -> None:
        t = self.timings
        while True:
            await asyncio.sleep(min(t.heartbeat_interval, t.heartbeat_timeout))
            if time.monotonic() - self._last_ack >= t.heartbeat_timeout:
                log.warning("No heartbeat ack for %.0fs; reconnecting", t.heartbeat_timeout)
                self._forced = True
                await ws.close(CLOSE_WATCHDOG, "heartbeat timeout")
                return
            self._heartbeat_ref = self._refs.next()
            frame = Frame(None, self._heartbeat_ref, phx.HEARTBEAT_TOPIC, phx.HEARTBEAT_EVENT, {})
            with contextlib.suppress(*TRANSPORT_ERRORS):
                await ws.send(phx.encode_frame(frame))

    async def _reconnect(self, code: int | None, lived: float) -> ClientConnection | None:
        if not self._policy.connection_ended(code, lived):
            self._terminal = SocketTerminated("too many rapid disconnects", code)
            return None
        result = await reconnect(
            lambda: self._open(initial=False), self._policy, self._wake, lambda: self._closing
        )
        if isinstance(result, SocketTerminated):
            self._terminal = result
            return None
        return result

    async def _after_reconnect(self) -> None:
        channels = list(self._channels.by_topic.values())
        results = await asyncio.gather(
            *(self._channels.join(c) for c in channels), return_exceptions=True
        )
        for channel, result in zip(channels, results, strict=True):
            if isinstance(result, BaseException):
                log.warning("Rejoin %s failed: %s", channel.topic, result)
        if self.on_reconnect is not None and self.connected:
            try:
                await self.on_reconnect()
            except Exception:
                log.exception("Reconnect handler failed")

    def _dispatch(self, raw: str | bytes) -> None:
        try:
            frame = phx.decode_frame(raw)
        except phx.FrameError as exc:
            log.warning("Dropped malformed frame: %s", exc)
            return
        if (
            frame.event == phx.PHX_REPLY
            and frame.topic == phx.HEARTBEAT_TOPIC
            and frame.ref == self._heartbeat_ref
        ):
            self._last_ack = time.monotonic()
            return
        self._channels.receive(frame)

    def _push(self, topic: str, event: str, payload: dict[str, Any]) -> None:
        if self.on_push is not None:
            try:
                self.on_push(topic, event, payload)
            except Exception:
                log.exception("Push handler failed for %s on %s", event, topic)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _cancel_tasks(self) -> None:
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
