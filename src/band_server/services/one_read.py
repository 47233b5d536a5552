"""One read of a missing cache entry at a time, however many callers want it meanwhile.

The caches of rooms (``services.rooms.roster_cache``) and keys
(``services.identity.auth_cache``) read what they lack through :class:`OneRead`: a caller
whose entry is already being read waits for that read, unless the cache was told of a change
since it began (its ``epoch``, a count of invalidations, moved), and then reads again. Each
caller reading on its own, an entry expiring under load was read by every request arriving
meanwhile (docs/decisions.md, "One roster read at a time").
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class OneRead(Generic[K, V]):
    """The reads under way, by key, each with the epoch it began in."""

    def __init__(self) -> None:
        self._under_way: dict[K, tuple[asyncio.Task[V], int]] = {}

    def __len__(self) -> int:
        """How many reads are under way."""
        return len(self._under_way)

    async def __call__(self, key: K, epoch: int, read: Callable[[], Coroutine[Any, Any, V]]) -> V:
        """``read()``'s result, from the read of ``key`` under way since ``epoch`` or a new
        one. A failed read fails every caller of it; a caller cancelled meanwhile stops
        waiting, and the read goes on for the others."""
        under_way = self._under_way.get(key)
        if under_way is None or under_way[1] != epoch:
            task = asyncio.get_running_loop().create_task(read())
            under_way = self._under_way[key] = (task, epoch)
            task.add_done_callback(lambda done: self._over(key, done))
        return await asyncio.shield(under_way[0])

    def _over(self, key: K, task: asyncio.Task[V]) -> None:
        """Forget a finished read (unless a newer one for the key took its place)."""
        under_way = self._under_way.get(key)
        if under_way is not None and under_way[0] is task:
            del self._under_way[key]
        if not task.cancelled():
            task.exception()  # retrieved: every caller may have stopped waiting
