"""The topics a Phoenix socket holds and its requests awaiting a reply.

A join sends ``join_ref == ref`` and waits for its reply; a reply goes to the request that
carries its ref (or, while a topic waits for its join, to the join its join_ref names); a push
is handed on only when it carries its topic's current join, so a stale join's pushes are
dropped; a channel error rejoins the topic after a backoff. The socket (``band.platform.socket``)
owns the connection and feeds every frame but heartbeat acks here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from . import phoenix as phx
from .phoenix import ChannelState, Frame, RefCounter
from .socket_policy import JoinError, SocketError, SocketTimings, equal_jitter

log = logging.getLogger("band.platform.socket")

PushHandler = Callable[[str, str, dict[str, Any]], None]


class Channels:
    """A socket's topics (``by_topic``) and pending requests (``pending``, by ref)."""

    def __init__(
        self,
        timings: SocketTimings,
        refs: RefCounter,
        *,
        connection: Callable[[], ClientConnection | None],
        spawn: Callable[[Awaitable[Any]], None],
        on_push: PushHandler,
    ) -> None:
        self._timings = timings
        self._refs = refs
        self._connection = connection
        self._spawn = spawn
        self._on_push = on_push
        self.by_topic: dict[str, ChannelState] = {}
        self.pending: dict[str, asyncio.Future[Frame]] = {}

    async def join(self, channel: ChannelState) -> dict[str, Any]:
        """Join with a fresh join_ref; the reply's ``response``, or ``JoinError``."""
        ref = self._refs.next()
        channel.join_ref = ref
        channel.joined = False
        frame = Frame(ref, ref, channel.topic, phx.PHX_JOIN, channel.payload)
        try:
            reply = await self.request(frame, self._timings.join_timeout)
        except TimeoutError:
            raise JoinError(channel.topic, "timeout") from None
        except SocketError as exc:
            raise JoinError(channel.topic, str(exc)) from exc
        if reply.reply_status != "ok":
            reason = reply.reply_response.get("reason", reply.reply_status or "error")
            raise JoinError(channel.topic, str(reason))
        if channel.join_ref == ref:
            channel.joined = True
            channel.errors = 0
        log.info("Subscribed to topic: %s", channel.topic)
        return reply.reply_response

    async def request(self, frame: Frame, timeout: float) -> Frame:  # noqa: ASYNC109
        """Send ``frame`` and wait for the reply to its ref."""
        ws = self._connection()
        if ws is None or frame.ref is None:
            raise SocketError("not connected")
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self.pending[frame.ref] = future
        try:
            await ws.send(phx.encode_frame(frame))
            return await asyncio.wait_for(future, timeout)
        except ConnectionClosed as exc:
            raise SocketError("connection lost") from exc
        finally:
            self.pending.pop(frame.ref, None)

    def drop_session(self) -> None:
        """The connection is gone: no topic is joined, every pending request fails."""
        for channel in self.by_topic.values():
            channel.joined = False
        pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(SocketError("connection lost"))

    def receive(self, frame: Frame) -> None:
        """A frame off the wire: a reply, a channel's error or close, or a push."""
        if frame.event == phx.PHX_REPLY:
            self._on_reply(frame)
            return
        channel = self.by_topic.get(frame.topic)
        if channel is None or frame.join_ref is None or frame.join_ref != channel.join_ref:
            log.debug(
                "Dropped %s on %s (stale join_ref %s)", frame.event, frame.topic, frame.join_ref
            )
            return
        if frame.event == phx.PHX_ERROR:
            channel.joined = False
            channel.errors += 1
            self._spawn(self._rejoin_later(channel))
        elif frame.event == phx.PHX_CLOSE:
            del self.by_topic[frame.topic]
            log.info("Channel closed by server: %s", frame.topic)
        else:
            self._on_push(frame.topic, frame.event, frame.payload)

    def _on_reply(self, frame: Frame) -> None:
        future = self.pending.get(frame.ref) if frame.ref is not None else None
        if future is None and frame.join_ref is not None:
            # While waiting for its join, a topic takes any reply carrying that join_ref.
            channel = self.by_topic.get(frame.topic)
            if channel is not None and not channel.joined and channel.join_ref == frame.join_ref:
                future = self.pending.get(frame.join_ref)
        if future is not None and not future.done():
            future.set_result(frame)

    async def _rejoin_later(self, channel: ChannelState) -> None:
        t = self._timings
        await asyncio.sleep(equal_jitter(t.backoff_base, channel.errors - 1, t.backoff_cap))
        if self.by_topic.get(channel.topic) is channel and self._connection() is not None:
            try:
                await self.join(channel)
            except JoinError as exc:
                log.warning("Rejoin after channel error failed: %s", exc)
