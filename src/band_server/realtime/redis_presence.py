"""Presence across nodes sharing one Redis (needs the ``redis`` extra).

How it works: docs/internals/server.md, "Presence across nodes".

``is_online`` answers from this node's hub and a mirror of the other nodes' sockets, with no
round trip; ``claim`` admits a "reject" socket of an agent on at most one node.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from band_server.fanout.bus import Deliver, GapLedger, gap_note
from band_server.fanout.redis_url import connect
from band_server.realtime.dead_nodes import DeadNodes
from band_server.realtime.hub import Hub
from band_server.realtime.presence import ClusterView
from band_server.realtime.presence_lease import LeaseKeeper

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("band_server.fanout")

PREFIX = "band:presence:"
NODES_KEY = PREFIX + "nodes"
VERSION_FIELD = "~v"

# KEYS[1] the live-node set, KEYS[2] this node's hash.
# ARGV: now, principal, this node, hash prefix, count to write, new version, ttl (ms).
_CLAIM = """
local live = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')
for _, node in ipairs(live) do
  if node ~= ARGV[3] and redis.call('HEXISTS', ARGV[4] .. node, ARGV[2]) == 1 then
    return 0
  end
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[5], '~v', ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 1
"""


def node_key(node_id: str) -> str:
    return PREFIX + "node:" + node_id


class _NodeView:
    """What this node last read of another node's sockets."""

    __slots__ = ("expires_at", "principals", "version")

    def __init__(self) -> None:
        self.version: str | None = None
        self.expires_at = 0.0
        self.principals: frozenset[bytes | str] = frozenset()  # as read: not yet decoded


class ClusterPresence:
    """Presence judged over every node that shares this Redis."""

    def __init__(
        self,
        hub: Hub,
        url: str,
        *,
        ttl: float = 10.0,
        interval: float = 1.0,
        stall: float = 60.0,
        node_id: str | None = None,
        gaps: GapLedger | None = None,
        gap_grace: float | None = None,
    ) -> None:
        if interval * 2 >= ttl:
            raise ValueError("the presence interval must be well under the ttl")
        self.url = url
        self.ttl = ttl
        self.interval = interval
        self.coalesce = min(0.05, interval / 5)
        self.node_id = node_id or uuid.uuid4().hex  # its bus's too (app.py)
        self._dead = DeadNodes(ttl=ttl, interval=interval, gaps=gaps, grace=gap_grace)
        self._hub = hub
        self._deliver: Deliver | None = None
        self._key = node_key(self.node_id)
        # The lease is renewed off the loop, while the loop still comes round within `stall`.
        self._lease = LeaseKeeper(
            url,
            nodes_key=NODES_KEY,
            node_id=self.node_id,
            hash_key=self._key,
            ttl=ttl,
            interval=interval,
            stall=stall,
        )
        self._client: Redis | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._dirty: set[str] = set()
        self._rewrite = True  # the whole hash must be written (at start, after an outage)
        self._version = 0
        self._others: dict[str, _NodeView] = {}
        self._remote: dict[str, int] = {}  # principal -> how many other nodes hold it
        self._claiming: set[str] = set()
        self._writing = asyncio.Lock()  # a claim and a write of the counts, one at a time
        self._failing = False
        self._stopping = False
        self._next_read = 0.0
        self._synced_at = time.monotonic()
        self.synced = asyncio.Event()  # set after each cycle that reached Redis

    # -- what the platform asks ---------------------------------------------------------------

    def is_online(self, principal_id: str) -> bool:
        return self._hub.is_online(principal_id) or principal_id in self._remote

    async def claim(self, principal_id: str) -> bool:
        if self._hub.is_online(principal_id) or principal_id in self._claiming:
            return False
        if self._client is None:
            raise RuntimeError("cluster presence is not started")
        self._claiming.add(principal_id)
        try:
            # The lock keeps a write of this node's counts (built from the hub before this
            # socket registers) from landing after the claim and deleting what it wrote.
            async with self._writing:
                self._version += 1
                admitted = await self._client.eval(
                    _CLAIM,
                    2,
                    NODES_KEY,
                    self._key,
                    repr(time.time()),
                    principal_id,
                    self.node_id,
                    PREFIX + "node:",
                    str(self._hub.count_of(principal_id) + 1),
                    self._version_tag(),
                    str(int(self.ttl * 1000)),
                )
        finally:
            self._claiming.discard(principal_id)
        # The caller registers before its next await (so before the next write of the counts,
        # which waits for the lock), and that write keeps the exact count.
        return bool(admitted)

    def cluster_view(self) -> ClusterView:
        remote = sum(1 for p in self._remote if not self._hub.is_online(p))
        return ClusterView(len(self._others), remote, time.monotonic() - self._synced_at)

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self, deliver: Deliver) -> None:
        """Connect and run one cycle, so this node's view is complete before it serves.
        ``deliver`` is the node's bus delivery: a dead node's gap goes through it."""
        self._deliver = deliver
        self._client = await connect(self.url, socket_timeout=self.ttl / 2)
        self._stopping = False
        self._hub.on_presence = self._changed
        await self._cycle()
        self._dead.sweep_old()
        self._lease.start()
        self._task = asyncio.create_task(self._run(), name="band-presence")
        log.info("cluster presence started: node %s ttl=%gs", self.node_id, self.ttl)

    async def stop(self) -> None:
        """Stop the cycle and take this node's sockets out of Redis at once."""
        self._hub.on_presence = None
        self._stopping = True
        await asyncio.to_thread(self._lease.stop)
        task, self._task = self._task, None
        if task is not None:
            # redis-py can turn a cancellation inside a command into a connection error; the
            # flag ends the loop anyway, and stopping never waits long.
            task.cancel()
            await asyncio.wait({task}, timeout=self.interval + 2.0)
        await self._dead.stop()
        client, self._client = self._client, None
        if client is None:
            return
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2.0):
                pipe = client.pipeline(transaction=True)
                pipe.delete(self._key)
                pipe.zrem(NODES_KEY, self.node_id)
                await pipe.execute()
        await client.aclose()

    # -- the cycle ----------------------------------------------------------------------------

    def _changed(self, principal_id: str) -> None:
        self._dirty.add(principal_id)
        self._wake.set()

    def _version_tag(self) -> str:
        return f"{self.node_id[:8]}.{self._version}"

    async def _run(self) -> None:
        while not self._stopping:
            self._lease.tick()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval):
                    await self._wake.wait()
                # Woken by a change: gather the rest of a burst (a connect storm) into one write.
                await asyncio.sleep(self.coalesce)
            try:
                await self._cycle()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._rewrite = True
                if not self._failing:
                    log.warning("cluster presence: Redis unreachable (%r)", exc)
                self._failing = True
                self._forget_expired(time.time())

    async def _cycle(self) -> None:
        assert self._client is not None  # nosec B101 # narrows for mypy: start() opened it
        self._wake.clear()
        dirty, self._dirty = self._dirty, set()
        try:
            async with self._writing:
                live = await self._write(dirty)
        except BaseException:
            self._dirty |= dirty
            raise
        # Other nodes are read once an interval, however often this node's changes are written.
        if time.monotonic() >= self._next_read:
            self._next_read = time.monotonic() + self.interval * 0.9
            await self._read(live)
        if self._failing:
            log.info("cluster presence: Redis is back")
            self._failing = False
        self._synced_at = time.monotonic()
        self.synced.set()

    async def _write(self, dirty: set[str]) -> dict[str, float]:
        """Write this node's changes and refresh its expiry; the live nodes and their expiry."""
        assert self._client is not None  # nosec B101 # narrows for mypy: start() opened it
        now = time.time()
        rewrite = self._rewrite
        if rewrite or dirty:  # the other nodes reload this hash only when its version moves
            self._version += 1
        pipe = self._client.pipeline(transaction=True)
        if rewrite:
            counts = self._hub.online_counts()
            pipe.delete(self._key)
            if counts:
                pipe.hset(self._key, mapping={p: str(n) for p, n in counts.items()})
        else:
            gone = [p for p in dirty if not self._hub.count_of(p)]
            kept = {p: str(self._hub.count_of(p)) for p in dirty if self._hub.count_of(p)}
            if gone:
                pipe.hdel(self._key, *gone)
            if kept:
                pipe.hset(self._key, mapping=kept)  # type: ignore[arg-type]
        at = len(pipe)
        pipe.hset(self._key, VERSION_FIELD, self._version_tag())
        pipe.pexpire(self._key, int(self.ttl * 1000))
        pipe.zadd(NODES_KEY, {self.node_id: now + self.ttl})
        pipe.zremrangebyscore(NODES_KEY, "-inf", now)
        pipe.zrangebyscore(NODES_KEY, now, "+inf", withscores=True)
        results = await pipe.execute()
        self._rewrite = False
        if results[at] == 1 and not rewrite:
            # The version field was new: the hash was gone (Redis restarted empty between two
            # cycles, or it expired): rewrite it whole, under a new version, at once.
            log.info("cluster presence: this node's sockets were missing in Redis: rewriting")
            self._rewrite = True
            self._wake.set()
        return {_text(node): float(score) for node, score in results[-1]}

    async def _read(self, live: dict[str, float]) -> None:
        """Reload the hash of every other live node whose version moved."""
        assert self._client is not None  # nosec B101 # narrows for mypy: start() opened it
        others = [n for n in live if n != self.node_id]
        now = time.time()
        for gone in set(self._others) - set(others):
            view = self._others.pop(gone)
            self._hold(view, frozenset())
            if view.expires_at <= now:  # in a task: the ledger's read must not hold the cycle
                self._dead.run(self._node_died(gone, view))
        for node in others:
            self._others.setdefault(node, _NodeView()).expires_at = live[node]
        if others:
            pipe = self._client.pipeline(transaction=False)
            for node in others:
                pipe.hget(node_key(node), VERSION_FIELD)
            versions = await pipe.execute()
            stale = [
                n
                for n, v in zip(others, versions, strict=True)
                if v is None or _text(v) != self._others[n].version
            ]
            if stale:
                pipe = self._client.pipeline(transaction=False)
                for node in stale:
                    pipe.hgetall(node_key(node))
                for node, raw in zip(stale, await pipe.execute(), strict=True):
                    seen = self._others.get(node)
                    if seen is not None:
                        seen.version, held = _node_hash(raw)
                        self._hold(seen, held)

    async def _node_died(self, node: str, view: _NodeView) -> None:
        """A node left by expiry, not by ``stop``: it died, and what it committed after its
        last publish was never announced. That is a fan-out gap since it was last seen alive,
        delivered here as the bus delivers one (the caches drop what they hold, the agents
        reconnect and drain ``/next``); a clean stop leaves before its expiry: no gap.

        The gap ends when the node would have renewed its lease next, had it lived (half an
        interval more for a late renewal): a socket opened later, on any node, drained
        ``/next`` after the node's last commit. A node alive but cut off from Redis meanwhile
        announces its own lost publishes once it is back (``RedisBus``), with its own end;
        one that died first left a row in the gap ledger: its gap runs until now
        (:mod:`.dead_nodes`)."""
        last_seen = view.expires_at - self.ttl
        since, until = await self._dead.gap_of(node, last_seen)
        log.warning(
            "cluster presence: node %s expired (last seen %.3f): a gap until %.3f",
            node,
            last_seen,
            until,
        )
        if self._deliver is not None:
            await self._deliver(gap_note(since, until))

    def _forget_expired(self, now: float) -> None:
        """While Redis is away: drop every node whose last read expiry has passed."""
        expired = [n for n, view in self._others.items() if view.expires_at < now]
        for node in expired:
            self._hold(self._others.pop(node), frozenset())

    def _hold(self, view: _NodeView, principals: frozenset[bytes | str]) -> None:
        """``view``'s node now holds ``principals`` (ids as read): the count of nodes holding
        each changes by the difference only, and only that is decoded (a reload during a
        connect storm differs by a few of a node's thousands; decoding and recounting them
        all was a long step of the loop every second)."""
        old, view.principals = view.principals, principals
        remote = self._remote
        for gone in old - principals:
            principal = _text(gone)
            left = remote[principal] - 1
            if left:
                remote[principal] = left
            else:
                del remote[principal]
        for new in principals - old:
            principal = _text(new)
            remote[principal] = remote.get(principal, 0) + 1


_ZERO = (b"0", "0")


_VERSION_KEYS = (VERSION_FIELD, VERSION_FIELD.encode())


def _node_hash(raw: Mapping[Any, Any]) -> tuple[str | None, frozenset[bytes | str]]:
    """A node's hash as read: its version, and the principals it holds (a count not "0"),
    their ids as read (decoded only when they change: :meth:`ClusterPresence._hold`)."""
    version: str | None = None
    for key in _VERSION_KEYS:
        if key in raw:
            version = _text(raw[key])
    held = frozenset([key for key, count in raw.items() if count not in _ZERO])
    return version, held - frozenset(_VERSION_KEYS)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
