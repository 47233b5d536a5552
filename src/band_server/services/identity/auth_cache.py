"""A short-lived, in-process cache of key -> principal, so each request skips the key query.

How it works: docs/internals/server.md, "The key cache".

Revoking a key drops its entries on every node at once, through the bus.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from band_server.fanout.bus import GAP_TOPIC, SUPERSEDE_ONLY, Broadcast, gap_since
from band_server.services.identity.keys import hash_key
from band_server.services.identity.principals import Principal
from band_server.services.one_read import OneRead


class AuthCache:
    def __init__(self, ttl: float = 10.0, max_entries: int = 10_000) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: dict[str, tuple[Principal, float]] = {}
        self._digests_of: dict[str, set[str]] = {}  # principal id -> its cached digests
        self.changes = 0  # bumped by every forget: see ``put``
        self._reading: OneRead[str, Principal] = OneRead()  # the lookup under way, by digest

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Principal | None:
        digest = hash_key(key)
        entry = self._entries.get(digest)
        if entry is None:
            return None
        principal, expires = entry
        if expires < time.monotonic():
            self._drop(digest, principal.id)
            return None
        return principal

    async def read_through(self, key: str, read: Callable[[], Awaitable[Principal]]) -> Principal:
        """The principal for ``key``: cached, or read once by ``read`` for every caller that
        wants it meanwhile (a caller after a forget reads again: the read under way may
        predate a revocation). A failed read (a wrong key) is shared, and nothing is kept."""
        principal = self.get(key)
        if principal is not None:
            return principal
        changes = self.changes

        async def lookup() -> Principal:
            found = await read()
            self.put(key, found, changes=changes)
            return found

        return await self._reading(hash_key(key), changes, lookup)

    def put(self, key: str, principal: Principal, *, changes: int | None = None) -> None:
        """Keep ``principal`` for ``key``, unless entries were forgotten since the read began
        (``changes`` is ``self.changes`` from before it): that read may predate a revocation."""
        if changes is not None and changes != self.changes:
            return
        if len(self._entries) >= self.max_entries:
            self._clear()  # crude but bounded: the next requests refill it
        digest = hash_key(key)
        self._entries[digest] = (principal, time.monotonic() + self.ttl)
        self._digests_of.setdefault(principal.id, set()).add(digest)

    def forget(self, principal_id: str) -> None:
        self.changes += 1
        for digest in self._digests_of.pop(principal_id, ()):
            self._entries.pop(digest, None)

    def observe(self, broadcast: Broadcast) -> None:
        """Drop a principal's entries when a broadcast ends its sessions (key revoked); drop
        everything after a fan-out gap (a revocation may have been missed)."""
        if broadcast.topic == GAP_TOPIC and gap_since(broadcast) is not None:  # (no call else)
            self.changes += 1
            self._clear()
            return
        principal_id = broadcast.meta.get("close_principal")
        if principal_id and not broadcast.meta.get(SUPERSEDE_ONLY):
            self.forget(str(principal_id))

    def _drop(self, digest: str, principal_id: str) -> None:
        self._entries.pop(digest, None)
        digests = self._digests_of.get(principal_id)
        if digests is not None:
            digests.discard(digest)
            if not digests:
                del self._digests_of[principal_id]

    def _clear(self) -> None:
        self._entries.clear()
        self._digests_of.clear()
