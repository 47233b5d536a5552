"""The fan-out bus interface and its in-process implementation.

Services publish a :class:`Broadcast` only **after** the transaction that wrote the data has
committed. Each node's hub receives every broadcast of the topics its sockets hold (and
those every node acts on) and filters it per socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

from .broadcast import Broadcast as Broadcast  # where it has always been imported from

Deliver = Callable[[Broadcast], Awaitable[None]]


class PlainDeliver:
    """A ``Deliver`` whose work never awaits, done by ``now``: a bus that holds one may call
    ``now`` straight (``InProcessBus``: no coroutine a broadcast)."""

    __slots__ = ("now",)

    def __init__(self, now: Callable[[Broadcast], None]) -> None:
        self.now = now

    async def __call__(self, broadcast: Broadcast) -> None:
        self.now(broadcast)


GAP_TOPIC = "band:fanout"
GAP_EVENT = "fanout_gap"


GAP_CLOCK_MARGIN = 0.5
"""Seconds added to a gap note's ``until`` before a hub compares it with its sockets' open
times: ``until`` may be read on another node's wall clock (the announcer's, a dead node's
last renewal), and node clocks agree only so well. A node whose clock runs behind another's
by more than this may spare a socket that missed a broadcast (docs/decisions.md, "A fan-out
gap closes only the sockets opened before it ended")."""


def gap_note(since: float, until: float) -> Broadcast:
    """ "Broadcasts from ``since`` to ``until`` (epoch seconds, as the note's maker read them)
    may not have reached every socket": a note for the nodes, never pushed to a socket. A node
    that reads it makes the agent sockets opened before ``until`` resync (a later socket
    drained ``/next`` after the gap was over)."""
    return Broadcast(
        GAP_TOPIC,
        GAP_EVENT,
        {},
        agents=frozenset(),
        users=False,
        meta={"fanout_gap": since, "fanout_gap_until": until},
    )


def _gap_field(broadcast: Broadcast, key: str) -> float | None:
    if broadcast.topic != GAP_TOPIC:  # (the topic alone answers for any other broadcast)
        return None
    value = broadcast.meta.get(key)
    return float(value) if isinstance(value, int | float) else None


def gap_since(broadcast: Broadcast) -> float | None:
    """The ``since`` of a gap note; None for any other broadcast (every broadcast a node
    hears is asked, several times: the topic alone answers)."""
    return _gap_field(broadcast, "fanout_gap")


def gap_until(broadcast: Broadcast) -> float | None:
    """The ``until`` of a gap note; None when it has none (a note of an earlier node, which
    means "until now") or is no gap note."""
    return _gap_field(broadcast, "fanout_gap_until")


class GapLedger(Protocol):
    """The database's record of each node's fan-out gap not announced yet (one row a node;
    ``services.fanout_gaps``): a node that dies before Redis takes its gap note leaves its row
    for the node that finds it dead, which announces the gap in its stead."""

    async def record(self, node: str, since: float) -> None:
        """``node``'s publishes since ``since`` reached no other node (yet)."""

    async def clear(self, node: str) -> None:
        """``node``'s gap was announced: its row goes."""

    async def since_of(self, node: str) -> float | None:
        """When ``node``'s unannounced gap began; None when it has none."""

    async def sweep(self, before: float) -> None:
        """Delete the rows of gaps that began before ``before``."""


SUPERSEDE_ONLY = "superseded_by_new_socket"
"""Meta of the broadcast by which a new socket of an agent closes its older ones: not a
revocation (cached keys stay), and only the nodes holding the agent's sockets act on it."""

EVERY_NODE_TOPIC_KINDS = frozenset({"room_participants"})
"""Topics whose broadcasts every node acts on: the room-roster cache drops the room."""
EVERY_NODE_EVENTS = frozenset({"room_removed", "room_deleted"})
"""Events every node acts on, whatever their topic: the room-roster cache drops the room."""


def for_every_node(broadcast: Broadcast) -> bool:
    """Whether every node acts on the broadcast, not only the nodes whose sockets joined its
    topic: it carries meta (a revocation, sockets to close, a gap note) or a cache drops an
    entry on it (``roster_cache``). A supersede (``SUPERSEDE_ONLY``) is for the nodes that
    follow its agent's channel: each follows it while it holds a socket of the agent."""
    meta = broadcast.meta
    return (
        (bool(meta) and not meta.get(SUPERSEDE_ONLY))
        or broadcast.event in EVERY_NODE_EVENTS
        or broadcast.topic.partition(":")[0] in EVERY_NODE_TOPIC_KINDS
        or broadcast.topic == GAP_TOPIC
    )


class Bus(Protocol):
    async def start(self, deliver: Deliver) -> None: ...

    def publish(self, broadcast: Broadcast) -> Awaitable[None]:
        """Awaited by the publisher (a coroutine, or an awaitable done already)."""

    async def follow(self, topic: str) -> None:
        """A socket of this node joins ``topic``: return once broadcasts of it published on
        any node reach this one."""

    def forget(self, topic: str) -> None:
        """A socket of this node left ``topic`` (one :meth:`follow` undone)."""

    async def stop(self) -> None: ...

    async def health(self) -> str | None:
        """None while the bus can carry broadcasts, else what is wrong (for ``/health``)."""


class InProcessBus:
    """The default bus for one node: publish hands the broadcast straight to the local hub."""

    def __init__(self) -> None:
        self._deliver: Deliver | None = None
        self._now: Callable[[Broadcast], None] | None = None  # a ``PlainDeliver``'s work
        self._done: asyncio.Future[None] | None = None  # what a plain publish returns

    async def start(self, deliver: Deliver) -> None:
        self._deliver = deliver
        if isinstance(deliver, PlainDeliver):
            done = asyncio.get_running_loop().create_future()
            done.set_result(None)
            self._now, self._done = deliver.now, done

    def publish(self, broadcast: Broadcast) -> Awaitable[None]:
        """With a ``PlainDeliver``: the hub has the broadcast when this returns, and what it
        returns is done already (awaiting it costs no coroutine); else a coroutine that
        delivers it."""
        now, done = self._now, self._done
        if now is not None and done is not None:
            now(broadcast)
            return done
        return self._later(broadcast)

    async def _later(self, broadcast: Broadcast) -> None:
        if self._deliver is not None:
            await self._deliver(broadcast)

    async def follow(self, topic: str) -> None:
        """Every broadcast is this node's own: nothing to wait for."""

    def forget(self, topic: str) -> None:
        """Nothing was followed."""

    async def stop(self) -> None:
        self._deliver = self._now = self._done = None

    async def health(self) -> str | None:
        return None if self._deliver is not None else "not started"
