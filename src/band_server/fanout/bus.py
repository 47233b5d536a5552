"""The fan-out bus interface and its in-process implementation.

Services publish a :class:`Broadcast` only **after** the transaction that wrote the data has
committed. Each node's hub receives every broadcast and filters it per socket.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Broadcast:
    """One event for one topic.

    ``agents`` narrows which agent sockets receive it: ``None`` means every agent subscribed to
    the topic, an empty set means none. ``users`` says whether person sockets receive it.
    ``exclude_conn`` skips one connection (the socket that caused the event).
    ``published_at`` (epoch seconds) travels with it, for the fan-out lag metric.
    """

    topic: str
    event: str
    payload: dict[str, Any]
    agents: frozenset[str] | None = None
    users: bool = True
    exclude_conn: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    published_at: float = field(default_factory=time.time, compare=False)

    def to_json(self) -> str:
        return json.dumps(
            {
                "topic": self.topic,
                "event": self.event,
                "payload": self.payload,
                "agents": None if self.agents is None else sorted(self.agents),
                "users": self.users,
                "exclude_conn": self.exclude_conn,
                "meta": self.meta,
                "published_at": self.published_at,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, raw: str | bytes) -> Broadcast:
        d = json.loads(raw)
        agents = d.get("agents")
        return cls(
            topic=d["topic"],
            event=d["event"],
            payload=d["payload"],
            agents=None if agents is None else frozenset(agents),
            users=bool(d.get("users", True)),
            exclude_conn=d.get("exclude_conn"),
            meta=d.get("meta") or {},
            published_at=float(d.get("published_at") or time.time()),
        )


Deliver = Callable[[Broadcast], Awaitable[None]]

GAP_TOPIC = "band:fanout"
GAP_EVENT = "fanout_gap"


def gap_note(since: float) -> Broadcast:
    """ "Broadcasts since ``since`` (epoch seconds) may not have reached every socket": a note
    for the nodes, never pushed to a socket. A node that reads it makes its agents resync."""
    return Broadcast(
        GAP_TOPIC, GAP_EVENT, {}, agents=frozenset(), users=False, meta={"fanout_gap": since}
    )


def gap_since(broadcast: Broadcast) -> float | None:
    """The ``since`` of a gap note; None for any other broadcast."""
    since = broadcast.meta.get("fanout_gap") if broadcast.topic == GAP_TOPIC else None
    return float(since) if isinstance(since, int | float) else None


class Bus(Protocol):
    async def start(self, deliver: Deliver) -> None: ...

    async def publish(self, broadcast: Broadcast) -> None: ...

    async def stop(self) -> None: ...

    async def health(self) -> str | None:
        """None while the bus can carry broadcasts, else what is wrong (for ``/health``)."""


class InProcessBus:
    """The default bus for one node: publish hands the broadcast straight to the local hub."""

    def __init__(self) -> None:
        self._deliver: Deliver | None = None

    async def start(self, deliver: Deliver) -> None:
        self._deliver = deliver

    async def publish(self, broadcast: Broadcast) -> None:
        if self._deliver is not None:
            await self._deliver(broadcast)

    async def stop(self) -> None:
        self._deliver = None

    async def health(self) -> str | None:
        return None if self._deliver is not None else "not started"
