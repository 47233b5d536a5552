"""The node-local hub: which connection holds which topic, and per-socket routing.

The routing rule lives here and only here: an agent socket receives a broadcast only when the
broadcast names that agent (or names no agents at all); person sockets receive whatever is
marked for users. Every push carries the join_ref of that connection's join of the topic.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from json.encoder import encode_basestring_ascii
from typing import Protocol

from ..fanout.bus import GAP_CLOCK_MARGIN, GAP_TOPIC, Broadcast, gap_since, gap_until
from ..services.identity.principals import Principal
from ..services.views import QUOTED

log = logging.getLogger("band_server.realtime")

# "Service restart": both SDKs reconnect after a second or a few, then drain ``/next``.
RESYNC_CLOSE_CODE = 1012


class Connection(Protocol):
    id: str
    principal: Principal
    opened_at: float  # epoch seconds (wall clock: gap notes compare it with other nodes')
    claim_on_push: str | None  # an agent socket's mode (``band_protocol.CLAIM_ON_PUSH_MODES``)

    def send_text(self, frame: str) -> None:
        """Queue one text frame (never blocks)."""

    def close(self, code: int) -> None:
        """Close the socket after the frames already queued."""


def push_head(join_ref: str | None) -> str:
    """A push frame's start, up to its topic: the same for every push on one join."""
    return f"[{encode_basestring_ascii(join_ref) if join_ref is not None else 'null'},null,"


def push_tail(topic: str, event: str, payload_json: str) -> str:
    """A push frame's rest: the same for every subscriber of one broadcast (its topic and event
    come again and again: their texts are kept, ``views.QUOTED``)."""
    return f"{QUOTED[topic]},{QUOTED[event]},{payload_json}]"


class Hub:
    def __init__(self) -> None:
        # topic -> connection id -> (connection, its join_ref, its frames' head)
        self._subs: dict[str, dict[str, tuple[Connection, str, str]]] = {}
        self._conns: dict[str, Connection] = {}
        self._topics_of: dict[str, set[str]] = {}
        self._by_principal: dict[str, set[str]] = {}
        # Told the principal's id whenever its count of local sockets changes (cluster presence).
        self.on_presence: Callable[[str], None] | None = None
        # Told a topic each time a connection stops holding it (the bus stops following it
        # once none does: ``Bus.forget``).
        self.on_left: Callable[[str], None] | None = None
        # Agent sockets told to resync after a fan-out gap, until they unregister: a later
        # gap note does not tell them again.
        self._resyncing: set[str] = set()

    # -- connections -------------------------------------------------------------------------

    def register(self, conn: Connection) -> None:
        self._conns[conn.id] = conn
        self._topics_of[conn.id] = set()
        self._by_principal.setdefault(conn.principal.id, set()).add(conn.id)
        if self.on_presence is not None:
            self.on_presence(conn.principal.id)

    def unregister(self, conn: Connection) -> None:
        self._resyncing.discard(conn.id)
        for name in self._topics_of.pop(conn.id, set()):
            self._drop_sub(conn, name)
        if self._conns.pop(conn.id, None) is None:
            return
        ids = self._by_principal.get(conn.principal.id)
        if ids is not None:
            ids.discard(conn.id)
            if not ids:
                del self._by_principal[conn.principal.id]
        if self.on_presence is not None:
            self.on_presence(conn.principal.id)

    def connections_of(self, principal_id: str) -> list[Connection]:
        return [
            self._conns[c] for c in self._by_principal.get(principal_id, ()) if c in self._conns
        ]

    def claim_on_push(self, agent_id: str, topic: str) -> str | None:
        """The ``claim_on_push`` mode of the agent's socket on this node that holds ``topic``
        (None: no such socket, or it did not ask)."""
        for conn_id in self._by_principal.get(agent_id, ()):
            conn = self._conns.get(conn_id)
            if conn is not None and conn.claim_on_push and conn_id in self._subs.get(topic, ()):
                return conn.claim_on_push
        return None

    def is_online(self, principal_id: str) -> bool:
        """Whether the principal holds a socket on this node (see ``Platform.presence``)."""
        return bool(self._by_principal.get(principal_id))

    def count_of(self, principal_id: str) -> int:
        """How many sockets the principal holds on this node."""
        return len(self._by_principal.get(principal_id, ()))

    def online_counts(self) -> dict[str, int]:
        """Every principal with a socket on this node, and how many it holds."""
        return {p: len(ids) for p, ids in self._by_principal.items()}

    @property
    def connection_count(self) -> int:
        return len(self._conns)

    def count_by_kind(self) -> dict[str, int]:
        """Live connections by principal kind (``agent``, ``user``)."""
        counts: dict[str, int] = {}
        for conn in self._conns.values():
            counts[conn.principal.kind] = counts.get(conn.principal.kind, 0) + 1
        return counts

    # -- subscriptions -----------------------------------------------------------------------

    def join(self, conn: Connection, topic: str, join_ref: str) -> None:
        self._subs.setdefault(topic, {})[conn.id] = (conn, join_ref, push_head(join_ref))
        self._topics_of.setdefault(conn.id, set()).add(topic)

    def leave(self, conn: Connection, topic: str) -> None:
        self._drop_sub(conn, topic)
        self._topics_of.get(conn.id, set()).discard(topic)

    def _drop_sub(self, conn: Connection, topic: str) -> None:
        subs = self._subs.get(topic)
        if subs is None or subs.pop(conn.id, None) is None:
            return
        if not subs:
            del self._subs[topic]
        if self.on_left is not None:
            self.on_left(topic)

    def join_ref(self, conn: Connection, topic: str) -> str | None:
        entry = self._subs.get(topic, {}).get(conn.id)
        return entry[1] if entry else None

    # -- delivery ----------------------------------------------------------------------------

    def resync_agents(self, since: float, until: float | None = None) -> int:
        """After a fan-out gap from ``since`` to ``until``: close the local agent sockets opened
        before ``until`` (1012), so each reconnects and drains ``/next``; a socket opened
        later drained it after the gap was over. ``until`` gets ``GAP_CLOCK_MARGIN`` (it
        may be read on another node's clock); None (an earlier node's note) means now: every
        socket. A socket told already, by an earlier note, is not told again."""
        cut = math.inf if until is None else until + GAP_CLOCK_MARGIN
        told = self._resyncing
        agents = [
            conn
            for conn in self._conns.values()
            if conn.principal.is_agent and conn.opened_at < cut and conn.id not in told
        ]
        for conn in agents:
            told.add(conn.id)
            conn.close(RESYNC_CLOSE_CODE)
        log.warning(
            "fan-out gap since %.3f until %.3f: %d agent sockets told to resync",
            since,
            time.time() if until is None else until,
            len(agents),
        )
        return len(agents)

    async def deliver(self, b: Broadcast) -> None:
        """:meth:`push`, as the bus's ``Deliver`` (a coroutine function)."""
        self.push(b)

    def push(self, b: Broadcast) -> None:
        """Push a broadcast to every matching local subscriber, then apply its side effects.
        (Nothing here awaits: the node's own delivery calls it straight, no coroutine a
        broadcast.)"""
        # (the topic asked first: no call for any other broadcast)
        if b.topic == GAP_TOPIC and (since := gap_since(b)) is not None:
            self.resync_agents(since, gap_until(b))
            return
        subs = self._subs.get(b.topic)
        if subs:
            tail = push_tail(b.topic, b.event, b.payload_json)
            agents, users, exclude = b.agents, b.users, b.exclude_conn
            for conn_id, (conn, _, head) in list(subs.items()):
                # The routing rule (see the module docstring), in the loop: no call a socket.
                principal = conn.principal
                wanted = (agents is None or principal.id in agents) if principal.is_agent else users
                if wanted and conn_id != exclude:
                    conn.send_text(head + tail)
        meta = b.meta
        if not meta:  # (most broadcasts carry none: nothing more to do)
            return
        revoke = meta.get("revoke")
        if revoke:
            for conn in self.connections_of(str(meta.get("principal"))):
                for name in revoke:
                    self.leave(conn, str(name))
        if meta.get("close_principal"):
            principal_id = str(meta["close_principal"])
            for conn in self.connections_of(principal_id):
                if conn.id != b.exclude_conn:
                    conn.close(int(meta.get("close_code", 1008)))
