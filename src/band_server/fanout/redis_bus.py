"""Redis pub/sub fan-out for several nodes (needs the ``redis`` extra).

Every node publishes each broadcast as JSON on one channel and runs one subscriber task that
hands every broadcast it reads to the local hub. The publishing node hears its own broadcasts
through Redis too, so each node (publisher included) delivers every broadcast exactly once.
Pub/sub is fire-and-forget: a push lost while Redis is away is recovered by ``/next``, since
the data was committed before it was announced. So that the agents do call ``/next``, a gap is
announced: a node whose subscription was lost hands a gap note (``bus.gap_note``) to its own
hub once it is subscribed again (it may have missed anything published meanwhile), and a node
whose publish failed publishes a gap note to every node as soon as Redis takes it (the others
missed what it could not publish). A hub that reads a note makes its agent sockets reconnect,
and a reconnect drains ``/next`` (docs/decisions.md, "Faults (issue 12)").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from .bus import Broadcast, Deliver, gap_note

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("band_server.fanout")

CHANNEL = "band:broadcasts"
INSTALL_HINT = "the Redis bus needs the redis extra: pip install 'openband[redis]'"


def _redis_class() -> type[Redis]:
    try:
        from redis.asyncio import Redis
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(INSTALL_HINT) from exc
    return Redis


async def connect(url: str, **options: Any) -> Redis:
    """A Redis client that answered a PING, else ``RuntimeError`` naming the (redacted) URL."""
    client = _redis_class().from_url(url, **options)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        raise RuntimeError(f"cannot reach Redis at {redact(url)}: {exc}") from exc
    return client


def retry_options() -> dict[str, Any]:
    """A command on a pooled connection that died (Redis restarted) is retried on a fresh
    one: without this, every stale connection of the pool loses one publish after a restart."""
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return {
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, OSError],
    }


def redact(url: str) -> str:
    """The URL without its password, for log lines."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class RedisBus:
    """Publish on one Redis channel; a subscriber task delivers what it hears to the hub."""

    def __init__(
        self,
        url: str,
        channel: str = CHANNEL,
        *,
        backoff_min: float = 0.1,
        backoff_max: float = 5.0,
        start_timeout: float = 10.0,
    ) -> None:
        self.url = url
        self.channel = channel
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.start_timeout = start_timeout
        self._client: Redis | None = None  # publishes and pings (retried on a dead connection)
        self._listener: Redis | None = None  # the subscription
        self._deliver: Deliver | None = None
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._stopping = False
        self._unsent_since: float | None = None  # first publish lost since the last gap note
        self._announcer: asyncio.Task[None] | None = None

    @property
    def subscribed(self) -> bool:
        """True while the subscriber holds a live subscription."""
        return self._subscribed.is_set()

    async def start(self, deliver: Deliver) -> None:
        """Connect, subscribe, and return once broadcasts are being received."""
        options: dict[str, Any] = {"health_check_interval": 15, "socket_keepalive": True}
        self._client = await connect(self.url, **options, **retry_options())
        # The subscription has a client of its own that never retries behind our back: a
        # silent reconnect would hide the gap in what it heard.
        self._listener = _redis_class().from_url(self.url, **options)
        self._stopping = False
        self._deliver = deliver
        self._task = asyncio.create_task(self._subscriber(), name="band-redis-subscriber")
        try:
            await asyncio.wait_for(self._subscribed.wait(), self.start_timeout)
        except TimeoutError:
            await self.stop()
            raise RuntimeError(f"cannot subscribe on Redis at {redact(self.url)}") from None
        log.info("redis bus started: %s channel=%s", redact(self.url), self.channel)

    async def publish(self, broadcast: Broadcast) -> None:
        """Send one broadcast to every node; a failure is logged, never raised (data is saved)."""
        if self._client is None:
            raise RuntimeError("the Redis bus is not started")
        try:
            await self._client.publish(self.channel, broadcast.to_json())
        except Exception as exc:
            log.warning(
                "redis bus: publish of %s on %s lost: %r", broadcast.event, broadcast.topic, exc
            )
            if self._unsent_since is None:
                self._unsent_since = time.time()
            if self._announcer is None or self._announcer.done():
                self._announcer = asyncio.create_task(self._announce_gap(), name="band-redis-gap")

    async def _announce_gap(self) -> None:
        """Publish a gap note for every node once Redis takes it again (backing off).

        Not before this node is subscribed again: a node whose subscription was lost too
        hands itself a note when it resubscribes, and one that kept it hears this one."""
        delay = self.backoff_min
        while not self._stopping and self._client is not None and self._unsent_since is not None:
            await self._subscribed.wait()
            since = self._unsent_since
            try:
                await self._client.publish(self.channel, gap_note(since).to_json())
            except Exception:
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            log.info("redis bus: announced a gap since %.3f to every node", since)
            if self._unsent_since == since:
                self._unsent_since = None

    async def health(self) -> str | None:
        """None when Redis answers a PING and the subscription is live."""
        if self._client is None:
            return "not started"
        await self._client.ping()
        return None if self.subscribed else "the subscription is down (resubscribing)"

    async def stop(self) -> None:
        """Stop the subscriber and close the connection pool."""
        self._stopping = True
        for task in (self._task, self._announcer):
            if task is not None:
                # redis-py can turn a cancellation inside a command into a connection error;
                # the flag ends the loops anyway, and stopping never waits long.
                task.cancel()
                await asyncio.wait({task}, timeout=self.backoff_max + 2.0)
        self._task = self._announcer = None
        client, self._client = self._client, None
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.aclose()
        if client is not None:
            await client.aclose()
            log.info("redis bus stopped")
        self._subscribed.clear()

    # -- the subscriber ----------------------------------------------------------------------

    async def _subscriber(self) -> None:
        """Subscribe and deliver forever; on a dropped connection, back off and resubscribe."""
        assert self._listener is not None
        delay = self.backoff_min
        lost: float | None = None  # when the subscription was lost
        while not self._stopping:
            pubsub = self._listener.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self._subscribed.set()
                if lost is not None:
                    log.info("redis bus: resubscribed to %s", self.channel)
                    if self._deliver is not None:  # what was published meanwhile is missed
                        await self._deliver(gap_note(lost))
                lost, delay = None, self.backoff_min
                async for message in pubsub.listen():
                    await self._hand(message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._subscribed.clear()
                if lost is None:
                    lost = time.time()
                log.warning("redis bus: subscription lost (%r); retry in %.1fs", exc, delay)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_max)

    async def _hand(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message" or self._deliver is None:
            return
        try:
            broadcast = Broadcast.from_json(message["data"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("redis bus: dropped a malformed broadcast: %r", exc)
            return
        try:
            await self._deliver(broadcast)
        except Exception:
            log.exception(
                "redis bus: delivery of %s on %s failed", broadcast.event, broadcast.topic
            )
