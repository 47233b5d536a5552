"""The SQLite writer's turn: one holder at a time, handed on in the order it was asked for.

``asyncio.Lock`` made every unit of work run a coroutine to take it, free or not (and, once any
caller had waited, a generator over its waiters), and two more calls to give it back. A lone
unit, the common case on a quiet node, takes a free turn: :meth:`Turn.take` answers that
without a coroutine; only a caller that must wait awaits (:meth:`Turn.wait`). A turn given
back while others wait goes straight to the first of them (it stays held meanwhile, so nobody
asking later gets ahead of them), as the lock's waiters went in order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType

__all__ = ["Turn"]


class Turn:
    """See the module docstring; ``held`` says whether anyone has the turn."""

    __slots__ = ("_queue", "held")

    def __init__(self) -> None:
        self.held = False
        self._queue: deque[asyncio.Future[None]] = deque()

    def take(self) -> asyncio.Future[None] | None:
        """The turn now (None), or a future to give :meth:`wait` (the caller is in the queue)."""
        if not self.held:
            self.held = True
            return None
        waiter = asyncio.get_running_loop().create_future()
        self._queue.append(waiter)
        return waiter

    async def wait(self, waiter: asyncio.Future[None]) -> None:
        """Until :meth:`take`'s ``waiter`` is handed the turn. A caller cancelled meanwhile
        leaves the queue, or gives the turn on at once if it had just been handed it."""
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed over as the cancellation came: the next one's
            raise

    def release(self) -> None:
        """Give the turn to the first caller still waiting, or free it."""
        queue = self._queue
        while queue:
            waiter = queue.popleft()
            if not waiter.done():  # (a cancelled caller's is done)
                waiter.set_result(None)
                return
        self.held = False

    async def __aenter__(self) -> None:
        waiter = self.take()
        if waiter is not None:
            await self.wait(waiter)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
