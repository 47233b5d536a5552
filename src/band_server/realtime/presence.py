"""Who is online: what every ``online`` flag and the socket's ``on_conflict=reject`` ask.

One node alone (the in-process bus) answers from its own hub, at the cost of a dict lookup.
Nodes sharing Redis answer cluster-wide through
:class:`~band_server.realtime.redis_presence.ClusterPresence` (docs/decisions.md, "Presence
across nodes").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..fanout.bus import Deliver
from .hub import Hub


@dataclass(frozen=True)
class ClusterView:
    """What a node knows of the others (for ``/metrics``)."""

    other_nodes: int  # live nodes besides this one
    remote_principals: int  # principals online only through other nodes' sockets
    sync_age: float  # seconds since the last cycle that reached Redis


class Presence(Protocol):
    def is_online(self, principal_id: str) -> bool:
        """Whether the principal holds a socket on any node (never waits)."""

    async def claim(self, principal_id: str) -> bool:
        """For a socket that refuses to replace another: True when no other socket of the
        principal is live anywhere, and the caller registers its socket before its next
        ``await``; False means refuse (409). Raises when presence can't be judged."""

    def cluster_view(self) -> ClusterView | None:
        """The cluster as this node sees it; None on a node alone."""

    async def start(self, deliver: Deliver) -> None:
        """Start judging; ``deliver`` takes what this node must hear as if from the bus."""

    async def stop(self) -> None: ...


class LocalPresence:
    """Presence of one node: the hub's own sockets."""

    def __init__(self, hub: Hub) -> None:
        self._hub = hub
        self.is_online = hub.is_online

    async def claim(self, principal_id: str) -> bool:
        # No await in here: two "reject" sockets of one node can't both pass.
        return not self._hub.is_online(principal_id)

    def cluster_view(self) -> ClusterView | None:
        return None

    async def start(self, deliver: Deliver) -> None:
        return None

    async def stop(self) -> None:
        return None
