"""The fan-out bus interface and its in-process implementation.

Services publish a :class:`Broadcast` only **after** the transaction that wrote the data has
committed. Each node's hub receives every broadcast and filters it per socket.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any, Protocol

_COMPACT = json.JSONEncoder(separators=(",", ":")).encode
"""``json.dumps(..., separators=(",", ":"))`` without a new encoder per call."""

# ``JSONEncoder.encode`` builds the C encoder anew on every call (about a fifth of a
# payload's encoding): this one is built once, with the same options as ``_COMPACT`` and no
# circular check (a payload is plain data, never a cycle).
_C_ENCODER = c_make_encoder and c_make_encoder(
    None, json.JSONEncoder().default, encode_basestring_ascii, None, ":", ",", False, False, True
)


def payload_text(payload: Any) -> str:
    """``_COMPACT(payload)``: the same text (escaped to ASCII, as every push has been)."""
    if _C_ENCODER is None or isinstance(payload, str):
        return _COMPACT(payload)
    return "".join(_C_ENCODER(payload, 0))


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
        """``json.dumps`` of its members, compact and escaped to ASCII (the bus's wire form)."""
        return payload_text(
            {
                "topic": self.topic,
                "event": self.event,
                "payload": self.payload,
                "agents": None if self.agents is None else sorted(self.agents),
                "users": self.users,
                "exclude_conn": self.exclude_conn,
                "meta": self.meta,
                "published_at": self.published_at,
            }
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
