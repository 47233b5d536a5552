"""A short-lived, in-process cache of key -> principal, so each request skips two queries.

Entries live ``ttl`` seconds. Revoking a key (regenerating it, deleting the agent) emits a
broadcast that closes the principal's sockets; every node sees it through the bus and drops
that principal's entries at once, so a revoked key stops working immediately everywhere.
"""

from __future__ import annotations

import time

from ..fanout.bus import Broadcast
from .keys import hash_key
from .principals import Principal


class AuthCache:
    def __init__(self, ttl: float = 10.0, max_entries: int = 10_000) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: dict[str, tuple[Principal, float]] = {}

    def get(self, key: str) -> Principal | None:
        digest = hash_key(key)
        entry = self._entries.get(digest)
        if entry is None:
            return None
        principal, expires = entry
        if expires < time.monotonic():
            del self._entries[digest]
            return None
        return principal

    def put(self, key: str, principal: Principal) -> None:
        if len(self._entries) >= self.max_entries:
            self._entries.clear()  # crude but bounded: the next requests refill it
        self._entries[hash_key(key)] = (principal, time.monotonic() + self.ttl)

    def forget(self, principal_id: str) -> None:
        for digest in [d for d, (p, _) in self._entries.items() if p.id == principal_id]:
            del self._entries[digest]

    def observe(self, broadcast: Broadcast) -> None:
        """Drop a principal's entries when a broadcast ends its sessions (key revoked)."""
        principal_id = broadcast.meta.get("close_principal")
        if principal_id:
            self.forget(str(principal_id))
