"""A node's Redis subscription: the channel every node hears, and one channel per topic that
this node's sockets joined.

How it works: docs/internals/server.md, "A node's Redis subscription".
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from .resp import RespConnection, open_connection, retrieved

log = logging.getLogger("band_server.fanout")


# A principal's own topics share one channel: the node that holds any of them holds the
# principal's socket, and one SUBSCRIBE serves all of a socket's own topics.
_OWN_TOPIC_KINDS = frozenset(
    {"agent_control", "agent_rooms", "agent_contacts", "user_rooms", "user_notifications"}
)


def topic_channel(channel: str, topic: str) -> str:
    """The Redis channel of one topic's broadcasts: the topic's own, or its principal's for
    the topics only that principal joins (``<channel>:principal:<id>``)."""
    kind, _, ident = topic.partition(":")
    if kind in _OWN_TOPIC_KINDS and ident:
        return f"{channel}:principal:{ident}"
    return f"{channel}:{topic}"


@dataclass(frozen=True)
class RedisTiming:
    """How long the bus's Redis links wait, its publishing side's and its subscription's
    alike: a command's answer, a silent subscription before it is PINGed, and the back-off
    between reconnects (doubling from ``backoff_min`` up to ``backoff_max``)."""

    command_timeout: float
    idle_ping: float
    backoff_min: float
    backoff_max: float


class Subscription:
    """Subscribe, hand every message heard to ``hand``, resubscribe (backing off) when the
    connection is lost; follow topics while sockets of this node hold them."""

    def __init__(
        self,
        url: str,
        channel: str,
        *,
        hand: Callable[[bytes], Awaitable[None]],
        resubscribed: Callable[[float, float], Awaitable[None]],
        drop_prefix: bytes,
        timing: RedisTiming,
    ) -> None:
        self.url = url
        self.channel = channel
        self._hand = hand
        # Told when the lost subscription began, and when it was live again.
        self._resubscribed = resubscribed
        self._drop_prefix = drop_prefix
        self.timing = timing
        self.subscribed = asyncio.Event()
        self._live: RespConnection | None = None  # the connection topics are subscribed on
        self._refs: dict[str, int] = {}  # channel -> follows not yet forgotten
        self._pending: dict[str, asyncio.Future[object]] = {}  # SUBSCRIBE replies awaited
        self.stopping = False

    @property
    def channels(self) -> frozenset[str]:
        """The topic channels followed."""
        return frozenset(self._refs)

    async def follow(self, topic: str) -> None:
        """Hear ``topic``'s broadcasts from the other nodes until :meth:`forget` is called as
        many times; returns once Redis has subscribed (at once while the subscription is
        down: it is resubscribed with every channel, and a gap note)."""
        name = topic_channel(self.channel, topic)
        refs = self._refs.get(name, 0)
        self._refs[name] = refs + 1
        try:
            reply = self._pending.get(name)
            if reply is None:
                conn = self._live
                if refs or conn is None or not conn.alive:
                    return
                reply = self._pending[name] = conn.command_soon("SUBSCRIBE", name)
                reply.add_done_callback(partial(self._answered, name))
            await asyncio.wait_for(asyncio.shield(reply), self.timing.command_timeout)
        except asyncio.CancelledError:
            self.forget(topic)
            raise
        except Exception as exc:  # the connection is lost: resubscribing includes the channel
            log.debug("redis bus: subscribe to %s waits for the resubscription: %r", name, exc)

    def _answered(self, name: str, reply: asyncio.Future[object]) -> None:
        if self._pending.get(name) is reply:
            del self._pending[name]

    def forget(self, topic: str) -> None:
        """Undo one :meth:`follow`; the last one of its channel unsubscribes."""
        name = topic_channel(self.channel, topic)
        refs = self._refs.get(name, 0) - 1
        if refs > 0:
            self._refs[name] = refs
            return
        self._refs.pop(name, None)
        # A SUBSCRIBE still unanswered is undone by this UNSUBSCRIBE: a later follow must
        # send its own (after this one), not wait for that reply.
        self._pending.pop(name, None)
        conn = self._live
        if refs == 0 and conn is not None and conn.alive:
            conn.command_soon("UNSUBSCRIBE", name).add_done_callback(retrieved)

    async def run(self) -> None:
        """Subscribe and hand over forever; on a dropped connection, back off and resubscribe."""
        timing = self.timing
        delay = timing.backoff_min
        lost: float | None = None  # when the subscription was lost
        while not self.stopping:
            conn: RespConnection | None = None
            try:
                conn = await open_connection(self.url, within=timing.command_timeout)
                conn.watch(timing.command_timeout, ping_after=timing.idle_ping)
                conn.drop_prefix = self._drop_prefix  # this node delivered its own already
                await self._subscribe_all(conn)
                live = time.time()  # every broadcast published from here on is heard
                self.subscribed.set()
                if lost is not None:
                    log.info("redis bus: resubscribed to %s", self.channel)
                    await self._resubscribed(lost, live)  # what was published meanwhile is missed
                lost, delay = None, timing.backoff_min
                messages = conn.messages
                while True:
                    await conn.heard()
                    while messages:
                        await self._hand(messages.popleft())
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.subscribed.clear()
                if lost is None:
                    lost = time.time()
                log.warning("redis bus: subscription lost (%r); retry in %.1fs", exc, delay)
            finally:
                self._live = None
                if conn is not None:
                    conn.close()
            await asyncio.sleep(delay)
            delay = min(delay * 2, timing.backoff_max)

    async def _subscribe_all(self, conn: RespConnection) -> None:
        """The common channel and every channel followed, in one go. From here on a new follow
        subscribes on ``conn`` itself (both happen in this one step: none falls between)."""
        self._live = conn
        channels = [self.channel, *self._refs]
        replies = [conn.command("SUBSCRIBE", name) for name in channels]
        async with asyncio.timeout(self.timing.command_timeout * max(1, len(channels) // 10_000)):
            await asyncio.gather(*replies)
