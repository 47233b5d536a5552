"""The Redis bus's quiet publishes: sent on a connection that skips replies, so no reply wakes
the node per publish. They are held until one PING, sent after them, confirms the lot (at
most one PING per ``confirm_every``), and resent on a fresh connection, answered, when their
connection is lost before that (taken or not: a push may repeat, never be missed). The bus
(``fanout.redis_bus``) owns the connections and says what a resend that fails means.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from .resp import RespConnection

log = logging.getLogger("band_server.fanout")

Publish = tuple[str, str]  # a PUBLISH's channel and text
MAX_HELD = 10_000  # quiet publishes awaiting confirmation; beyond, each waits for its answer


class QuietPublishes:
    """Quiet publishes held until a PING confirms them (see the module docstring); a resend that
    fails calls ``lost`` with the time of the first publish it lost."""

    def __init__(
        self,
        *,
        confirm_every: float,
        send_answered: Callable[[Publish], Awaitable[None]],
        lost: Callable[[float], None],
        stopping: Callable[[], bool],
    ) -> None:
        self.confirm_every = confirm_every  # at most one confirming PING per this many seconds
        self._send_answered = send_answered
        self._lost = lost
        self._stopping = stopping
        # Quiet publishes sent on ``_held_on`` (when, (channel, what)) no PING confirmed yet.
        self.held: list[tuple[float, Publish]] = []
        self._held_on: RespConnection | None = None
        self._unwritten: list[Publish] = []  # held, not yet written (see write_unwritten)
        self._confirming = False  # a confirming PING is due or awaited
        self._confirmed_at = 0.0  # monotonic time of the last one
        self._settled = asyncio.Event()  # set while nothing is held
        self.resends: set[asyncio.Task[None]] = set()

    def offer(self, conn: RespConnection | None, data: Publish) -> bool:
        """Send ``data`` quietly on ``conn``, held until confirmed; False when it cannot be
        (no quiet connection, or too much is held already): the caller waits for an answer."""
        if conn is None or not conn.alive or len(self.held) >= MAX_HELD:
            return False
        if conn is not self._held_on:
            self.resend_held()  # what is still held went out on an older connection
            self._held_on = conn
        if not self._unwritten:  # written once this loop iteration's work is done
            asyncio.get_running_loop().call_soon(self.write_unwritten)
        self._unwritten.append(data)
        self.held.append((time.time(), data))
        self._settled.clear()
        self._schedule_confirm()
        return True

    def write_unwritten(self) -> None:
        """Write the quiet publishes of this loop iteration, in one send, after the work that
        made them (a node's answer to the request goes out before Redis and the other nodes
        wake for its broadcast). On a connection lost meanwhile they stay held: resent."""
        batch, self._unwritten = self._unwritten, []
        conn = self._held_on
        if batch and conn is not None and conn.alive:
            conn.send_quiet_many([("PUBLISH", *data) for data in batch])

    def resend_held(self) -> None:
        """Hand what is held to a resend on a fresh connection: its connection was lost
        before Redis confirmed it (taken or not: a push may repeat, never be missed)."""
        held, self.held, self._held_on, self._unwritten = self.held, [], None, []
        self._settled.set()
        if not held or self._stopping():
            return
        task = asyncio.create_task(self._resend(held), name="band-redis-resend")
        self.resends.add(task)
        task.add_done_callback(self.resends.discard)

    async def flush(self) -> None:
        """Return once Redis has confirmed every publish so far, or a resend has taken (or
        announced as lost) what it had not."""
        while True:
            if self.resends:
                await asyncio.gather(*self.resends, return_exceptions=True)
            elif self.held:
                await self._settled.wait()
            else:
                return

    def clear(self) -> None:
        """Forget what is held (the bus stops)."""
        self.held, self._held_on, self._unwritten = [], None, []

    def _schedule_confirm(self) -> None:
        """One PING confirms every publish sent before it: at most one per ``confirm_every``,
        sent once this loop iteration's publishes are out."""
        if self._confirming:
            return
        self._confirming = True
        loop = asyncio.get_running_loop()
        wait = self._confirmed_at + self.confirm_every - time.monotonic()
        if wait > 0:
            loop.call_later(wait, self._confirm)
        else:
            loop.call_soon(self._confirm)

    def _confirm(self) -> None:
        self.write_unwritten()  # the PING must follow what it confirms
        conn, count = self._held_on, len(self.held)
        if conn is None or count == 0:
            self._confirming = False
            return
        self._confirmed_at = time.monotonic()
        try:
            reply = conn.command("PING")
        except ConnectionError:
            self._confirming = False
            self.resend_held()
            return
        reply.add_done_callback(partial(self._on_confirmed, conn, count))

    def _on_confirmed(self, conn: RespConnection, count: int, reply: asyncio.Future[Any]) -> None:
        self._confirming = False
        failed = reply.cancelled() or reply.exception() is not None
        if conn is self._held_on:  # else what it would confirm was handed to a resend already
            if failed:
                self.resend_held()
                return
            del self.held[:count]
        if self.held:  # sent since, perhaps on a newer connection
            self._schedule_confirm()
        else:
            self._settled.set()

    async def _resend(self, held: list[tuple[float, Publish]]) -> None:
        sent = await asyncio.gather(
            *(self._send_answered(data) for _, data in held), return_exceptions=True
        )
        lost = [at for (at, _), outcome in zip(held, sent, strict=True) if outcome is not None]
        if lost:
            log.warning(
                "redis bus: %d of %d unconfirmed publishes lost since %.3f: %r",
                len(lost),
                len(held),
                lost[0],
                next(o for o in sent if o is not None),
            )
            self._lost(lost[0])
        else:
            log.info(
                "redis bus: resent %d publishes a lost connection had not confirmed", len(held)
            )
