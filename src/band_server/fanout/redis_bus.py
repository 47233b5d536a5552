"""Redis pub/sub fan-out for several nodes (needs the ``redis`` extra).

How it works: docs/internals/server.md, "Fan-out over Redis".

Each node delivers every broadcast exactly once; a push lost while Redis is away is recovered
through ``/next``, and the gap is announced so that agents do call it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time

from .bus import Broadcast, Deliver, GapLedger, for_every_node, gap_note
from .redis_quiet import MAX_HELD, Publish, QuietPublishes
from .redis_subscription import RedisTiming, Subscription, topic_channel
from .redis_url import redact
from .resp import RespConnection, open_connection

__all__ = ["CHANNEL", "MAX_HELD", "Publish", "RedisBus"]

log = logging.getLogger("band_server.fanout")

CHANNEL = "band:broadcasts"


class RedisBus:
    """Deliver locally and publish on Redis; a subscriber task delivers what it hears from
    the other nodes to the hub.

    Both run on :mod:`.resp` connections of their own (one for publishes and pings, one for
    the subscription): the per-message work is a fraction of redis-py's."""

    def __init__(
        self,
        url: str,
        channel: str = CHANNEL,
        *,
        backoff_min: float = 0.1,
        backoff_max: float = 5.0,
        start_timeout: float = 10.0,
        command_timeout: float = 5.0,
        idle_ping: float = 15.0,
        confirm_every: float = 0.2,
        node_id: str | None = None,
        gaps: GapLedger | None = None,
    ) -> None:
        self.url = url
        self.channel = channel
        self.timing = RedisTiming(
            command_timeout=command_timeout,
            idle_ping=idle_ping,  # a silent subscription is PINGed after this many seconds
            backoff_min=backoff_min,
            backoff_max=backoff_max,
        )
        self.start_timeout = start_timeout
        self._conn: RespConnection | None = None  # publishes and pings
        self._opening: asyncio.Lock | None = None
        self._started = False
        self._deliver: Deliver | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._unsent_since: float | None = None  # first publish lost since the last gap note
        self._unsent_until = 0.0  # when the last loss was found (its data was committed before)
        self._losses = 0  # publishes lost so far (an announcement covers those before it)
        self._announcer: asyncio.Task[None] | None = None
        # This node's row in the gap ledger: wanted while a gap is unannounced, kept in step
        # by one task at a time (a write never waits on a publish, nor fails one).
        self._gaps = gaps
        self._gap_row = False  # whether the ledger holds this node's row (as far as known)
        self._ledger: asyncio.Task[None] | None = None
        self._quiet: RespConnection | None = None  # the publishing connection, if it skips replies
        # Its publishes, held until a PING confirms them; the callbacks look the bus's methods
        # up at each call, so a replaced one (a test's fault) is the one called.
        self._quiets = QuietPublishes(
            confirm_every=confirm_every,
            send_answered=lambda data: self._send_answered(data),
            lost=lambda since: self._lost(since),
            stopping=lambda: self._stopping,
        )
        # What this node's broadcasts open with on the channel: heard back, they are skipped.
        self.node_id = node_id or secrets.token_hex(8)  # its presence's too (app.py)
        self._origin = f'{{"origin":"{self.node_id}",'
        self._mine = self._origin.encode()
        self._subscription = Subscription(
            url,
            channel,
            hand=self._hand,
            resubscribed=self._resubscribed,
            drop_prefix=self._mine,
            timing=self.timing,
        )
        self._subscribed = self._subscription.subscribed

    @property
    def confirm_every(self) -> float:
        """At most one confirming PING per this many seconds (quiet publishes)."""
        return self._quiets.confirm_every

    @property
    def subscribed(self) -> bool:
        """True while the subscriber holds a live subscription."""
        return self._subscribed.is_set()

    async def start(self, deliver: Deliver) -> None:
        """Connect, subscribe, and return once broadcasts are being received."""
        self._opening = asyncio.Lock()
        try:
            conn = await self._connection()
            async with asyncio.timeout(self.timing.command_timeout):
                await conn.command("PING")
        except Exception as exc:
            self._drop()
            raise RuntimeError(f"cannot reach Redis at {redact(self.url)}: {exc}") from exc
        self._started = True
        self._stopping = self._subscription.stopping = False
        self._deliver = deliver
        self._task = asyncio.create_task(self._subscription.run(), name="band-redis-subscriber")
        try:
            await asyncio.wait_for(self._subscribed.wait(), self.start_timeout)
        except TimeoutError:
            await self.stop()
            raise RuntimeError(f"cannot subscribe on Redis at {redact(self.url)}") from None
        log.info("redis bus started: %s channel=%s", redact(self.url), self.channel)

    async def publish(self, broadcast: Broadcast) -> None:
        """Send one broadcast to every node; a failure is logged, never raised (data is saved)."""
        if not self._started:
            raise RuntimeError("the Redis bus is not started")
        await self._hand_over(broadcast)  # this node's sockets: no round trip through Redis
        try:
            await self._send(self._publish_of(broadcast))
        except Exception as exc:
            log.warning(
                "redis bus: publish of %s on %s lost: %r", broadcast.event, broadcast.topic, exc
            )
            self._lost(time.time())

    async def follow(self, topic: str) -> None:
        """Hear ``topic``'s broadcasts from the other nodes (a socket of this node joins it);
        returns once Redis has subscribed (see :mod:`.redis_subscription`)."""
        await self._subscription.follow(topic)

    def forget(self, topic: str) -> None:
        """Undo one :meth:`follow` (a socket of this node left the topic)."""
        self._subscription.forget(topic)

    def _publish_of(self, broadcast: Broadcast) -> Publish:
        """The channel and the text of a broadcast: signed with this node's origin, on the
        common channel when every node acts on it, else on its topic's."""
        data = broadcast.to_wire(self._origin)
        if for_every_node(broadcast):
            return self.channel, data
        return topic_channel(self.channel, broadcast.topic), data

    async def _send(self, data: Publish) -> None:
        """PUBLISH: quietly on a connection that skips replies (no reply to wake this node:
        held until a later PING confirms it, resent when that connection is lost first),
        else answered (:meth:`_send_answered`)."""
        if not self._quiets.offer(self._quiet, data):
            await self._send_answered(data)

    async def _send_answered(self, data: Publish) -> None:
        """PUBLISH and wait for Redis' answer, retried twice on a fresh connection when this
        one died (Redis restarted): otherwise the first publish after a restart would be lost
        and cost every node a resync. Redis may have taken a publish whose answer was lost: a
        retried one can then reach the other nodes twice (a push repeated, never one missed)."""
        self._quiets.write_unwritten()  # in order: what was published before goes first
        delay = 0.05
        for attempt in range(3):
            conn = self._conn if self._conn is not None and self._conn.alive else None
            try:
                if conn is None:
                    conn = await self._connection()
                await conn.command("PUBLISH", *data)  # watched: see _connection
                return
            except (ConnectionError, OSError, TimeoutError):
                if conn is None or conn is self._conn:  # not one a concurrent publish reopened
                    self._drop()
                if attempt == 2:
                    raise
                await asyncio.sleep(delay)
                delay *= 2

    async def flush(self) -> None:
        """Return once Redis has confirmed every publish so far, or a resend has taken (or
        announced as lost) what it had not."""
        await self._quiets.flush()

    def _lost(self, since: float) -> None:
        """Publishes since ``since`` reached no other node: announce a gap to every node."""
        if self._unsent_since is None or since < self._unsent_since:
            self._unsent_since = since
        self._unsent_until = max(self._unsent_until, time.time())
        self._losses += 1
        self._keep_ledger()
        if self._announcer is None or self._announcer.done():
            self._announcer = asyncio.create_task(self._announce_gap(), name="band-redis-gap")

    def _keep_ledger(self) -> None:
        """Bring this node's ledger row in step with its unannounced gap, in a task: written
        at the first loss (again at a later one if that write failed), deleted once the gap
        is announced."""
        wanted = self._unsent_since is not None
        if self._gaps is None or wanted == self._gap_row:
            return
        if self._ledger is None or self._ledger.done():
            self._ledger = asyncio.create_task(self._write_ledger(), name="band-redis-gap-row")

    async def _write_ledger(self) -> None:
        """Write or delete the row until it matches the gap; a failure is logged and left
        for the next loss or announcement to retry (the publishes never wait for it)."""
        assert self._gaps is not None  # nosec B101 # narrows for mypy: _keep_ledger checked
        while ((since := self._unsent_since) is not None) != self._gap_row:
            try:
                if since is not None:
                    await self._gaps.record(self.node_id, since)
                else:
                    await self._gaps.clear(self.node_id)
            except Exception as exc:
                log.warning("redis bus: the gap ledger was not written: %r", exc)
                return
            self._gap_row = since is not None

    async def _connection(self) -> RespConnection:
        """The publishing connection, opened once when it is missing or dead, and asked
        whether it skips replies (then publishes on it are quiet)."""
        assert self._opening is not None  # nosec B101 # narrows for mypy: start() set it
        async with self._opening:
            if self._conn is None or not self._conn.alive:
                within = self.timing.command_timeout
                conn = await open_connection(self.url, within=within)
                try:
                    async with asyncio.timeout(within):
                        quiet = await conn.quiet_supported()
                except BaseException:
                    conn.close()
                    raise
                if not quiet:  # its replies are out of step now: a fresh one, answered
                    conn.close()
                    conn = await open_connection(self.url, within=within)
                    log.info("redis bus: Redis does not skip replies: each publish waits")
                conn.watch(within)  # an unanswered command gives it up
                self._conn, self._quiet = conn, conn if quiet else None
            return self._conn

    def _drop(self) -> None:
        conn, self._conn, self._quiet = self._conn, None, None
        if conn is not None:
            conn.close()

    async def _announce_gap(self) -> None:
        """Publish a gap note for every node once Redis takes it again (backing off). The gap
        ends when the last loss so far was found: a lost broadcast was committed before its
        publish failed, so a socket opened later, on any node, drained it from ``/next``
        (sooner than when the note goes out: this node may resubscribe seconds after the
        others, whose agents reconnected meanwhile). A publish lost while the note goes out
        is announced by one more note.

        Not before this node is subscribed again: a node whose subscription was lost too
        hands itself a note when it resubscribes, and one that kept it hears this one."""
        delay = self.timing.backoff_min
        while not self._stopping and self._started and self._unsent_since is not None:
            await self._subscribed.wait()
            since, until, losses = self._unsent_since, self._unsent_until, self._losses
            try:
                # (this node missed none: it does not hear its own note)
                await self._send(self._publish_of(gap_note(since, until)))
            except Exception:
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.timing.backoff_max)
                continue
            log.info("redis bus: announced a gap since %.3f to every node", since)
            if self._losses == losses:
                self._unsent_since = None
                self._keep_ledger()

    async def health(self) -> str | None:
        """None when Redis answers a PING and the subscription is live."""
        if not self._started:
            return "not started"
        conn = await self._connection()
        async with asyncio.timeout(self.timing.command_timeout):
            await conn.command("PING")
        return None if self.subscribed else "the subscription is down (resubscribing)"

    async def stop(self) -> None:
        """Stop the subscriber and close the connections."""
        if self._quiets.held and self._quiet is not None and self._quiet.alive:
            try:  # a graceful stop: what was published is confirmed (or resent) first
                async with asyncio.timeout(min(1.0, self.timing.command_timeout)):
                    await self.flush()
            except TimeoutError:
                pass
        self._stopping = self._subscription.stopping = True
        self._quiets.clear()
        for task in (self._task, self._announcer, self._ledger, *self._quiets.resends):
            if task is not None:
                task.cancel()
                await asyncio.wait({task}, timeout=self.timing.backoff_max + 2.0)
        self._task = self._announcer = self._ledger = None
        if self._started:
            log.info("redis bus stopped")
        self._started = False
        self._drop()
        self._subscribed.clear()

    # -- what the subscription hears ---------------------------------------------------------

    async def _resubscribed(self, lost: float, live: float) -> None:
        """The subscription is back: what was published from ``lost`` until it was ``live``
        again may be missed here."""
        if self._deliver is not None:
            await self._deliver(gap_note(lost, live))

    async def _hand(self, data: bytes) -> None:
        """Deliver one broadcast heard from another node (the connection dropped this
        node's own as it read them: see ``drop_prefix``)."""
        try:
            broadcast = Broadcast.from_wire(data, len(self._mine))
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("redis bus: dropped a malformed broadcast: %r", exc)
            return
        await self._hand_over(broadcast)

    async def _hand_over(self, broadcast: Broadcast) -> None:
        """Deliver to the local hub; a failing hub is logged, never raised."""
        if self._deliver is None:
            return
        try:
            await self._deliver(broadcast)
        except Exception:
            log.exception(
                "redis bus: delivery of %s on %s failed", broadcast.event, broadcast.topic
            )
